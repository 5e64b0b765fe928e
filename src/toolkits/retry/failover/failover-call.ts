/**
 * The runner of one `failover()` call: it feeds events to the pure {@link decide} and carries out
 * the effects it returns. It owns what a decision cannot: the timers (deadline, hedge, waits, each
 * attempt's timeout) on the injected scheduler, the abort listener and each attempt's signal, the
 * breaker permits, the provider calls and their promises, and the call's own promise.
 * @module
 */
import { type SchedulerLike, skip, Subscription } from 'rxjs';
import { scheduleTimer, scheduleTimerAt } from '../../../internal/schedule-timer.js';
import type { BreakerPermit, CircuitBreaker } from '../breaker/circuit-breaker.js';
import type { Classifier } from '../classification/classify.js';
import { emit, type RetryEventSink } from '../core/retry-event.js';
import { AttemptTimeoutError } from '../timeouts/attempt-timeout-error.js';
import {
  type AttemptFailureKind,
  type CallEffect,
  type CallEvent,
  type FailoverRules,
  type ProviderView,
  decide,
  initialCallState,
} from './failover-decision.js';
import type { FailoverProvider } from './failover.js';

/** What the runner reads and counts of a provider; its cross-call memory stays with `failover()`. */
export interface CallProvider<A, T> {
  readonly spec: FailoverProvider<A, T>;
  /** Its index in the configured order. */
  readonly index: number;
  readonly breaker: CircuitBreaker | undefined;
  /** When its backoff or a server hint lets it be tried again. */
  readonly nextEligibleAt: number;
  /** Attempts in flight, across calls. */
  inFlight: number;
}

/** What the call needs from `failover()`. */
export interface CallEnv<A, T, P extends CallProvider<A, T>> {
  /** The providers, in the configured order. */
  readonly providers: readonly P[];
  readonly rules: FailoverRules;
  readonly scheduler: SchedulerLike;
  readonly attemptTimeout: number | undefined;
  readonly classify: Classifier;
  readonly metrics: RetryEventSink | undefined;
  /** Publishes the providers' snapshots. */
  readonly publish: () => void;
  /** Resets a provider after it served the call. */
  readonly reward: (provider: P, permit: BreakerPermit | undefined) => void;
  /**
   * Charges a transient failure to its provider; returns the note for the call, or the error of a
   * backoff policy that broke.
   */
  readonly penalize: (
    provider: P,
    permit: BreakerPermit | undefined,
    error: unknown,
    reason: string,
    begun: number,
  ) => { readonly detail: string; readonly policyError?: Error };
}

/** What one attempt holds outside the call's decision: its provider, signal, breaker permit and timer. */
interface Flight<P> {
  readonly provider: P;
  readonly begun: number;
  readonly controller: AbortController;
  readonly permit: BreakerPermit | undefined;
  timer: Subscription | undefined;
}

/**
 * Runs one call: `sequence` is its order of provider indices, `deadline` when it must be done on
 * the scheduler clock (Infinity for never), `signal` the caller's (not aborted yet), `call` whether
 * it may be sent again after it may have reached a provider, and the key its attempts are given.
 */
