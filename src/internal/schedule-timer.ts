/**
 * One way to arm a timer anywhere in redialer: on an injected RxJS scheduler, never early, and never
 * cut short by the host's 2^31 - 1 ms limit.
 *
 * Node fires a `setTimeout` longer than 2^31 - 1 ms after 1 ms (with a TimeoutOverflowWarning), and
 * a timer may fire a little before its due time by the scheduler's clock (the clock and the timer
 * queue are read at different moments). Every deadline in redialer — the manager's timer,
 * `waitForStateChange`, retry timeouts, call deadlines, the fault proxy — goes through
 * {@link scheduleTimer}, which re-arms for whatever is left until the scheduler's clock has reached the
 * due time.
 * @module
 */
import { type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import { MAX_DELAY_MS } from './max-delay.js';

/**
 * Runs `callback` once, when `scheduler.now()` has reached `scheduler.now() + delay`, re-arming in
 * steps of at most {@link MAX_DELAY_MS} for longer delays and for a timer that fires early. A delay of
 * `Infinity` never fires (the subscription still disposes cleanly); a negative delay fires as soon as the
 * scheduler runs work. Unsubscribing cancels it. `callback` receives `state`, so that a caller that
 * arms timers often can pass one function for all of them instead of a closure per timer.
 *
 * @throws RangeError when `delay` is NaN: a NaN delay is a bug upstream, never a wait.
 */
export function scheduleTimer<T = undefined>(
  scheduler: SchedulerLike,
  delay: number,
  callback: (state: T) => void,
  state?: T,
): Subscription {
  if (Number.isNaN(delay)) throw new RangeError('redialer: a timer needs a delay in milliseconds, got NaN');
  if (delay === Infinity) return new Subscription();
  return scheduleTimerAt(scheduler, scheduler.now() + Math.max(0, delay), callback, state);
}

/** What one armed timer needs when it fires: one small object instead of closures. */
interface ArmedTimer<T> {
  readonly scheduler: SchedulerLike;
  readonly dueAt: number;
  readonly callback: (state: T) => void;
  readonly state: T;
}

/**
 * The wait to arm for a timer due at `dueAt` when the clock reads `now`: never negative, never above
 * {@link MAX_DELAY_MS} (a longer wait is armed again when this one fires). A timer that fires while
 * `now < dueAt` must re-arm with this wait rather than run.
 */
export function timerWait(dueAt: number, now: number): number {
  return Math.min(MAX_DELAY_MS, Math.max(0, dueAt - now));
}

function remaining(timer: ArmedTimer<unknown>): number {
  return timerWait(timer.dueAt, timer.scheduler.now());
}

function fire(this: SchedulerAction<ArmedTimer<unknown>>, timer?: ArmedTimer<unknown>): void {
  if (timer === undefined) return;
  if (timer.scheduler.now() < timer.dueAt) {
    this.schedule(timer, remaining(timer));
    return;
  }
  timer.callback(timer.state);
}

/**
 * Like {@link scheduleTimer}, with the due time given on the scheduler's clock. A due time in the past
 * fires as soon as the scheduler runs work; `Infinity` never fires.
 *
 * @throws RangeError when `dueAt` is NaN.
 */
export function scheduleTimerAt<T = undefined>(
  scheduler: SchedulerLike,
  dueAt: number,
  callback: (state: T) => void,
  state?: T,
): Subscription {
  if (Number.isNaN(dueAt)) throw new RangeError('redialer: a timer needs a due time, got NaN');
  if (dueAt === Infinity) return new Subscription();
  const timer: ArmedTimer<unknown> = { scheduler, dueAt, callback: callback as (state: unknown) => void, state };
  return scheduler.schedule(fire, remaining(timer), timer);
}
