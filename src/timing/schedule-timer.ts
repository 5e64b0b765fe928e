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
import { MAX_DELAY_MS } from '../backoff/backoff.js';

/**
 * Runs `callback` once, when `scheduler.now()` has reached `scheduler.now() + delay`, re-arming in
 * steps of at most {@link MAX_DELAY_MS} for longer delays and for a timer that fires early. A delay of
 * `Infinity` never fires (the subscription still disposes cleanly); a negative delay fires as soon as the
 * scheduler runs work. Unsubscribing cancels it.
 *
 * @throws RangeError when `delay` is NaN: a NaN delay is a bug upstream, never a wait.
 */
export function scheduleTimer(scheduler: SchedulerLike, delay: number, callback: () => void): Subscription {
  if (Number.isNaN(delay)) throw new RangeError('redialer: a timer needs a delay in milliseconds, got NaN');
  if (delay === Infinity) return new Subscription();
  return scheduleTimerAt(scheduler, scheduler.now() + Math.max(0, delay), callback);
}

/**
 * Like {@link scheduleTimer}, with the due time given on the scheduler's clock. A due time in the past
 * fires as soon as the scheduler runs work; `Infinity` never fires.
 *
 * @throws RangeError when `dueAt` is NaN.
 */
export function scheduleTimerAt(scheduler: SchedulerLike, dueAt: number, callback: () => void): Subscription {
  if (Number.isNaN(dueAt)) throw new RangeError('redialer: a timer needs a due time, got NaN');
  if (dueAt === Infinity) return new Subscription();
  const remaining = (): number => Math.min(MAX_DELAY_MS, Math.max(0, dueAt - scheduler.now()));
  return scheduler.schedule(function (this: SchedulerAction<undefined>) {
    if (scheduler.now() < dueAt) {
      this.schedule(undefined, remaining());
      return;
    }
    callback();
  }, remaining());
}
