/**
 * The dashboard page's script (bundled for the browser with esbuild): badges with the countdown and
 * "Retry now", the timeline, and the storm simulator. The page's own connection to the demo server
 * is a redialer ReconnectingWebSocket on the browser's WebSocket, shown as a badge like the others.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { ConnectivityState } from '../../src/index.js';
import { exponentialBackoff, grpcBackoff, type BackoffPolicy, type JitterKind } from '../../src/index.js';
import {
  simulateStorm,
  stormSvg,
  type StormPolicy,
  type StormResult,
  type StormServerHints,
} from '../../src/tools/simulator/index.js';
import { redialerGrpcExactPolicy, redialerGrpcPolicy } from '../../src/tools/simulator/policies/redialer-policies.js';
import { ReconnectingWebSocket, type WebSocketSnapshot } from '../../src/adapters/websocket/index.js';
import { plural, type ClientStatus, type FaultName, type PageMessage, type ServerMessage } from '../live-protocol.js';
import { DashboardLog, type ServedAt } from './dashboard-log.js';

type BadgeId = 'page' | ClientStatus['id'];

/** A badge's data, its times on the demo's clock (see dashboard-log.ts). */
interface Badge {
  readonly id: BadgeId;
  readonly label: string;
  readonly target: string;
  readonly state: ConnectivityState;
  readonly attempt: number;
  readonly since: number;
  readonly nextAttemptAt: number | null;
  readonly timeoutAt: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly resets: number | null;
  readonly fault: FaultName | null;
}

interface HistoryEntry {
  readonly at: number;
  readonly state: ConnectivityState;
  readonly attempt: number;
  readonly nextAttemptAt: number | null;
}

const ORDER: readonly BadgeId[] = ['grpc', 'websocket', 'failover', 'page'];
const FAULT_LABELS: Record<FaultName, string> = {
  pass: 'pass',
  refuse: 'refuse',
  blackhole: 'black hole',
  close: 'accept & close',
};
const COLORS: Record<ConnectivityState, string> = {
  READY: '#1a7f37',
  CONNECTING: '#b7791f',
  TRANSIENT_FAILURE: '#c53030',
  IDLE: '#cbd2dc',
  SHUTDOWN: '#cbd2dc',
};

const badges = new Map<BadgeId, Badge>();

/** The demo's clock as it served this page (the HTML carries it), paired with this page's steady clock. */
function servedAt(): ServedAt {
  const data = document.documentElement.dataset;
  const startedAt = Number(data['startedAt']);
  const at = Number(data['servedAt']);
  if (!Number.isFinite(startedAt) || !Number.isFinite(at))
    throw new Error("dashboard: the page lacks the demo's clock (data-started-at, data-served-at)");
  // When the response began to arrive; where the browser does not say, now (later: still after it was served).
  const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const arrivedAt =
    navigation !== undefined && navigation.responseStart > 0 ? navigation.responseStart : performance.now();
  return { startedAt, at, arrivedAt };
}
const served = servedAt();
/** Every time on this page is on the demo's clock, read through the log. */
const log = new DashboardLog({ now: () => performance.now(), served });
const history: Record<BadgeId, HistoryEntry[]> = { page: [], grpc: [], websocket: [], failover: [] };
let pageAttempts = 0;

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`dashboard: #${id} is missing`);
  return found;
}

