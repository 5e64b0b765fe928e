/**
 * `failover(providers, options)`: one call, several providers that can serve it (three mail
 * services, a primary and a standby region). Each provider keeps its own backoff, budget and circuit
 * breaker across calls; each call has one shared deadline, optional hedging, and an error that says
 * what every provider did.
 * @module
 */
import { asyncScheduler, BehaviorSubject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Backoff, BackoffPolicy, RandomSource } from '../../../backoff/backoff.js';
import { type AttemptSpacing, resolveAttemptSpacing } from '../../../backoff/attempt-spacing.js';
import { MAX_DELAY_MS } from '../../../backoff/backoff.js';
import { stepBackoff } from '../../../backoff/backoff-step.js';
import { boundHint, hintedDelay } from '../../../backoff/server-hint.js';
import { exponentialBackoff } from '../../../backoff/exponential-backoff.js';
import {
  checkNumber,
  checkOptionsObject,
  describeValue,
  optionalChoice,
  optionalFunction,
  optionalNumber,
  schedulerOption,
} from '../../../internal/validate.js';
import {
  type BreakerPermit,
  type BreakerSnapshot,
  type CircuitBreaker,
  type CircuitBreakerOptions,
  circuitBreaker,
} from '../breaker/circuit-breaker.js';
import type { RetryBudget } from '../budgets/retry-budget.js';
import { SlidingWindow } from '../budgets/sliding-window.js';
import { type Classifier, classify as defaultClassify } from '../classification/classify.js';
import type { RetryEventSink } from '../core/retry-event.js';
import { serverHint } from '../policy/retry-decision.js';
import type { FailoverRules } from './failover-decision.js';
import { type CallEnv, runCall } from './failover-call.js';
import { isFailoverError } from './failover-error.js';
import { describeError } from '../../../internal/describe-error.js';
import { formatDuration } from '../../../internal/format-duration.js';

/** What each provider call receives. */
export interface FailoverAttemptContext {
  /** Aborted when the attempt is cut: its timeout, the deadline, the caller, or a faster provider (hedging). */
  readonly signal: AbortSignal;
  /** The attempt number within the call, 1-based, across providers. */
  readonly attempt: number;
  /** The provider's name. */
  readonly provider: string;
  /** When the whole call must be done, on the scheduler clock (Infinity for never). */
  readonly deadline: number;
  /**
   * The call's `idempotencyKey`, the same on every attempt: send it to the provider (an
   * `Idempotency-Key` header) so that it can tell a repeat from a new request.
   */
  readonly idempotencyKey: string | undefined;
}

/** One provider. */
export interface FailoverProvider<A, T> {
  /** A unique name, for errors, metrics, `providers$` and sticky keys. */
  readonly name: string;
  /** Serves the call; pass `context.signal` on to fetch or gRPC. */
  readonly call: (args: A, context: FailoverAttemptContext) => T | PromiseLike<T>;
  /**
   * The provider's backoff after a transient failure: it is skipped (by this and later calls) until
   * the wait is over. A server hint (Retry-After, gRPC pushback) is a floor. @defaultValue `exponentialBackoff()`
   */
  readonly backoff?: BackoffPolicy;
  /** A retry budget for this provider: a second attempt on it within one call needs `canRetry()`. */
  readonly budget?: RetryBudget;
  /**
   * The provider's circuit breaker: one you made (it may be shared), options for a new one, or
   * `false` for none. @defaultValue `circuitBreaker({ name })` (Polly's defaults)
   */
  readonly breaker?: CircuitBreaker | CircuitBreakerOptions | false;
  /** The provider's share under `order: 'weighted'`, > 0. @defaultValue 1 */
  readonly weight?: number;
}

