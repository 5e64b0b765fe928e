/**
 * `happyEyeballs(connectors)`: one connector over several addresses of the same service, raced the
 * way gRFC A61's pick_first and RFC 8305 race them — staggered starts, first established wins, and a
 * backoff per address.
 * @module
 */
import { asyncScheduler, BehaviorSubject, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Backoff, BackoffPolicy, RandomSource } from '../backoff/backoff.js';
import { MAX_DELAY_MS } from '../backoff/backoff.js';
import { stepBackoff } from '../backoff/backoff-step.js';
import { grpcBackoff } from '../backoff/grpc-backoff.js';
import { boundHint, defaultHintCeiling, hintedDelay } from '../backoff/server-hint.js';
import type { AttemptContext, Connector } from '../core/connector.js';
import { toConnectorObservable } from '../core/connector-observable.js';
import { ConnectTimeoutError } from '../errors/connect-timeout-error.js';
import { isPermanentError, permanent } from '../errors/permanent-error.js';
import { retryAfterDelayOf } from '../errors/retry-after-error.js';
import { ShutdownError } from '../errors/shutdown-error.js';
import { scheduleTimerAt } from '../internal/schedule-timer.js';
import {
  checkOptionsObject,
  describeValue,
  optionalFunction,
  optionalNumber,
  optionalScheduler,
} from '../internal/validate.js';
import { AllAddressesFailedError } from './all-addresses-failed-error.js';

/** RFC 8305 §5 and gRFC A61: the Connection Attempt Delay, its default and its bounds. */
export const ATTEMPT_DELAY = Object.freeze({ default: 250, min: 100, max: 2000 });

/** One address: a connector, optionally with a label for errors and UIs. */
export type AddressEntry<C> = Connector<C> | { readonly label: string; readonly connector: Connector<C> };

/** Options of {@link happyEyeballs}. */
export interface HappyEyeballsOptions {
  /**
   * How long (ms) an attempt has before the next address starts alongside it; clamped to
   * [100, 2000] as gRFC A61 and RFC 8305 require. @defaultValue 250
   */
  readonly attemptDelay?: number | undefined;
  /** The backoff each address follows after it fails. @defaultValue `grpcBackoff()` */
  readonly backoff?: BackoffPolicy | undefined;
  /** The scheduler for the stagger timer and the clock; pass the manager's. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike | undefined;
  /** The random source for the backoff's jitter. @defaultValue `Math.random` */
  readonly random?: RandomSource | undefined;
  /**
   * The ceiling on a server's retry hint for one address (a `RetryAfterError`), ms; pass the
   * manager's if you set one there. @defaultValue the greater of the policy's longest wait and 120 000
   */
  readonly maxRetryAfter?: number | undefined;
}

/** What one address is doing, for UIs. */
export interface AddressSnapshot {
  readonly label: string;
  /**
   * `idle`: may be tried; `connecting`: an attempt in flight; `ready`: it won the race;
   * `backing-off`: failed, due again at `nextAttemptAt`; `failed`: failed permanently.
   */
  readonly state: 'idle' | 'connecting' | 'ready' | 'backing-off' | 'failed';
  /** Failures since its backoff was last reset. */
  readonly failures: number;
  /** When it may be tried again, on the scheduler clock (-Infinity: now; Infinity: never). */
  readonly nextAttemptAt: number;
  /** What ended its last attempt. */
  readonly lastError: unknown;
}

/** The connector {@link happyEyeballs} returns: a plain {@link Connector} plus its addresses' states. */
export interface HappyEyeballsConnector<C> extends Connector<C> {
  /** Each address's state, in the configured order; replays the latest; emits on every change. */
  readonly addresses$: Observable<readonly AddressSnapshot[]>;
  /** The stagger in use, after clamping. */
  readonly attemptDelay: number;
}

interface Address<C> {
  readonly label: string;
  readonly connector: Connector<C>;
  snapshot: AddressSnapshot;
  backoff: Backoff | undefined;
}

