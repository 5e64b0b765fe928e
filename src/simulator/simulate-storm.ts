/**
 * The reconnect-storm simulation: N clients, each a real {@link ConnectionManager}, on one virtual
 * clock, against a server that goes down and comes back with a handshake budget.
 * @module
 */
import { Observable, type Subscriber } from 'rxjs';
import { ConnectionManager } from '../connection-manager.js';
import type { Connector } from '../connector.js';

import { checkOptionsObject, optionalFunction, optionalNumber } from '../validate.js';
import { seededRandom } from './seeded-random.js';
import { createVirtualClock } from '../testing/virtual-clock.js';
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
}

/** Connections are live from before the outage; it begins this long after they were made. */
const WARM_UP = 60_000;
const STEP = 1000;

class ServerDownError extends Error {
  override readonly name = 'ServerDownError';
}

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

  // One virtual clock for tests and simulations; a storm fires millions of timers, so no cap.
  const clock = createVirtualClock(0, { maxTimerFirings: Infinity });
  const { scheduler } = clock;
  const random = seededRandom(seed);
  const downAt = WARM_UP;
  const upAt = downAt + outage;
  const server = new StormServer({ downAt, upAt, capacity });
  const recorder = new StormRecorder(clients, downAt);
  const live = new Set<Subscriber<number>>();
  const downError = new ServerDownError('connection refused: the server is down');
  const busyError = new ServerDownError('connection refused: over the handshake budget');
  const guard = { runaway: false };

  const connectorFor = (client: number): Connector<number> => () =>
    new Observable<number>((subscriber) => {
      if (guard.runaway) return undefined; // hang: lets virtual time move on so the run can stop
      const decide = (): void => {
        const now = scheduler.now();
        const outcome = server.admit(now);
        recorder.attempt(client, now, outcome);
        if (recorder.attempts > maxAttempts) guard.runaway = true;
        if (outcome === 'accepted') {
          live.add(subscriber);
          subscriber.next(client);
        } else {
          subscriber.error(outcome === 'down' ? downError : busyError);
        }
      };
      if (latency === 0) {
        decide();
        return () => live.delete(subscriber);
      }
      const answer = scheduler.schedule(decide, latency);
      return () => {
        answer.unsubscribe();
        live.delete(subscriber);
      };
    });

  const managers: ConnectionManager<number>[] = [];
  for (let client = 0; client < clients; client++) {
    const behaviour = policy.forClient(random);
    const firstAttemptDelay = behaviour.firstAttemptDelay ?? 0;
    const manager = new ConnectionManager<number>({
      connector: connectorFor(client),
      backoff: behaviour.backoff,
      scheduler,
      random,
      // A peer that waits before its first attempt reconnects from IDLE on its own schedule.
      autoReconnect: firstAttemptDelay === 0,
    });
    if (firstAttemptDelay > 0) {
      manager.state$.subscribe((snapshot) => {
        if (snapshot.state === 'IDLE' && snapshot.lastError !== undefined) {
          scheduler.schedule(() => { manager.connect(); }, firstAttemptDelay);
        }
      });
    }
    managers.push(manager);
    manager.connect();
  }

  scheduler.schedule(() => {
    const lost = new Error('connection lost: the server went down');
    for (const subscriber of [...live]) subscriber.error(lost);
    live.clear();
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
  }
  if (guard.runaway) {
    throw new RangeError(
      `redialer: policy "${policy.name}" made more than ${String(maxAttempts)} attempts (option "maxAttempts"); a policy that waits 0 ms between failures never lets the simulation end`,
    );
  }
  return summarizeStorm({ policy, clients, outage, capacity, seed, latency, recorder, simulated: time - downAt });
}