/** Options of {@link failover}. Times are in milliseconds. */
export interface FailoverOptions {
  /** The time one call may take, across all providers and waits. @defaultValue Infinity */
  readonly deadline?: number;
  /** How long each attempt may take; a cut attempt is a transient failure of its provider. @defaultValue none */
  readonly attemptTimeout?: number;
  /** Attempts per call, across providers. @defaultValue the number of providers (one pass) */
  readonly maxAttempts?: number;
  /**
   * Hedging: start the next provider when the current one has not answered within this delay; the
   * first answer wins and the others are aborted. `Infinity`: the next starts only after a failure;
   * 0: `maxCopies` providers at once (idempotent calls only). @defaultValue Infinity
   */
  readonly hedgeDelay?: number;
  /** With hedging, the most attempts in flight at once. @defaultValue 2 */
  readonly maxCopies?: number;
  /**
   * Which provider goes first: `priority` (the given order), `round-robin` (each call starts one
   * further), `weighted` (a random order weighted by `weight` × recent success rate). @defaultValue 'priority'
   */
  readonly order?: 'priority' | 'round-robin' | 'weighted';
  /** The window over which `weighted` judges recent health. @defaultValue 60000 */
  readonly healthWindow?: number;
  /**
   * The ceiling on a server's hint for one provider (Retry-After, gRPC pushback; a pushback that asks
   * not to retry at all counts as this long), ms. @defaultValue 60000, as for `retry()`
   */
  readonly maxRetryAfter?: number;
  /**
   * Whether a call may be sent again once it may have reached a provider (its attempt timed out or
   * was cut, or failed after the request went out: `classify`'s `sent: 'maybe'`). `idempotent`: it
   * fails over and hedges as usual. `never` (a payment, an email): such a failure stops the call
   * with a {@link FailoverError} whose reason is `maybe-sent` and whose `maybeSentTo` names the
   * provider, no copy is ever sent beside one in flight (no hedging), and a call with an
   * `idempotencyKey` is from then on sent only to that provider, which can tell the repeat by its
   * key. A failure that proves nothing was sent (connection refused, 429, 503) fails over either way.
   * A call can override it. @defaultValue 'idempotent', as for `retry()`
   */
  readonly idempotency?: 'idempotent' | 'never';
  /** Permanent failures stop the call at once; transient ones move on. @defaultValue `classify` */
  readonly classify?: Classifier;
  /** Receives attempt, success, give-up and permanent events (a {@link RetryMetrics} counts them). */
  readonly metrics?: RetryEventSink;
  /** The clock and the timers; breakers created here use it too. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
  /** The random source for backoff jitter and the weighted order. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /**
   * The floor on the spacing of attempt starts within one call, which no backoff undercuts (as for
   * `retry()`). @defaultValue 5 back to back, then one per 100 ms
   */
  readonly attemptSpacing?: Partial<AttemptSpacing>;
}

/** Options of one call. */
export interface FailoverCallOptions {
  /** Aborts the call: attempts in flight are aborted and the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Keeps the calls of one operation on one provider (say, every request that uses one nonce): the
   * provider that last served this key goes first while it can be tried. @defaultValue none
   */
  readonly stickyKey?: string;
  /** This call's idempotency, over the `failover()` option. @defaultValue the option's */
  readonly idempotency?: 'idempotent' | 'never';
  /**
   * The operation's identity (an email's id, an order number), given to every attempt as
   * `context.idempotencyKey`. With `idempotency: 'never'`, a call with a key that may have reached
   * a provider is from then on sent only there (see {@link FailoverOptions.idempotency}).
   * @defaultValue none
   */
  readonly idempotencyKey?: string;
}

/** A provider's state, for UIs and logs. */
export interface ProviderSnapshot {
  readonly name: string;
  /** Its breaker's state (`closed` without a breaker). */
  readonly breaker: BreakerSnapshot['state'];
  /** When its backoff or a server hint lets it be tried again (-Infinity: now). */
  readonly nextEligibleAt: number;
  /** Transient failures since its last success. */
  readonly failures: number;
  /** Attempts in flight now. */
  readonly inFlight: number;
}

/** The function {@link failover} returns. */
export interface FailoverFunction<A, T> {
  (args: A, options?: FailoverCallOptions): Promise<T>;
  /** Each provider's state; replays the latest; emits on every change. */
  readonly providers$: Observable<readonly ProviderSnapshot[]>;
  /** Disposes the breakers it created and completes `providers$`. */
  dispose(): void;
}

interface ProviderState<A, T> {
  readonly spec: FailoverProvider<A, T>;
  readonly index: number;
  readonly breaker: CircuitBreaker | undefined;
  readonly ownBreaker: boolean;
  readonly policy: BackoffPolicy;
  readonly weight: number;
  readonly health: SlidingWindow<'success' | 'failure'>;
  backoff: Backoff | undefined;
  nextEligibleAt: number;
  failures: number;
  inFlight: number;
}

const STICKY_LIMIT = 10_000;
const IDEMPOTENCY = ['idempotent', 'never'] as const;

