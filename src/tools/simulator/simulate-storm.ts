/**
 * The reconnect-storm simulation: N clients on one virtual clock against a server that goes down and
 * comes back with a handshake budget. A redialer client is a real `ConnectionManager`; a peer
 * library's client follows that library's own rules (`PeerRules`).
 * @module
 */
import { Observable } from 'rxjs';
import type { RandomSource } from '../../backoff/backoff.js';
import { ConnectionManager } from '../../core/connection-manager.js';
import type { Connector } from '../../core/connector.js';
import { retryAfter } from '../../errors/retry-after-error.js';
import { drainHint } from '../../toolkits/server/herd-plan.js';
import { createVirtualClock } from '../../testing/virtual-clock.js';
import { checkOptionsObject, optionalChoice, optionalFunction, optionalNumber } from '../../internal/validate.js';
import { PeerClient } from './peer-client.js';
import { seededRandom } from '../../testing/seeded-random.js';
import type { StormPolicy } from './storm-policy.js';
import { StormRecorder } from './storm-recorder.js';
import { type StormResult, summarizeStorm } from './storm-result.js';
import { StormServer } from './storm-server.js';

/** Progress of a running simulation, reported once per simulated second. */
export interface StormProgress {
  /** Milliseconds since the outage began. */
  readonly elapsed: number;
  /** Clients reconnected so far. */
  readonly reconnected: number;
  /** All clients. */
  readonly clients: number;
}

/** Options of {@link simulateStorm}; times in milliseconds. */
export interface StormOptions {
  /** The reconnect behaviour every client follows. Required. */
  readonly policy: StormPolicy;
  /** Number of clients, all connected when the outage begins. @defaultValue 10000 */
  readonly clients?: number;
  /** How long the server is down. @defaultValue 30000 */
  readonly outage?: number;
  /** Handshakes the server accepts per second once it is back. @defaultValue 1000 */
  readonly capacity?: number;
  /** Seed of the random source shared by all clients. @defaultValue 1 */
  readonly seed?: number;
  /** Time from the start of an attempt to the server's answer (0: at once). @defaultValue 0 */
  readonly latency?: number;
  /** Give up simulating this long after the server returns. @defaultValue 600000 */
  readonly horizon?: number;
  /** Abort with a RangeError after this many attempts (a zero-delay policy would never end). @defaultValue 1000 × clients */
  readonly maxAttempts?: number;
  /** Called once per simulated second. */
  readonly onProgress?: (progress: StormProgress) => void;
  /**
   * What the server does with an attempt over its budget: `'refuse'` answers at once (a reset or a
   * 503); `'stall'` never answers (a full SYN backlog), so the attempt lasts until the client's own
   * connect timeout. Attempts while it is down are refused at once in both. @defaultValue 'refuse'
   */
  readonly server?: StormServerModel;
  /**
   * Server-side herd control (`redialer/server`): `'announce'` closes every connection at the outage
   * with a retry hint of outage + U(0, 1.1 × N/C) (`drain()`); `'admission'` answers each attempt over
   * the budget with its own slot (`admission()`). Only clients that read hints (redialer's) use them.
   * @defaultValue 'none'
   */
  readonly serverHints?: StormServerHints;
}

/** What the server does with an attempt over its budget. */
export type StormServerModel = 'refuse' | 'stall';
/** The server-side herd control in a simulation. */
export type StormServerHints = 'none' | 'announce' | 'admission';
/** The server models, for validation and iteration. */
export const STORM_SERVER_MODELS: readonly StormServerModel[] = Object.freeze(['refuse', 'stall']);
/** The server-hint modes, for validation and iteration. */
export const STORM_SERVER_HINTS: readonly StormServerHints[] = Object.freeze(['none', 'announce', 'admission']);

/** Connections are live from before the outage; it begins this long after they were made. */
const WARM_UP = 60_000;
const STEP = 1000;

class ServerDownError extends Error {
  override readonly name = 'ServerDownError';
}

const downError = new ServerDownError('connection refused: the server is down');
const busyError = new ServerDownError('connection refused: over the handshake budget');

/**
 * Runs one storm and returns its figures. Deterministic: the same options give the same result.
 *
 * @example
 * ```ts
 * const result = simulateStorm({ policy: stormPolicy('redialer-grpc'), clients: 1000, outage: 10_000, capacity: 200 });
 * console.log(result.peakAfterReturn, result.wasted, result.reconnectedIn.p99);
 * ```
 */