function describe(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (typeof error === 'object' && 'message' in error && typeof error.message === 'string') return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** The browser's timers, with the time read on the demo's clock: the page's badge counts down on it too. */
const scheduler: SchedulerLike = {
  now: () => log.now(),
  schedule: asyncScheduler.schedule.bind(asyncScheduler),
};

// The page's own connection: gRPC's defaults but a 10 s cap and a 5 s connect timeout.
const socket = new ReconnectingWebSocket(`ws://${location.host}/live`, [], {
  maxReconnectionDelay: 10_000,
  connectionTimeout: 5000,
  scheduler,
});

const SPOKEN: Record<ConnectivityState, string> = {
  READY: 'connected',
  CONNECTING: 'connecting',
  TRANSIENT_FAILURE: 'waiting to reconnect',
  IDLE: 'idle',
  SHUTDOWN: 'stopped',
};

/** Tells screen readers (the polite live region) that a connection changed state. */
function announce(badge: Badge): void {
  const wait =
    badge.nextAttemptAt === null
      ? ''
      : `, next attempt in ${String(Math.max(0, Math.round((badge.nextAttemptAt - log.now()) / 1000)))} s`;
  element('announce').textContent = `${badge.label}: ${SPOKEN[badge.state]}${wait}`;
}

function setBadge(badge: Badge): void {
  const previous = badges.get(badge.id);
  badges.set(badge.id, badge);
  if (previous !== undefined && previous.state !== badge.state) announce(badge);
  if (previous?.state !== badge.state || previous.attempt !== badge.attempt || previous.since !== badge.since) {
    history[badge.id].push({
      at: badge.since,
      state: badge.state,
      attempt: badge.attempt,
      nextAttemptAt: badge.nextAttemptAt,
    });
  }
  renderBadge(badge);
}

socket.state$.subscribe((s: WebSocketSnapshot) => {
  if (s.state === 'CONNECTING') pageAttempts += 1;
  const error = describe(s.lastError);
  setBadge({
    id: 'page',
    label: 'This page (ReconnectingWebSocket in the browser)',
    target: `ws://${location.host}/live`,
    state: s.state,
    attempt: s.attempt,
    since: s.since,
    nextAttemptAt: s.state === 'TRANSIENT_FAILURE' ? s.nextAttemptAt : null,
    timeoutAt: s.state === 'CONNECTING' ? s.timeoutAt : null,
    error,
    attempts: pageAttempts,
    resets: null,
    fault: null,
  });
  log.page(
    s.since,
    s.state,
    s.state === 'TRANSIENT_FAILURE'
      ? `attempt ${String(s.attempt)} ended (${error ?? 'closed'})`
      : `attempt ${String(s.attempt)}`,
  );
  renderLog();
});

socket.onmessage = (event) => {
  const message = JSON.parse(String(event.data)) as ServerMessage;
  // Another run of the demo (restarted while this page stayed open) has another start: load it afresh.
  if (message.type === 'hello' && message.startedAt !== served.startedAt) {
    location.reload();
    return;
  }
  log.receive(message);
  switch (message.type) {
    case 'hello':
      element('settings').textContent =
        `Demo settings that differ from gRPC's defaults: ${message.differences.join('; ')}.`;
      for (const c of message.clients) {
        history[c.id] = message.timeline
          .filter((e) => e.client === c.id)
          .map((e) => ({ at: e.at, state: e.state, attempt: 0, nextAttemptAt: null }));
        setBadge(c);
      }
      renderPhase(message.phase);
      renderLog();
      break;
    case 'status':
      setBadge(message.client);
      renderLog();
      break;
    case 'phase':
      renderPhase(message.phase);
      break;
    case 'summary': {
      const summary = element('summary');
      summary.hidden = false;
      summary.textContent = message.text;
      break;
    }
  }
};

function send(message: PageMessage): void {
  socket.send(JSON.stringify(message));
}

function renderPhase(phase: Extract<ServerMessage, { type: 'phase' }>['phase']): void {
  element('phase').innerHTML = '';
  const strong = document.createElement('strong');
  strong.textContent =
    phase === null
      ? 'no script'
      : phase.index < phase.count
        ? `${String(phase.index + 1)}/${String(phase.count)} ${phase.name}`
        : phase.name;
  element('phase').append(strong, `: ${phase?.explain ?? 'both servers up'}`);
}

function card(id: BadgeId): HTMLElement {
  const existing = document.querySelector<HTMLElement>(`.card[data-client="${id}"]`);
  if (existing !== null) return existing;
  const root = document.createElement('div');
  root.className = 'card';
  root.dataset['client'] = id;
  root.innerHTML = `<h3></h3><div class="target"></div><div><span class="badge"></span><span class="countdown"></span></div>
    <div class="meta"></div><div class="row"><button class="primary retry" type="button">Retry now</button></div>
    ${id === 'page' ? '' : `<div class="row faults"><span class="muted">proxy:</span>${(Object.keys(FAULT_LABELS) as FaultName[]).map((f) => `<button type="button" data-fault="${f}">${FAULT_LABELS[f]}</button>`).join('')}</div>`}`;
  root.querySelector('.retry')?.addEventListener('click', () => {
    if (id === 'page') socket.resetBackoff();
    else send({ type: 'retry', client: id });
  });
  for (const button of root.querySelectorAll<HTMLButtonElement>('[data-fault]')) {
    button.addEventListener('click', () => {
      if (id !== 'page') send({ type: 'fault', client: id, fault: button.dataset['fault'] as FaultName });
    });
  }
  const container = element('badges');
  const before = ORDER.slice(ORDER.indexOf(id) + 1)
    .map((next) => container.querySelector(`.card[data-client="${next}"]`))
    .find((e) => e !== null);
  container.insertBefore(root, before ?? null);
  return root;
}

function countdownText(b: Badge, now: number): string {
  if (b.nextAttemptAt !== null) return `reconnecting in ${(Math.max(0, b.nextAttemptAt - now) / 1000).toFixed(1)} s`;
  if (b.timeoutAt !== null)
    return `attempt ${String(b.attempt)}, cut in ${(Math.max(0, b.timeoutAt - now) / 1000).toFixed(1)} s`;
  if (b.state === 'READY') return `up ${((now - b.since) / 1000).toFixed(0)} s`;
  return '';
}

function renderBadge(b: Badge): void {
  const root = card(b.id);
  const set = (selector: string, text: string): void => {
    const target = root.querySelector(selector);
    if (target !== null) target.textContent = text;
  };
  set('h3', b.label);
  set('.target', b.target);
  const badge = root.querySelector<HTMLElement>('.badge');
  if (badge !== null) {
    badge.dataset['state'] = b.state;
    badge.textContent = b.state;
  }
  root.dataset['state'] = b.state;
  set('.countdown', countdownText(b, log.now()));
  set(
    '.meta',
    `attempt ${String(b.attempt)} since the last reset · ${plural(b.attempts, 'attempt')} in all` +
      `${b.resets === null ? '' : ` · ${plural(b.resets, 'backoff reset')}`}${b.state !== 'READY' && b.error !== null ? ` · last error: ${b.error}` : ''}`,
  );
  const retry = root.querySelector<HTMLButtonElement>('.retry');
  if (retry !== null) retry.disabled = b.state === 'READY' || b.state === 'SHUTDOWN';
  for (const button of root.querySelectorAll<HTMLButtonElement>('[data-fault]'))
    button.setAttribute('aria-pressed', String(button.dataset['fault'] === b.fault));
}

function renderLog(): void {
  element('log').textContent = log.lines(40).join('\n');
}

function renderTimeline(now: number): void {
  const span = 60_000;
  const start = now - span;
  const width = 1000;
  const row = 26;
  const left = 90;
  const parts: string[] = [];
  ORDER.forEach((id, i) => {
    const y = 8 + i * row;
    parts.push(`<text x="4" y="${String(y + 14)}" font-size="12" fill="#1d2330">${id}</text>`);
    const mine = history[id];
    mine.forEach((h, k) => {
      const end = mine[k + 1]?.at ?? now;
      if (end < start) return;
      const x0 = left + ((Math.max(h.at, start) - start) / span) * (width - left);
      const x1 = left + ((end - start) / span) * (width - left);
      parts.push(
        `<rect x="${x0.toFixed(1)}" y="${String(y)}" width="${Math.max(1, x1 - x0).toFixed(1)}" height="18" fill="${COLORS[h.state]}"><title>${h.state}</title></rect>`,
      );
    });
  });
  for (let s = 0; s <= 60; s += 10) {
    const x = left + (s / 60) * (width - left);
    parts.push(
      `<text x="${x.toFixed(1)}" y="${String(8 + ORDER.length * row + 12)}" font-size="11" fill="#5b6475" text-anchor="${s === 60 ? 'end' : 'middle'}">${s === 60 ? 'now' : `-${String(60 - s)} s`}</text>`,
    );
  }
  element('timeline').innerHTML =
    `<svg viewBox="0 0 ${String(width)} ${String(8 + ORDER.length * row + 20)}" role="img" aria-label="state timeline, last 60 s">${parts.join('')}</svg>`;
}

let frame = 0;
setInterval(() => {
  const now = log.now();
  for (const b of badges.values()) {
    const target = card(b.id).querySelector('.countdown');
    if (target !== null) target.textContent = countdownText(b, now);
  }
  frame += 1;
  if (frame % 3 === 0) renderTimeline(now);
}, 100);

// The storm simulator.
function numberField(form: HTMLFormElement, name: string): number {
  const input = form.elements.namedItem(name) as HTMLInputElement;
  return Number(input.value);
}

function userPolicy(form: HTMLFormElement): { policy: StormPolicy; label: string } {
  const initial = numberField(form, 'initial');
  const multiplier = numberField(form, 'multiplier');
  const cap = numberField(form, 'cap');
  const jitter = (form.elements.namedItem('jitter') as HTMLSelectElement).value;
  let backoff: BackoffPolicy;
  let label: string;
  if (jitter === 'proportional') {
    const fraction = numberField(form, 'fraction');
    backoff = grpcBackoff({ initialBackoff: initial, multiplier, jitter: fraction, maxBackoff: cap });
    label = `grpcBackoff(${String(initial)} ms, ×${String(multiplier)}, ±${String(fraction)}, cap ${String(cap)} ms)`;
  } else {
    backoff = exponentialBackoff({ initialDelay: initial, multiplier, maxDelay: cap, jitter: jitter as JitterKind });
    label = `exponentialBackoff(${String(initial)} ms, ×${String(multiplier)}, ${jitter} jitter, cap ${String(cap)} ms)`;
  }
  return { policy: { name: 'your settings', description: label, forClient: () => ({ backoff }) }, label };
}

function secs(ms: number | null): string {
  return ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

function simulate(form: HTMLFormElement): void {
  const status = element('storm-status');
  status.classList.remove('error');
  try {
    const clients = numberField(form, 'clients');
    if (!(clients >= 1 && clients <= 5000))
      throw new RangeError(`clients must be between 1 and 5000 in the page, got ${String(clients)}`);
    const { policy, label } = userPolicy(form);
    // Server-side herd control (redialer/server); both clients then honour the hints exactly.
    const serverHints = (form.elements.namedItem('hints') as HTMLSelectElement).value as StormServerHints;
    const exact = serverHints === 'none' ? {} : { serverHints: 'exact' as const };
    const yours: StormPolicy = { ...policy, forClient: (random) => ({ ...policy.forClient(random), ...exact }) };
    const grpc = serverHints === 'none' ? redialerGrpcPolicy : redialerGrpcExactPolicy;
    const common = {
      clients,
      outage: numberField(form, 'outage') * 1000,
      capacity: numberField(form, 'capacity'),
      horizon: 300_000,
      serverHints,
    };
    const started = performance.now();
    const results: StormResult[] = [
      simulateStorm({ ...common, policy: yours }),
      simulateStorm({ ...common, policy: grpc }),
    ];
    const hints = serverHints === 'none' ? '' : `, server hints: ${serverHints}`;
    status.textContent = `${label} against gRPC's defaults${hints}; ${String(clients)} clients simulated in ${((performance.now() - started) / 1000).toFixed(2)} s.`;
    element('storm-figures').innerHTML =
      '<tr><th>policy</th><th>peak attempts/s after return</th><th>wasted attempts</th><th>50 % back</th><th>99 % back</th><th>all back</th><th>attempts per client</th></tr>' +
      results
        .map(
          (r) =>
            `<tr><td>${r.policy}</td><td>${String(r.peakAfterReturn)}</td><td>${String(r.wasted)}</td><td>${secs(r.reconnectedIn.p50)}</td><td>${secs(r.reconnectedIn.p99)}</td><td>${secs(r.reconnectedIn.p100)}</td><td>${r.attemptsPerClient.mean.toFixed(1)}</td></tr>`,
        )
        .join('');
    // Each policy on its own time axis (a fast one is not squeezed into the first seconds), as wide as the page.
    const plotWidth = Math.round(Math.max(320, Math.min(900, element('storm-plot').clientWidth || 900)));
    element('storm-plot').innerHTML = stormSvg(results, { xRange: 'per-panel', width: plotWidth });
  } catch (error) {
    status.classList.add('error');
    status.textContent = describe(error) ?? 'the simulation failed';
  }
}

const form = element('storm-form') as HTMLFormElement;
// The "± fraction" field applies only to gRPC's proportional jitter.
const jitterSelect = form.elements.namedItem('jitter') as HTMLSelectElement;
const showFraction = (): void => {
  element('fraction-field').hidden = jitterSelect.value !== 'proportional';
};
jitterSelect.addEventListener('change', showFraction);
showFraction();
form.addEventListener('submit', (event) => {
  event.preventDefault();
  element('storm-status').textContent = 'simulating…';
  setTimeout(() => {
    simulate(form);
  }, 10);
});
simulate(form);

/** For the end-to-end test and the curious: the page's connection and every badge's history. */
(window as unknown as { redialerDemo: unknown }).redialerDemo = { socket, history, badges };
