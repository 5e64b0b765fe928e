/**
 * Runs the demo: starts the servers, proxies, clients and dashboard, plays the script, prints the
 * summary, and (with `serve`) keeps everything running until the signal aborts.
 */
import type { ClientTrack } from './client-track.js';
import { type Dashboard, startDashboard } from './dashboard-server.js';
import { type DemoRig, faultName, startRig } from './demo-rig.js';
import type { PhaseStatus, ServerMessage } from './live-protocol.js';
import { type Phase, type Scenario, differencesFromGrpc } from './scenario.js';
import { type DemoSummary, type Recovery, formatSummary, summarize } from './summary.js';
import { type DemoView, type Output, colorWanted, lineView, liveView } from './terminal-view.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  readonly scenario: Scenario;
  /** Keep running with the dashboard after the script, until `signal` aborts. */
  readonly serve: boolean;
  /** Skip the script (start with both servers up); for the dashboard's tests. */
  readonly skipScript?: boolean;
  /** The dashboard's port (taken: any free port; 0: any free port). */
  readonly port: number;
  /** The folder holding the page's bundled script. */
  readonly assetsDir: string;
  readonly out: Output;
  /** The environment read for NO_COLOR, FORCE_COLOR and TERM. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Ends the serve mode (and the script, if still running). */
  readonly signal?: AbortSignal;
  /** Called once the dashboard is up, with a handle the tests use. */
  readonly onReady?: (running: RunningDemo) => void;
}

/** What the tests can reach while the demo runs. */
export interface RunningDemo {
  readonly rig: DemoRig;
  readonly dashboard: Dashboard;
}

/** The demo's outcome. */
export interface DemoOutcome {
  readonly summary: DemoSummary;
  readonly text: string;
}

const silentView: DemoView = {
  phase: () => undefined,
  transition: () => undefined,
  note: () => undefined,
  finish: () => undefined,
};

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Plays the script and returns the summary. */
export async function runDemo(options: DemoOptions): Promise<DemoOutcome> {
  const { scenario, out, signal } = options;
  const settings = scenario.settings;
  const startedAt = Date.now();
  const color = colorWanted(out, options.env ?? process.env);
  const aborted = (): boolean => signal?.aborted === true;
  // Filled in as the parts start; transitions arrive from the first moment on.
  const parts: { rig?: DemoRig; dashboard?: Dashboard } = {};
  let phase: PhaseStatus | null = null;
  const tracks = (): ClientTrack[] =>
    parts.rig === undefined
      ? []
      : [parts.rig.clients.grpc.track, parts.rig.clients.websocket.track, parts.rig.clients.failover.track];
  const horizon = scenario.phases.reduce((sum, p) => sum + p.duration, 0);
  let view: DemoView = lineView(out, startedAt, color);
  const differences = differencesFromGrpc(settings);

  out.write(
    [
      'redialer demo: a real grpc-js server and a real WebSocket server on 127.0.0.1,',
      'a fault proxy in front of each, and a redialer-managed client of each',
      '(grpc: a grpc-js client on a ManagedChannel; websocket: a ReconnectingWebSocket on ws;',
      'failover: a ManagedChannel with two addresses, the first black-holed: it connects one 250 ms stagger late).',
      `gRPC's backoff protocol, with times shortened so the story fits in ${scenario.name === 'fast' ? 'seconds' : 'about a minute'}:`,
      ...differences.map((d) => `  ${d}`),
      '',
    ].join('\n') + '\n',
  );

  const running = await startRig(settings, (client, entry) => {
    view.transition(client, entry);
    parts.dashboard?.publish({ type: 'status', now: Date.now(), client: client.status, entry });
  });
  parts.rig = running;
  const hello = (): ServerMessage => ({
    type: 'hello',
    now: Date.now(),
    startedAt,
    settings: { ...settings },
    differences,
    clients: tracks().map((t) => t.status),
    timeline: tracks()
      .flatMap((t) => t.entries)
      .sort((a, b) => a.at - b.at),
    phase,
  });
  const dashboard = await startDashboard({
    port: options.port,
    assetsDir: options.assetsDir,
    rig: running,
    startedAt,
    hello,
  });
  parts.dashboard = dashboard;
  out.write(
    `Dashboard: ${dashboard.url}${options.serve ? '' : '  (add --serve to keep it running after the story)'}\n\n`,
  );
  options.onReady?.({ rig: running, dashboard });
  if (out.isTTY === true) view = liveView(out, startedAt, tracks, horizon, '', color);

  const setPhase = (status: PhaseStatus | null): void => {
    phase = status;
    dashboard.publish({ type: 'phase', phase: status });
  };

  const recoveries: Recovery[] = [];
  const phaseStarts: { phase: Phase; at: number }[] = [];
  const phases = options.skipScript === true ? [] : scenario.phases;
  for (const [index, step] of phases.entries()) {
    if (aborted()) break;
    const at = Date.now();
    phaseStarts.push({ phase: step, at });
    if (step.recovery) recoveries.push({ phase: step.name, at });
    await Promise.all(tracks().map((t) => running.clients[t.id].setFault(faultName(step.fault), step.dropOpen)));
    view.phase(index, step, at);
    setPhase({ index, count: phases.length, name: step.name, explain: step.explain, startedAt: at });
    if (index < phases.length - 1) {
      await sleep(step.duration, signal);
    } else {
      // The last phase ends once every client has stayed READY for minUptime (its backoff reset), or at its end.
      const deadline = at + step.duration;
      const settled = (): boolean =>
        tracks().every((t) => t.status.state === 'READY' && Date.now() - t.status.since >= settings.minUptime + 200);
      while (Date.now() < deadline && !settled() && !aborted()) await sleep(100, signal);
    }
  }
  const endedAt = Date.now();
  view.finish();
  view = lineView(out, startedAt, color);
  const summary = summarize(tracks(), recoveries, phaseStarts, running.traffic, startedAt, endedAt);
  const text = formatSummary(summary, tracks(), startedAt, endedAt, differences, color);
  if (phases.length > 0) out.write(`\n${text}\n`);
  dashboard.publish({
    type: 'summary',
    text: formatSummary(summary, tracks(), startedAt, endedAt, differences, false),
  });

  if (options.serve) {
    setPhase({
      index: phases.length,
      count: phases.length,
      name: 'free play',
      explain: 'switch faults and press Retry now on the dashboard',
      startedAt: Date.now(),
    });
    out.write(`\nServing the dashboard at ${dashboard.url} (Ctrl-C to stop)\n\n`);
    if (out.isTTY === true) {
      view = liveView(
        out,
        Date.now(),
        tracks,
        60_000,
        `free play: switch faults and press Retry now at ${dashboard.url}`,
        color,
      );
    }
    await new Promise<void>((resolve) => {
      if (signal === undefined || signal.aborted) resolve();
      else
        signal.addEventListener(
          'abort',
          () => {
            resolve();
          },
          { once: true },
        );
    });
  }
  view.finish();
  view = silentView;
  await dashboard.close();
  await running.close();
  return { summary, text };
}