export function simulateStorm(options: StormOptions): StormResult {
  const raw = checkOptionsObject('simulateStorm options', options);
  const policy = raw['policy'] as StormPolicy | undefined;
  if (typeof policy !== 'object' || typeof policy.forClient !== 'function' || typeof policy.name !== 'string') {
    throw new TypeError('redialer: option "policy" is required: a StormPolicy with name and forClient()');
  }
  const clients = optionalNumber('clients', raw['clients'], 10_000, { integer: true, min: 1, max: 10_000_000 });
  const outage = optionalNumber('outage', raw['outage'], 30_000, { min: 0, max: 86_400_000 });
  const capacity = optionalNumber('capacity', raw['capacity'], 1000, { integer: true, min: 1 });
  const seed = optionalNumber('seed', raw['seed'], 1, { integer: true, min: -(2 ** 31), max: 2 ** 31 - 1 });
  const latency = optionalNumber('latency', raw['latency'], 0, { min: 0, max: 60_000 });
  const horizon = optionalNumber('horizon', raw['horizon'], 600_000, { min: 0, max: 86_400_000 });
  const maxAttempts = optionalNumber('maxAttempts', raw['maxAttempts'], 1000 * clients, { integer: true, min: 1 });
  const onProgress = optionalFunction<(progress: StormProgress) => void>('onProgress', raw['onProgress']);
  const serverModel = optionalChoice('server', raw['server'], STORM_SERVER_MODELS, 'refuse');
  const serverHints = optionalChoice('serverHints', raw['serverHints'], STORM_SERVER_HINTS, 'none');

  // One virtual clock for tests and simulations; a storm fires millions of timers, so no cap.
  const clock = createVirtualClock(0, { maxTimerFirings: Infinity });
  const { scheduler } = clock;
  const random = seededRandom(seed);
  const downAt = WARM_UP;
  const upAt = downAt + outage;
  const server = new StormServer({ downAt, upAt, capacity, admission: serverHints === 'admission' });
  const recorder = new StormRecorder(clients, downAt);
  const guard = { runaway: false };
  /** What ends each live connection at the outage, by client. */
  const live = new Map<number, (error: unknown) => void>();

  /**
   * One attempt by `client`: the server decides when the attempt reaches it; `answer` receives the
   * outcome, or nothing at all when the server stalls it. Returns a function that forgets the attempt.
   */
  const dial = (client: number, answer: (outcome: 'accepted' | Error) => void): (() => void) => {
    if (guard.runaway) return () => undefined; // hang: lets virtual time move on so the run can stop
    let cancelled = false;
    const decide = (): void => {
      if (cancelled) return;
      const now = scheduler.now();
      const decision = server.decide(now);
      recorder.attempt(client, now, decision.admission);
      if (recorder.attempts > maxAttempts) guard.runaway = true;
      if (decision.admission === 'accepted') answer('accepted');
      else if (decision.admission === 'down') answer(downError);
      else if (decision.retryAfter !== undefined) answer(retryAfter(busyError, decision.retryAfter));
      else if (serverModel === 'refuse') answer(busyError);
      // 'stall': no answer; the client's own timeout ends the attempt.
    };
    if (latency === 0) decide();
    else scheduler.schedule(decide, latency);
    return () => {
      cancelled = true;
    };
  };

  const lossError = (): Error => {
    const lost = new Error('connection lost: the server went down');
    if (serverHints !== 'announce') return lost;
    return retryAfter(lost, drainHint({ expectedDowntime: outage, clients, capacity }, random));
  };

  const makeClient = policy.forRun?.(random) ?? ((r: RandomSource) => policy.forClient(r));
  const managers: ConnectionManager<number>[] = [];
  const peers: PeerClient[] = [];
  for (let client = 0; client < clients; client++) {
    const behaviour = makeClient(random);
    if (behaviour.rules !== undefined) {
      const peer = new PeerClient(behaviour.rules, behaviour.backoff, scheduler, random, (answer) =>
        dial(client, answer),
      );
      peers.push(peer);
      live.set(client, () => {
        peer.lost();
      });
      continue;
    }
    const manager = new ConnectionManager<number>({
      connector: managerConnector(client, dial, live),
      backoff: behaviour.backoff,
      scheduler,
      random,
      reconnectSpread: behaviour.reconnectSpread ?? 0,
      serverHints: behaviour.serverHints ?? 'at-least',
    });
    managers.push(manager);
    manager.connect();
  }

  scheduler.schedule(() => {
    const endings = [...live.values()];
    live.clear();
    for (const end of endings) end(lossError());
  }, downAt);

  clock.advanceTo(downAt);
  let time = downAt;
  try {
    while (recorder.reconnected < clients && time < upAt + horizon && !guard.runaway) {
      time = Math.min(time + STEP, upAt + horizon);
      clock.advanceTo(time);
      onProgress?.({ elapsed: time - downAt, reconnected: recorder.reconnected, clients });
    }
  } finally {
    for (const manager of managers) manager.shutdown();
    for (const peer of peers) peer.stop();
  }
  if (guard.runaway) {
    throw new RangeError(
      `redialer: policy "${policy.name}" made more than ${String(maxAttempts)} attempts (option "maxAttempts"); a policy that waits 0 ms between failures never lets the simulation end`,
    );
  }
  return summarizeStorm({
    policy,
    clients,
    outage,
    capacity,
    seed,
    latency,
    server: serverModel,
    serverHints,
    recorder,
    simulated: time - downAt,
  });
}

type Dial = (client: number, answer: (outcome: 'accepted' | Error) => void) => () => void;

/** A redialer client's connector: each subscription is one attempt through `dial`. */
function managerConnector(client: number, dial: Dial, live: Map<number, (error: unknown) => void>): Connector<number> {
  return () =>
    new Observable<number>((subscriber) => {
      const forget = dial(client, (outcome) => {
        if (outcome !== 'accepted') {
          subscriber.error(outcome);
          return;
        }
        live.set(client, (error) => {
          subscriber.error(error);
        });
        subscriber.next(client);
      });
      return () => {
        forget();
        live.delete(client);
      };
    });
}
