/**
 * A virtual clock for tests: an RxJS VirtualTimeScheduler that you advance by hand.
 * @module
 */
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';

/** A scheduler on virtual time, with controls to move time forward. */
export interface VirtualClock {
  /** Pass as the `scheduler` option. */
  readonly scheduler: VirtualTimeScheduler;
  /** The current virtual time in milliseconds. */
  now(): number;
  /** Runs every timer due up to `now() + ms`, then sets the clock to that time. */
  advanceBy(ms: number): void;
  /** Runs every timer due up to `time`, then sets the clock to `time` (never moves backwards). */
  advanceTo(time: number): void;
  /** Runs timers until none is left, stopping after `limit` ms of virtual time; returns the time reached. */
  runAll(limit?: number): number;
  /** The number of timers still pending. */
  pendingTimers(): number;
}

/**
 * Creates a {@link VirtualClock} starting at time `start` (default 0).
 *
 * @example
 * ```ts
 * const clock = createVirtualClock();
 * const manager = new ConnectionManager({ connector, scheduler: clock.scheduler });
 * manager.connect();
 * clock.advanceBy(1000);
 * ```
 */
export function createVirtualClock(start = 0): VirtualClock {
  const scheduler = new VirtualTimeScheduler(VirtualAction, -1);
  scheduler.frame = start;
  const advanceTo = (time: number): void => {
    if (Number.isNaN(time)) throw new RangeError('redialer: advanceTo() needs a number, got NaN');
    if (time < scheduler.frame) return;
    scheduler.maxFrames = time;
    scheduler.flush();
    scheduler.frame = time;
    scheduler.maxFrames = -1;
  };
  return {
    scheduler,
    now: () => scheduler.frame,
    advanceBy: (ms) => {
      if (!(ms >= 0)) throw new RangeError(`redialer: advanceBy() needs a duration >= 0, got ${String(ms)}`);
      advanceTo(scheduler.frame + ms);
    },
    advanceTo,
    runAll: (limit = 24 * 3600 * 1000) => {
      const end = scheduler.frame + limit;
      scheduler.maxFrames = end;
      scheduler.flush();
      scheduler.maxFrames = -1;
      return scheduler.frame;
    },
    pendingTimers: () => scheduler.actions.length,
  };
}