/** Remembers `key` → `value` in `map`, newest last, forgetting the oldest past {@link STICKY_LIMIT}. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  const oldest = map.keys().next();
  if (map.size > STICKY_LIMIT && oldest.done !== true) map.delete(oldest.value);
}

function isBreaker(value: unknown): value is CircuitBreaker {
  return (
    typeof value === 'object' && value !== null && typeof (value as { tryAcquire?: unknown }).tryAcquire === 'function'
  );
}

function hintDelay(error: unknown, now: number): number {
  const hint = serverHint(error, now);
  if (hint === undefined) return 0;
  if (hint.kind === 'retry-after') return hint.delay;
  return hint.pushback.kind === 'wait' ? hint.pushback.delay : MAX_DELAY_MS;
}

/**
 * Makes one function out of several providers of the same service.
 *
 * A call walks the providers in `order`, skipping one whose breaker is open, whose own backoff (or a
 * server's Retry-After / pushback) says "not yet", or whose budget refuses a second attempt. A
 * transient failure moves on to the next provider at once; a permanent one (per `classify`) rejects
 * at once with that error. When no provider can be tried now, the call waits for the soonest one,
 * unless that is past the `deadline`. With `hedgeDelay`, a slow provider gets company: the next one
 * starts beside it, the first answer wins and the others are aborted through their signals (never
 * more than `maxCopies` at once). When all fail, a {@link FailoverError} says what each one did.
 *
 * @example
 * ```ts
 * import { failover, HttpResponseError } from 'redialer/retry';
 *
 * const post = (url: string) => async (body: string, { signal }: { signal: AbortSignal }) => {
 *   const res = await fetch(url, { method: 'POST', body, signal });
 *   if (!res.ok) throw new HttpResponseError(res, { method: 'POST' });
 *   return res.status;
 * };
 * const send = failover(
 *   [
 *     { name: 'primary', call: post('https://mail-a.example/send') },
 *     { name: 'standby', call: post('https://mail-b.example/send') },
 *   ],
 *   { deadline: 30_000, attemptTimeout: 10_000 },
 * );
 * await send('hello');
 * ```
 */