export function runCall<A, T, P extends CallProvider<A, T>>(
  env: CallEnv<A, T, P>,
  args: A,
  sequence: readonly number[],
  deadline: number,
  signal: AbortSignal | undefined,
  call: { readonly repeatable: boolean; readonly idempotencyKey: string | undefined },
): Promise<T> {
  const { providers: states, rules, scheduler, attemptTimeout, classify, metrics, publish, reward, penalize } = env;
  const now = (): number => scheduler.now();
  return new Promise<T>((resolve, reject) => {
    let state = initialCallState(deadline, sequence, states.length, call.repeatable);
    /** What each attempt holds outside the decision: its signal, breaker permit and timer. */
    const flights = new Map<number, Flight<P>>();
    /** Permits granted by a breaker and not yet handed to an attempt, by provider. */
    const granted = new Map<number, BreakerPermit | undefined>();
    const queue: CallEvent<T>[] = [];
    let running = false;
    let wait: Subscription | undefined;
    let hedge: Subscription | undefined;
    let deadlineTimer: Subscription | undefined;

    /** What each provider allows now. */
    const look = (): { now: number; providers: readonly ProviderView[] } => {
      const t = now();
      return {
        now: t,
        providers: states.map((s): ProviderView => {
          const b = s.breaker?.snapshot;
          return {
            breaker:
              b === undefined ? undefined : b.state === 'open' ? { state: 'open', until: b.until } : { state: b.state },
            nextEligibleAt: s.nextEligibleAt,
            retryRefused: (state.tries[s.index] ?? 0) > 0 && s.spec.budget !== undefined && !s.spec.budget.canRetry(),
          };
        }),
      };
    };

    /** Applies events in order; an event raised while effects run waits for them to finish. */
    const dispatch = (event: CallEvent<T>): void => {
      queue.push(event);
      if (running) return;
      running = true;
      try {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const decision = decide(state, next, rules);
          state = decision.state;
          for (const effect of decision.effects) run(effect);
        }
      } finally {
        running = false;
      }
    };
    const pump = (): void => {
      dispatch({ type: 'pump', ...look() });
    };
    function onAbort(): void {
      dispatch({ type: 'aborted', reason: signal?.reason });
    }

    const flightOf = (attempt: number): Flight<P> | undefined => flights.get(attempt);
    const isLive = (attempt: number): boolean => !state.settled && state.flights.some((f) => f.attempt === attempt);
    const fail = (attempt: number, error: unknown, kind: AttemptFailureKind): void => {
      if (!isLive(attempt)) return;
      dispatch({ type: 'failed', attempt, error, kind, verdict: classify(error) });
    };

    const run = (effect: CallEffect<T>): void => {
      switch (effect.type) {
        case 'arm-deadline':
          deadlineTimer = scheduleTimerAt(scheduler, effect.at, () => {
            dispatch({ type: 'deadline-fired' });
          });
          return;
        case 'clear-deadline':
          deadlineTimer?.unsubscribe();
          return;
        case 'listen-abort':
          signal?.addEventListener('abort', onAbort, { once: true });
          return;
        case 'unlisten-abort':
          signal?.removeEventListener('abort', onAbort);
          return;
        case 'acquire': {
          const provider = states[effect.provider];
          if (provider === undefined) return;
          const permit = provider.breaker?.tryAcquire();
          if (provider.breaker !== undefined && permit === undefined) {
            dispatch({ type: 'refused', provider: effect.provider, ...look() });
            return;
          }
          granted.set(effect.provider, permit);
          dispatch({ type: 'granted', provider: effect.provider, ...look() });
          return;
        }
        case 'drop-permit':
          granted.get(effect.provider)?.cancel();
          granted.delete(effect.provider);
          return;
        case 'launch': {
          const provider = states[effect.flight.provider];
          if (provider === undefined) return;
          const permit = granted.get(effect.flight.provider);
          granted.delete(effect.flight.provider);
          provider.spec.budget?.onAttempt(effect.retry);
          provider.inFlight += 1;
          flights.set(effect.flight.attempt, {
            provider,
            begun: effect.flight.begun,
            controller: new AbortController(),
            permit,
            timer: undefined,
          });
          return;
        }
        case 'arm-attempt-timer': {
          const flight = flightOf(effect.attempt);
          if (attemptTimeout === undefined || flight === undefined) return;
          flight.timer = scheduleTimer(scheduler, attemptTimeout, () => {
            const error = new AttemptTimeoutError(effect.attempt, attemptTimeout);
            flight.controller.abort(error);
            fail(effect.attempt, error, 'timed-out');
          });
          return;
        }
        case 'call': {
          const flight = flightOf(effect.attempt);
          if (flight === undefined) return;
          const context = {
            signal: flight.controller.signal,
            attempt: effect.attempt,
            provider: flight.provider.spec.name,
            deadline: state.deadline,
            idempotencyKey: call.idempotencyKey,
          };
          let result: T | PromiseLike<T>;
          try {
            result = flight.provider.spec.call(args, context);
          } catch (error) {
            fail(effect.attempt, error, 'failed');
            return;
          }
          Promise.resolve(result).then(
            (value) => {
              if (isLive(effect.attempt)) dispatch({ type: 'succeeded', attempt: effect.attempt, value });
            },
            (error: unknown) => {
              fail(effect.attempt, error, 'failed');
            },
          );
          return;
        }
        case 'leave': {
          const flight = flightOf(effect.attempt);
          if (flight === undefined) return;
          flight.timer?.unsubscribe();
          flight.provider.inFlight -= 1;
          return;
        }
        case 'reward': {
          const flight = flightOf(effect.attempt);
          if (flight !== undefined) reward(flight.provider, flight.permit);
          return;
        }
        case 'penalize': {
          const flight = flightOf(effect.attempt);
          if (flight === undefined) return;
          const charged = penalize(flight.provider, flight.permit, effect.error, effect.reason, flight.begun);
          dispatch({
            type: 'penalized',
            provider: flight.provider.index,
            kind: effect.kind,
            error: effect.error,
            ...charged,
            ...look(),
          });
          return;
        }
        case 'cancel-permit':
          flightOf(effect.attempt)?.permit?.cancel();
          return;
        case 'end-flight': {
          const flight = flightOf(effect.attempt);
          if (flight === undefined) return;
          flight.timer?.unsubscribe();
          flight.permit?.cancel();
          flight.provider.inFlight -= 1;
          flight.controller.abort(effect.reason);
          return;
        }
        case 'arm-hedge':
          hedge = scheduleTimer(scheduler, effect.after, () => {
            hedge = undefined;
            dispatch({ type: 'hedge-fired', ...look() });
          });
          return;
        case 'cancel-hedge':
          hedge?.unsubscribe();
          hedge = undefined;
          return;
        case 'set-wait': {
          const waiting = new Subscription();
          if (effect.at !== undefined) waiting.add(scheduleTimerAt(scheduler, effect.at, pump));
          for (const index of effect.watch) {
            const changes = states[index]?.breaker?.state$.pipe(skip(1)).subscribe(() => {
              pump();
            });
            waiting.add(changes);
          }
          wait = waiting;
          return;
        }
        case 'clear-wait':
          wait?.unsubscribe();
          wait = undefined;
          return;
        case 'emit':
          emit(metrics, effect.event);
          return;
        case 'publish':
          publish();
          return;
        case 'resolve':
          resolve(effect.value);
          return;
        case 'reject':
          reject(effect.error);
          return;
      }
    };

    dispatch({ type: 'start', ...look() });
  });
}
