/**
 * The figures of one storm run.
 * @module
 */
import type { StormServerHints, StormServerModel } from './simulate-storm.js';
import type { StormPolicy } from './storm-policy.js';
import type { StormRecorder } from './storm-recorder.js';

/** Times (ms since the server returned) until a share of the clients had reconnected; null: never. */
export interface ReconnectTimes {
  readonly p50: number | null;
  readonly p99: number | null;
  readonly p100: number | null;
}

/** The outcome of {@link simulateStorm}. Times are milliseconds; `perSecond[k]` counts attempts in second k after the outage began. */
export interface StormResult {
  /** The policy's name. */
  readonly policy: string;
  /** The policy's description. */
  readonly description: string;
  /** Number of clients. */
  readonly clients: number;
  /** Outage, ms. */
  readonly outage: number;
  /** Handshakes accepted per second after the return. */
  readonly capacity: number;
  /** Seed of the random source. */
  readonly seed: number;
  /** Time from an attempt to the server's answer, ms. */
  readonly latency: number;
  /** What the server did with attempts over its budget: refused them at once, or stalled them. */
  readonly server: StormServerModel;
  /** The server-side herd control in the run. */
  readonly serverHints: StormServerHints;
  /** All attempts after the outage began. */
  readonly attempts: number;
  /** Attempts while the server was down. */
  readonly attemptsWhileDown: number;
  /** Attempts refused (or stalled) over the handshake budget after the server returned. */
  readonly wasted: number;
  /** Most attempts in one second, over the whole run (usually the second of the loss). */
  readonly peakPerSecond: number;
  /** Most attempts in one second from the server's return on (from the second in which it returns). */
  readonly peakAfterReturn: number;
  /** Clients connected again when the simulation ended. */
  readonly reconnected: number;
  /** Time from the server's return until 50, 99 and 100 % of the clients were back. */
  readonly reconnectedIn: ReconnectTimes;
  /** Attempts per client after the outage began. */
  readonly attemptsPerClient: { readonly mean: number; readonly max: number };
  /** Attempts in each second since the outage began. */
  readonly perSecond: readonly number[];
  /** Simulated time after the outage began. */
  readonly simulated: number;
}

/** Input of {@link summarizeStorm}: the run's settings as the result reports them, the policy and what was recorded. */
export interface StormSummaryInput extends Pick<
  StormResult,
  'clients' | 'outage' | 'capacity' | 'seed' | 'latency' | 'server' | 'serverHints' | 'simulated'
> {
  readonly policy: StormPolicy;
  readonly recorder: StormRecorder;
}

/** The time by which `share` of `clients` had reconnected, from sorted times; null if never. */
export function timeToShare(
  sortedTimes: readonly number[],
  clients: number,
  share: number,
  origin: number,
): number | null {
  const needed = Math.max(1, Math.ceil(share * clients));
  const at = sortedTimes[needed - 1];
  return at === undefined ? null : at - origin;
}

/** Turns a recorder's counts into a {@link StormResult}. */
export function summarizeStorm(input: StormSummaryInput): StormResult {
  const { recorder, clients, outage } = input;
  const times = recorder.reconnectTimes();
  const perClient = recorder.attemptsByClient();
  let max = 0;
  for (const n of perClient) max = Math.max(max, n);
  const returnSecond = Math.floor(outage / 1000);
  const perSecond = [...recorder.perSecond];
  return {
    policy: input.policy.name,
    description: input.policy.description,
    clients,
    outage,
    capacity: input.capacity,
    seed: input.seed,
    latency: input.latency,
    server: input.server,
    serverHints: input.serverHints,
    attempts: recorder.attempts,
    attemptsWhileDown: recorder.down,
    wasted: recorder.refused,
    peakPerSecond: Math.max(0, ...perSecond),
    peakAfterReturn: Math.max(0, ...perSecond.slice(returnSecond)),
    reconnected: recorder.reconnected,
    reconnectedIn: {
      p50: timeToShare(times, clients, 0.5, outage),
      p99: timeToShare(times, clients, 0.99, outage),
      p100: timeToShare(times, clients, 1, outage),
    },
    attemptsPerClient: { mean: recorder.attempts / clients, max },
    perSecond,
    simulated: input.simulated,
  };
}
