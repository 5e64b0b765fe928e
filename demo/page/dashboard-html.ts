/** When the demo started and when it serves the page, on the demo's clock (ms). */
export interface PageClock {
  readonly startedAt: number;
  readonly servedAt: number;
}

/**
 * The dashboard page: plain HTML and CSS; `dashboard.js` (bundled) fills it in. The page carries the
 * demo's clock as it was served, so the page can stamp its own transitions on it (demo/page/dashboard-log.ts).
 */
export function dashboardHtml(clock: PageClock): string {
  return `<!doctype html>
<html lang="en" data-started-at="${String(clock.startedAt)}" data-served-at="${String(clock.servedAt)}">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>redialer demo</title>
<style>
  :root { font: 14px/1.4 system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
  body { margin: 0 auto; max-width: 1100px; padding: 16px 24px 48px; overflow-wrap: break-word; }
  @media (max-width: 480px) { body { padding: 12px 12px 32px; } }
  .sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
  .scroll-x { overflow-x: auto; max-width: 100%; }
  [hidden] { display: none !important; }
  h1 { font-size: 22px; margin: 4px 0; } h2 { font-size: 16px; margin: 24px 0 8px; }
  .muted { color: #5b6475; } code { font-size: 12px; }
  #phase { padding: 8px 12px; background: #fff; border: 1px solid #d9dde5; border-radius: 6px; }
  #badges { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(300px, 100%), 1fr)); gap: 12px; }
  .card { background: #fff; border: 1px solid #d9dde5; border-radius: 8px; padding: 12px; }
  .card h3 { margin: 0 0 4px; font-size: 14px; } .card .target { font-size: 12px; color: #5b6475; word-break: break-all; }
  .badge { display: inline-block; padding: 3px 10px; border-radius: 999px; font-weight: 600; font-size: 12px; color: #fff; margin: 8px 0 4px; }
  .badge[data-state="READY"] { background: #1a7f37; } .badge[data-state="CONNECTING"] { background: #b7791f; }
  .badge[data-state="TRANSIENT_FAILURE"] { background: #c53030; } .badge[data-state="IDLE"], .badge[data-state="SHUTDOWN"] { background: #718096; }
  .countdown { font-variant-numeric: tabular-nums; margin-left: 8px; }
  .meta { font-size: 12px; color: #5b6475; min-height: 2.8em; }
  .row { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; margin-top: 6px; }
  button { font: inherit; font-size: 12px; padding: 3px 10px; border: 1px solid #9aa3b5; border-radius: 4px; background: #fff; cursor: pointer; }
  button.primary { background: #2b6cb0; border-color: #2b6cb0; color: #fff; }
  button:disabled { opacity: 0.45; cursor: default; }
  button[aria-pressed="true"] { background: #1d2330; color: #fff; }
  #timeline svg { width: 100%; height: auto; background: #fff; border: 1px solid #d9dde5; border-radius: 6px; }
  #log { white-space: pre-wrap; font: 12px/1.5 ui-monospace, monospace; max-height: 200px; overflow: auto; background: #fff; border: 1px solid #d9dde5; border-radius: 6px; padding: 6px 10px; margin-top: 8px; }
  .legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; vertical-align: middle; }
  form { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(150px, 100%), 1fr)); gap: 8px 16px; align-items: end; }
  label { display: grid; font-size: 12px; color: #5b6475; gap: 2px; } input, select { font: inherit; padding: 3px 6px; }
  #storm-plot svg { width: 100%; height: auto; background: #fff; }
  #storm-figures { border-collapse: collapse; margin: 8px 0; font-size: 12px; }
  #storm-figures td, #storm-figures th { border-bottom: 1px solid #d9dde5; padding: 3px 10px; text-align: right; }
  #storm-figures th:first-child, #storm-figures td:first-child { text-align: left; }
  .error { color: #c53030; } pre#summary { background: #fff; border: 1px solid #d9dde5; border-radius: 6px; padding: 8px; font-size: 12px; overflow: auto; }
</style>
<h1>redialer demo</h1>
<p class="muted">gRPC's connection-backoff protocol, live: a grpc-js client and a WebSocket client kept connected by redialer,
with a fault proxy in front of each server. This page reaches the demo server through redialer too.</p>
<div id="phase">connecting…</div>
<p id="announce" class="sr-only" role="status" aria-live="polite"></p>
<p id="settings" class="muted"></p>

<h2>Connections</h2>
<div id="badges"></div>

<h2>Timeline <span class="legend muted"><span style="background:#1a7f37"></span>READY<span style="background:#b7791f"></span>CONNECTING<span style="background:#c53030"></span>TRANSIENT_FAILURE<span style="background:#cbd2dc"></span>IDLE</span></h2>
<div id="timeline"></div>
<div id="log" aria-label="transitions, newest first, in seconds since the demo started"></div>
<pre id="summary" hidden></pre>

<h2>Storm simulator</h2>
<p class="muted">Many clients lose their server at once; it comes back with a budget of handshakes per second.
The real connection manager runs for every client on a virtual clock, in this page. The form starts with a plain
exponential backoff without jitter (1 s, ×2, 30 s cap); tune it and compare with gRPC's defaults.</p>
<form id="storm-form">
  <label>initial backoff (ms)<input name="initial" type="number" min="0" step="50" value="1000"></label>
  <label>multiplier<input name="multiplier" type="number" min="1" step="0.1" value="2"></label>
  <label>jitter<select name="jitter">
    <option value="none" selected>none</option><option value="proportional">± fraction (gRPC)</option><option value="full">full</option>
    <option value="equal">equal</option><option value="decorrelated">decorrelated</option>
  </select></label>
  <label id="fraction-field">± fraction<input name="fraction" type="number" min="0" max="1" step="0.05" value="0.2"></label>
  <label>cap (ms)<input name="cap" type="number" min="0" step="1000" value="30000"></label>
  <label>clients (≤ 5000)<input name="clients" type="number" min="1" max="5000" step="1" value="1000"></label>
  <label>outage (s)<input name="outage" type="number" min="0" max="600" step="5" value="30"></label>
  <label>handshakes/s<input name="capacity" type="number" min="1" step="1" value="100"></label>
  <label>server hints<select name="hints">
    <option value="none" selected>none</option><option value="announce">announce (drain)</option><option value="admission">admission</option>
  </select></label>
  <button class="primary" type="submit">Simulate</button>
</form>
<p id="storm-status" class="muted"></p>
<div class="scroll-x"><table id="storm-figures"></table></div>
<div id="storm-plot"></div>
<script type="module" src="/dashboard.js"></script>
</html>`;
}
