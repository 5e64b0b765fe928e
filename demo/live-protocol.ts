/**
 * What the demo server and the dashboard page say to each other over the page's WebSocket (JSON).
 * Times are epoch milliseconds on the demo's clock (the managers run on the default scheduler, whose
 * clock is `Date.now()`); the page reads everything on that clock too (see demo/page/dashboard-log.ts).
 */
import type { ConnectivityState } from '../src/index.js';

/** The clients the demo runs (the page adds its own connection, 'page'). */
export type ClientId = 'grpc' | 'websocket' | 'failover';

/** One client's state as a badge shows it. */
export interface ClientStatus {
  readonly id: ClientId;
  readonly label: string;
  /** What it connects to (the proxy in front of its server). */
  readonly target: string;
  readonly state: ConnectivityState;
  readonly attempt: number;
  readonly since: number;
  /** TRANSIENT_FAILURE: when the next attempt starts. */
  readonly nextAttemptAt: number | null;
  /** CONNECTING: when the attempt is cut. */
  readonly timeoutAt: number | null;
  /** What ended the last attempt or connection. */
  readonly error: string | null;
  /** Attempts started so far. */
  readonly attempts: number;
  /** Backoff resets so far (a connection that stayed up minUptime, or Retry now). */
  readonly resets: number;
  /** The proxy's fault for new connections. */
  readonly fault: FaultName;
}

/** A line of the timeline. */
export interface TimelineEntry {
  readonly at: number;
  readonly client: ClientId;
  readonly state: ConnectivityState;
  readonly detail: string;
}

/** The script's current step. */
export interface PhaseStatus {
  readonly index: number;
  readonly count: number;
  readonly name: string;
  readonly explain: string;
  readonly startedAt: number;
}

/** The faults the dashboard can switch on. */
export type FaultName = 'pass' | 'refuse' | 'blackhole' | 'close';

/** Server to page. */
export type ServerMessage =
  | {
      readonly type: 'hello';
      readonly now: number;
      readonly startedAt: number;
      readonly settings: Readonly<Record<string, number>>;
      readonly differences: readonly string[];
      readonly clients: readonly ClientStatus[];
      readonly timeline: readonly TimelineEntry[];
      readonly phase: PhaseStatus | null;
    }
  | {
      readonly type: 'status';
      readonly now: number;
      readonly client: ClientStatus;
      readonly entry: TimelineEntry | null;
    }
  | { readonly type: 'phase'; readonly phase: PhaseStatus | null }
  | { readonly type: 'summary'; readonly text: string };

/** Page to server. */
export type PageMessage =
  | { readonly type: 'retry'; readonly client: ClientId }
  | { readonly type: 'fault'; readonly client: ClientId; readonly fault: FaultName };

/**
 * Elapsed time as the terminal and the dashboard's log show it: "  3.25 s". Rounded to hundredths
 * first, so that a time a hair below zero reads "0.00 s", never "-0.00 s"; a real negative (a clock
 * bug) still shows its sign.
 */
export function formatElapsed(ms: number): string {
  const hundredths = Math.round(ms / 10);
  return `${((hundredths === 0 ? 0 : hundredths) / 100).toFixed(2).padStart(6)} s`;
}

/** "1 attempt", "2 attempts". */
export function plural(count: number, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}