function toAddress<C>(entry: unknown, index: number): Address<C> {
  let label = `#${String(index + 1)}`;
  let connector: unknown = entry;
  if (typeof entry === 'object' && entry !== null) {
    const record = entry as { label?: unknown; connector?: unknown };
    if (typeof record.label !== 'string') {
      throw new TypeError(
        `redialer: happyEyeballs() address ${String(index)} needs a string "label", got ${describeValue(record.label)}`,
      );
    }
    label = record.label;
    connector = record.connector;
  }
  if (typeof connector !== 'function') {
    throw new TypeError(
      `redialer: happyEyeballs() address ${String(index)} must be a connector function, got ${describeValue(connector)}`,
    );
  }
  return {
    label,
    connector: connector as Connector<C>,
    snapshot: { label, state: 'idle', failures: 0, nextAttemptAt: -Infinity, lastError: undefined },
    backoff: undefined,
  };
}

/**
 * Races several addresses of one service and yields the first connection established, for a
 * `ConnectionManager` (gRFC A61 "Happy Eyeballs" in pick_first, RFC 8305):
 *
 * - the first address starts at once; the next one after `attemptDelay` (250 ms), or at once when an
 *   attempt fails; attempts in flight are never interrupted, so several may run together;
 * - the first attempt to establish wins and every other attempt is closed (unsubscribed, its signal
 *   aborted);
 * - each address that fails follows its **own** backoff; a pass in which every address failed (or is
 *   still backing off) fails with an {@link AllAddressesFailedError}, which puts the manager in
 *   TRANSIENT_FAILURE until the soonest address is due — the manager's own backoff stands aside;
 * - an address that fails with a `PermanentError` is not tried again; when none is left, the manager
 *   stops with a permanent failure;
 * - the manager's first attempt after a backoff reset (`attempt` 1: `resetBackoff()`, a connection
 *   that lasted) starts a fresh pass over every address.
 *
 * Each address receives its own {@link AttemptContext}: its failures as `attempt`, a signal aborted
 * when it loses the race or the pass ends, and the manager's `timeoutAt` (the manager cuts the pass).
 *
 * @example
 * ```ts
 * const connector = happyEyeballs([openWebSocket('wss://a.example'), openWebSocket('wss://b.example')]);
 * const manager = new ConnectionManager({ connector });
 * connector.addresses$.subscribe((list) => console.table(list));
 * ```
 */