export function failover<A, T>(
  providers: readonly FailoverProvider<A, T>[],
  options: FailoverOptions = {},
): FailoverFunction<A, T> {
  const list: unknown = providers;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(`redialer: failover() needs a non-empty array of providers, got ${describeValue(providers)}`);
  }
  const raw = checkOptionsObject('failover options', options);
  const deadlineMs = optionalNumber('deadline', raw['deadline'], Infinity, { min: 0, allowInfinity: true });
  const attemptTimeout =
    raw['attemptTimeout'] === undefined
      ? undefined
      : checkNumber('attemptTimeout', raw['attemptTimeout'], { min: Number.MIN_VALUE, max: MAX_DELAY_MS });
  const maxAttempts = optionalNumber('maxAttempts', raw['maxAttempts'], providers.length, {
    min: 1,
    integer: true,
    allowInfinity: true,
  });
  const hedgeDelay = optionalNumber('hedgeDelay', raw['hedgeDelay'], Infinity, { min: 0, allowInfinity: true });
  const maxCopies =
    hedgeDelay === Infinity ? 1 : optionalNumber('maxCopies', raw['maxCopies'], 2, { min: 1, max: 10, integer: true });
  const order = optionalChoice('order', raw['order'], ['priority', 'round-robin', 'weighted'] as const, 'priority');
  const idempotency = optionalChoice('idempotency', raw['idempotency'], IDEMPOTENCY, 'idempotent');
  const healthWindow = optionalNumber('healthWindow', raw['healthWindow'], 60_000, { min: 1 });
  const maxRetryAfter = optionalNumber('maxRetryAfter', raw['maxRetryAfter'], 60_000, { min: 0, max: MAX_DELAY_MS });
  const classify = optionalFunction<Classifier>('classify', raw['classify'], defaultClassify);
  const metrics = raw['metrics'] as RetryEventSink | undefined;
  if (metrics !== undefined && typeof (metrics as { record?: unknown }).record !== 'function') {
    throw new TypeError(`redialer: option "metrics" must have a record() method, got ${describeValue(metrics)}`);
  }
  const scheduler = schedulerOption(raw['scheduler'], asyncScheduler);
  const random = optionalFunction<RandomSource>('random', raw['random'], Math.random);
  const spacing = resolveAttemptSpacing('attemptSpacing', raw['attemptSpacing']);
  const now = (): number => scheduler.now();

  const names = new Set<string>();
  const states: ProviderState<A, T>[] = providers.map((spec, index) => {
    const p = checkOptionsObject(`provider ${String(index)}`, spec);
    const name = p['name'];
    if (typeof name !== 'string' || name === '')
      throw new TypeError(
        `redialer: provider ${String(index)} needs a non-empty string "name", got ${describeValue(name)}`,
      );
    if (names.has(name)) throw new TypeError(`redialer: provider name ${JSON.stringify(name)} is used twice`);
    names.add(name);
    if (typeof p['call'] !== 'function')
      throw new TypeError(
        `redialer: provider ${JSON.stringify(name)} needs a "call" function, got ${describeValue(p['call'])}`,
      );
    const policy = (p['backoff'] ?? exponentialBackoff()) as BackoffPolicy;
    if (typeof (policy as { first?: unknown }).first !== 'function') {
      throw new TypeError(
        `redialer: provider ${JSON.stringify(name)}: option "backoff" must be a backoff policy, got ${describeValue(policy)}`,
      );
    }
    const budget = p['budget'] as RetryBudget | undefined;
    if (budget !== undefined && typeof (budget as { canRetry?: unknown }).canRetry !== 'function') {
      throw new TypeError(
        `redialer: provider ${JSON.stringify(name)}: option "budget" must be a retry budget, got ${describeValue(budget)}`,
      );
    }
    const breakerOption = p['breaker'];
    let breaker: CircuitBreaker | undefined;
    let ownBreaker = false;
    if (isBreaker(breakerOption)) breaker = breakerOption;
    else if (breakerOption !== false) {
      breaker = circuitBreaker({ name, scheduler, random, ...(breakerOption as CircuitBreakerOptions | undefined) });
      ownBreaker = true;
    }
    const weight = optionalNumber(`${name}.weight`, p['weight'], 1, { min: Number.MIN_VALUE });
    return {
      spec,
      index,
      breaker,
      ownBreaker,
      policy,
      weight,
      health: new SlidingWindow(healthWindow, now),
      backoff: undefined,
      nextEligibleAt: -Infinity,
      failures: 0,
      inFlight: 0,
    };
  });

  const snapshots = (): readonly ProviderSnapshot[] =>
    states.map((s) => ({
      name: s.spec.name,
      breaker: s.breaker?.snapshot.state ?? 'closed',
      nextEligibleAt: s.nextEligibleAt,
      failures: s.failures,
      inFlight: s.inFlight,
    }));
  const subject = new BehaviorSubject<readonly ProviderSnapshot[]>(snapshots());
  const publish = (): void => {
    if (!subject.closed) subject.next(snapshots());
  };
  const breakerWatch: Subscription[] = states.flatMap((s) =>
    s.breaker === undefined
      ? []
      : [
          s.breaker.state$.subscribe(() => {
            publish();
          }),
        ],
  );
  const sticky = new Map<string, ProviderState<A, T>>();
  /** Non-idempotent operations that may have reached a provider, by idempotency key: only it may be sent them. */
  const pinned = new Map<string, ProviderState<A, T>>();
  let calls = 0;
  const rules: FailoverRules = {
    names: states.map((s) => s.spec.name),
    maxAttempts,
    maxCopies,
    hedgeDelay,
    deadlineMs,
    spacing,
  };

  /** The order for one call. */
  const orderFor = (stickyKey: string | undefined, pin: ProviderState<A, T> | undefined): ProviderState<A, T>[] => {
    if (pin !== undefined) return [pin];
    let list: ProviderState<A, T>[];
    if (order === 'round-robin') {
      const start = calls % states.length;
      list = [...states.slice(start), ...states.slice(0, start)];
    } else if (order === 'weighted') {
      const pool = states.map((s) => {
        const ok = s.health.count('success');
        const bad = s.health.count('failure');
        return { s, w: s.weight * ((ok + 1) / (ok + bad + 2)) };
      });
      list = [];
      while (pool.length > 0) {
        const total = pool.reduce((sum, x) => sum + x.w, 0);
        let pick = random() * total;
        let index = pool.findIndex((x) => (pick -= x.w) < 0);
        if (index < 0) index = pool.length - 1;
        const [chosen] = pool.splice(index, 1);
        if (chosen !== undefined) list.push(chosen.s);
      }
    } else {
      list = [...states];
    }
    calls += 1;
    const preferred = stickyKey === undefined ? undefined : sticky.get(stickyKey);
    if (preferred !== undefined) list = [preferred, ...list.filter((s) => s !== preferred)];
    return list;
  };

  const call = (args: A, callOptions: FailoverCallOptions = {}): Promise<T> => {
    const callRaw = checkOptionsObject('failover call options', callOptions);
    const signal = callRaw['signal'] as AbortSignal | undefined;
    const stickyKey = callRaw['stickyKey'];
    if (stickyKey !== undefined && typeof stickyKey !== 'string') {
      throw new TypeError(`redialer: option "stickyKey" must be a string, got ${describeValue(stickyKey)}`);
    }
    const idempotencyKey = callRaw['idempotencyKey'];
    if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey === '')) {
      throw new TypeError(
        `redialer: option "idempotencyKey" must be a non-empty string, got ${describeValue(idempotencyKey)}`,
      );
    }
    const repeatable = optionalChoice('idempotency', callRaw['idempotency'], IDEMPOTENCY, idempotency) === 'idempotent';
    if (signal?.aborted === true) {
      const reason: unknown = signal.reason;
      return new Promise<T>((_resolve, reject) => {
        reject(reason);
      });
    }
    const pin = repeatable || idempotencyKey === undefined ? undefined : pinned.get(idempotencyKey);
    const sequence = orderFor(stickyKey, pin).map((s) => s.index);
    const reward = (provider: ProviderState<A, T>, permit: BreakerPermit | undefined): void => {
      rewardProvider(provider, permit, stickyKey);
      if (idempotencyKey !== undefined) pinned.delete(idempotencyKey);
    };
    const result = runCall<A, T, ProviderState<A, T>>({ ...env, reward }, args, sequence, now() + deadlineMs, signal, {
      repeatable,
      idempotencyKey,
    });
    if (repeatable || idempotencyKey === undefined) return result;
    return result.catch((error: unknown) => {
      const at = isFailoverError(error) ? states.find((s) => s.spec.name === error.maybeSentTo) : undefined;
      if (at !== undefined) remember(pinned, idempotencyKey, at);
      throw error;
    });
  };

  /** A success resets the provider: its backoff, failures and (with a sticky key) the key's home. */
  const rewardProvider = (
    state: ProviderState<A, T>,
    permit: BreakerPermit | undefined,
    stickyKey: string | undefined,
  ): void => {
    permit?.success();
    state.spec.budget?.onSuccess();
    state.health.add('success');
    state.backoff = undefined;
    state.nextEligibleAt = -Infinity;
    state.failures = 0;
    if (stickyKey !== undefined) remember(sticky, stickyKey, state);
  };

  /**
   * Charges a transient failure to its provider: its breaker, budget and health, and its next
   * backoff (measured from the attempt's start, a server hint as a floor). Returns the note for the
   * call, or the error of a backoff policy that broke.
   */
  const penalize = (
    state: ProviderState<A, T>,
    permit: BreakerPermit | undefined,
    error: unknown,
    reason: string,
    begun: number,
  ): { detail: string; policyError?: Error } => {
    const t = now();
    permit?.failure(error);
    state.spec.budget?.onTransientFailure();
    state.health.add('failure');
    state.failures += 1;
    const step = stepBackoff(state.policy, state.backoff, random);
    if (!step.ok) return { detail: `${describeError(error)}; ${step.error.message}`, policyError: step.error };
    state.backoff = step.backoff;
    // The wait is measured from the attempt's start: a slow failure eats into it.
    const backoffAt = Math.max(t, begun + step.delay);
    const asked = hintDelay(error, t);
    const hint = asked > 0 ? boundHint(asked, maxRetryAfter) : undefined;
    state.nextEligibleAt =
      hint === undefined
        ? backoffAt
        : Math.max(backoffAt, t + hintedDelay(hint.delay, backoffAt - t, maxRetryAfter, random));
    const hintNote =
      hint === undefined
        ? ''
        : `, the server asked for ${formatDuration(hint.asked)}${hint.cut ? ` (cut to maxRetryAfter, ${formatDuration(hint.delay)})` : ''}`;
    return {
      detail: `${describeError(error)} after ${formatDuration(t - begun)}; ${reason}${hintNote}; next no sooner than ${formatDuration(state.nextEligibleAt - t)} from now`,
    };
  };

  const env: Omit<CallEnv<A, T, ProviderState<A, T>>, 'reward'> = {
    providers: states,
    rules,
    scheduler,
    attemptTimeout,
    classify,
    metrics,
    publish,
    penalize,
  };

  const dispose = (): void => {
    for (const sub of breakerWatch) sub.unsubscribe();
    for (const s of states) if (s.ownBreaker) s.breaker?.dispose();
    subject.complete();
  };

  return Object.assign(call, { providers$: subject.asObservable(), dispose });
}