export function happyEyeballs<C>(
  connectors: readonly AddressEntry<C>[],
  options: HappyEyeballsOptions = {},
): HappyEyeballsConnector<C> {
  if (!Array.isArray(connectors) || connectors.length === 0) {
    throw new TypeError(
      `redialer: happyEyeballs() needs a non-empty array of connectors, got ${describeValue(connectors)}`,
    );
  }
  const raw = checkOptionsObject('happyEyeballs options', options);
  const requested = optionalNumber('attemptDelay', raw['attemptDelay'], ATTEMPT_DELAY.default, {
    min: 0,
    allowInfinity: true,
  });
  const attemptDelay = Math.min(ATTEMPT_DELAY.max, Math.max(ATTEMPT_DELAY.min, requested));
  const policy = (raw['backoff'] ?? grpcBackoff()) as BackoffPolicy;
  if (typeof (policy as { first?: unknown }).first !== 'function') {
    throw new TypeError(
      `redialer: option "backoff" must be a backoff policy (an object with first()), got ${describeValue(policy)}`,
    );
  }
  const scheduler = optionalScheduler('scheduler', raw['scheduler'], asyncScheduler);
  const random = optionalFunction<RandomSource>('random', raw['random'], Math.random);
  const maxRetryAfter = optionalNumber('maxRetryAfter', raw['maxRetryAfter'], defaultHintCeiling(policy), {
    min: 0,
    max: MAX_DELAY_MS,
  });
  const addresses = connectors.map((entry, index) => toAddress<C>(entry, index));
  const subject = new BehaviorSubject<readonly AddressSnapshot[]>(addresses.map((a) => a.snapshot));

  const update = (address: Address<C>, patch: Partial<AddressSnapshot>): void => {
    address.snapshot = { ...address.snapshot, ...patch };
    subject.next(addresses.map((a) => a.snapshot));
  };

  /**
   * Records a failed attempt that started at `startedAt`: the address's backoff moves one step, its
   * wait measured from that start, and a server's hint (cut to `maxRetryAfter`) can only lengthen it.
   * Returns the policy's error if the backoff policy failed (threw or gave no finite number).
   */
  const failed = (address: Address<C>, error: unknown, startedAt: number): unknown => {
    const now = scheduler.now();
    if (isPermanentError(error)) {
      update(address, {
        state: 'failed',
        failures: address.snapshot.failures + 1,
        nextAttemptAt: Infinity,
        lastError: error,
      });
      return undefined;
    }
    const step = stepBackoff(policy, address.backoff, random);
    if (!step.ok) return step.error;
    address.backoff = step.backoff;
    const backoffAt = Math.max(now, startedAt + step.delay);
    const hint = boundHint(retryAfterDelayOf(error), maxRetryAfter);
    const nextAttemptAt =
      hint === undefined || hint.delay === 0
        ? backoffAt
        : Math.max(backoffAt, now + hintedDelay(hint.delay, backoffAt - now, maxRetryAfter, random));
    update(address, { state: 'backing-off', failures: address.snapshot.failures + 1, nextAttemptAt, lastError: error });
    return undefined;
  };

  const reset = (address: Address<C>): void => {
    address.backoff = undefined;
    if (address.snapshot.state !== 'failed') {
      update(address, { state: 'idle', failures: 0, nextAttemptAt: -Infinity });
    }
  };

  const connector = (context: AttemptContext): Observable<C> =>
    new Observable<C>((subscriber) => {
      if (context.attempt === 1) addresses.forEach(reset);
      const pending = addresses.filter((a) => a.snapshot.state !== 'failed');
      const inFlight = new Map<
        Address<C>,
        { subscription: Subscription | undefined; controller: AbortController; startedAt: number }
      >();
      const triedThisPass = new Set<Address<C>>();
      let winner: Address<C> | undefined;
      let timer: Subscription | undefined;
      // When the stagger lets the next address start: one attemptDelay after the last start, or at once after a failure.
      let nextStartAt = -Infinity;
      let done = false;

      const drop = (address: Address<C>, reason: Error): void => {
        const flight = inFlight.get(address);
        if (flight === undefined) return;
        inFlight.delete(address);
        flight.subscription?.unsubscribe();
        flight.controller.abort(reason);
      };

      const finish = (error: unknown): void => {
        if (done) return;
        done = true;
        timer?.unsubscribe();
        subscriber.error(error);
      };

      const failPass = (): void => {
        const live = addresses.filter((a) => a.snapshot.state !== 'failed');
        if (live.length === 0) {
          const errors = addresses.map((a) => a.snapshot.lastError);
          finish(
            permanent(
              new AggregateError(
                errors,
                `redialer: every address failed permanently (${addresses.map((a) => a.label).join(', ')})`,
              ),
            ),
          );
          return;
        }
        const soonest = Math.min(...live.map((a) => a.snapshot.nextAttemptAt));
        const delay = Math.max(0, soonest - scheduler.now());
        const failures = addresses.map((a) => ({
          label: a.label,
          error: triedThisPass.has(a) ? a.snapshot.lastError : undefined,
          nextAttemptAt: a.snapshot.nextAttemptAt,
        }));
        finish(new AllAddressesFailedError(failures, delay));
      };

      const start = (address: Address<C>): void => {
        const now = scheduler.now();
        pending.splice(pending.indexOf(address), 1);
        triedThisPass.add(address);
        nextStartAt = now + attemptDelay;
        const controller = new AbortController();
        const flight = { subscription: undefined as Subscription | undefined, controller, startedAt: now };
        // What this address's connector reported with reportServing() before it won: passed on when it wins.
        let notServing: { readonly reason: unknown } | undefined;
        inFlight.set(address, flight);
        update(address, { state: 'connecting' });
        let source: Observable<C>;
        try {
          const result: unknown = address.connector({
            attempt: address.snapshot.failures + 1,
            signal: controller.signal,
            timeoutAt: context.timeoutAt,
            reportServing: (serving, reason) => {
              if (winner === address) context.reportServing(serving, reason);
              else if (winner === undefined && !done) notServing = serving ? undefined : { reason };
            },
          });
          source = toConnectorObservable<C>(result, `connector ${address.label}`);
        } catch (error) {
          onError(address, error);
          return;
        }
        const subscription = source.subscribe({
          next: (connection) => {
            if (winner === address) return;
            if (winner !== undefined || done) return;
            winner = address;
            timer?.unsubscribe();
            for (const other of [...inFlight.keys()]) {
              if (other !== address) {
                drop(other, new ShutdownError(`another address (${address.label}) connected first`));
                update(other, { state: 'idle', nextAttemptAt: -Infinity });
                other.backoff = undefined;
              }
            }
            address.backoff = undefined;
            update(address, { state: 'ready', failures: 0, nextAttemptAt: -Infinity, lastError: undefined });
            if (notServing !== undefined) context.reportServing(false, notServing.reason);
            subscriber.next(connection);
          },
          error: (error: unknown) => {
            onError(address, error);
          },
          complete: () => {
            if (winner === address) {
              inFlight.delete(address);
              update(address, { state: 'idle' });
              done = true;
              subscriber.complete();
              return;
            }
            onError(address, new Error(`address ${address.label} closed before it was established`));
          },
        });
        if (inFlight.get(address) === flight) flight.subscription = subscription;
        else subscription.unsubscribe();
      };

      function onError(address: Address<C>, error: unknown): void {
        const flight = inFlight.get(address);
        if (flight === undefined || done) return;
        inFlight.delete(address);
        if (winner === address) {
          // The established connection ended: the manager's own rules (flap guard, backoff) apply.
          update(address, { state: 'idle', lastError: error });
          done = true;
          subscriber.error(error);
          return;
        }
        const policyError = failed(address, error, flight.startedAt);
        if (policyError !== undefined) {
          finish(policyError); // a BackoffPolicyError: the manager shuts down with reason policy-error
          return;
        }
        step(true);
      }

      /**
       * Starts the next due address if the stagger allows (`afterFailure`: at once, as RFC 8305 says),
       * and arms the timer for the one after.
       */
      function step(afterFailure: boolean): void {
        if (done || winner !== undefined) return;
        timer?.unsubscribe();
        timer = undefined;
        const now = scheduler.now();
        if (afterFailure) nextStartAt = now;
        const staggerAt = inFlight.size === 0 ? now : nextStartAt;
        const due = pending.find((a) => a.snapshot.nextAttemptAt <= now);
        if (due !== undefined && staggerAt <= now) {
          start(due);
          // The attempt may have failed or won already (synchronously); arm() checks.
          arm();
          return;
        }
        if (inFlight.size === 0 && due === undefined) {
          failPass();
          return;
        }
        arm();
      }

      function arm(): void {
        if (pending.length === 0 || done || winner !== undefined) return;
        const soonest = Math.min(...pending.map((a) => a.snapshot.nextAttemptAt));
        const at = Math.max(inFlight.size === 0 ? scheduler.now() : nextStartAt, soonest);
        timer?.unsubscribe();
        timer = scheduleTimerAt(scheduler, at, () => {
          timer = undefined;
          step(false);
        });
      }

      step(false);

      return () => {
        timer?.unsubscribe();
        const now = scheduler.now();
        const cut = !done && winner === undefined && now >= context.timeoutAt;
        done = true;
        for (const [address, flight] of [...inFlight]) {
          const reason = cut
            ? new ConnectTimeoutError(address.snapshot.failures + 1, now - flight.startedAt)
            : new ShutdownError();
          drop(address, reason);
          if (cut) void failed(address, reason, flight.startedAt);
          else
            update(address, {
              state: winner === address ? 'idle' : address.snapshot.nextAttemptAt > now ? 'backing-off' : 'idle',
            });
        }
      };
    });

  return Object.assign(connector, { addresses$: subject.asObservable(), attemptDelay });
}
