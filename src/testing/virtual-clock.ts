/**
 * A virtual clock for tests (and the storm simulator's clock): an RxJS VirtualTimeScheduler that you
 * advance by hand. Timers are inserted in order instead of re-sorting the whole queue on every
 * schedule, so tens of thousands of pending timers stay cheap; the order is the stock
 * VirtualAction's (by due time, then by creation).
 * @module
 */
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { checkNumber } from '../internal/validate.js';
import { formatDuration } from '../internal/format-duration.js';

interface Ordered {
  readonly delay: number;
  readonly order: number;
}

class OrderedAction<T> extends VirtualAction<T> {
  /** The creation index (VirtualAction's protected `index`), the tie-breaker between equal due times. */
  get order(): number {
    return this.index;
  }

  protected override requestAsyncId(scheduler: VirtualTimeScheduler, _id?: unknown, delay = 0): number {
    this.delay = scheduler.frame + delay;
    const actions = scheduler.actions as unknown as Ordered[];
    let low = 0;
    let high = actions.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = actions[mid];
      if (other !== undefined && (other.delay < this.delay || (other.delay === this.delay && other.order < this.index)))
        low = mid + 1;
      else high = mid;
    }
    actions.splice(low, 0, this);
    return 1;
  }
}

/** Options of {@link createVirtualClock}. */
export interface VirtualClockOptions {
  /**
   * The most timers one call (`advanceBy`, `advanceTo`, `runAll` or their async forms) may fire before
   * it throws a RangeError: a timer that re-arms itself with no delay would otherwise hang the test.
   * `Infinity` for no limit. @defaultValue 100000
   */
  readonly maxTimerFirings?: number;
}

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
  /**
   * Like {@link VirtualClock.advanceBy}, but lets promise callbacks run before each timer and at the
   * end, so that a timer armed after an `await` (a retry after a rejected attempt) fires in the same
   * call if it is due by then. Yields to the host's event loop between timers (`setImmediate` where
   * there is one, else `setTimeout(0)`), so no other virtual timer can slip in.
   */
  advanceByAsync(ms: number): Promise<void>;
  /** The async form of {@link VirtualClock.advanceTo}; see {@link VirtualClock.advanceByAsync}. */
  advanceToAsync(time: number): Promise<void>;
  /** The async form of {@link VirtualClock.runAll}; see {@link VirtualClock.advanceByAsync}. */
  runAllAsync(limit?: number): Promise<number>;
  /** The number of timers still pending. */
  pendingTimers(): number;
}

type Yield = () => Promise<void>;

/** Captured when this module loads, so that fake timers installed later (vi.useFakeTimers) cannot stall it. */
const yieldToHost: Yield = (() => {
  const host = globalThis as {
    setImmediate?: (callback: () => void) => unknown;
    setTimeout: (callback: () => void, ms: number) => unknown;
  };
  const immediate = host.setImmediate;
  const timeout = host.setTimeout;
  return immediate === undefined
    ? () => new Promise<void>((resolve) => void timeout(resolve, 0))
    : () => new Promise<void>((resolve) => void immediate(resolve));
})();

const DAY = 24 * 3600 * 1000;

/**
 * Creates a {@link VirtualClock} starting at time `start` (default 0).
 *
 * @example
 * ```ts
 * import { ConnectionManager } from 'redialer';
 * import { createFakeConnector, createVirtualClock } from 'redialer/testing';
 *
 * const clock = createVirtualClock();
 * const fake = createFakeConnector((attempt) => attempt.fail(new Error('ECONNREFUSED')));
 * const manager = new ConnectionManager({ connector: fake.connector, scheduler: clock.scheduler });
 * manager.connect();
 * clock.advanceBy(1000);
 * ```
 * @throws RangeError when `maxTimerFirings` is not a number ≥ 1.
 */
export function createVirtualClock(start = 0, options: VirtualClockOptions = {}): VirtualClock {
  const maxFirings = checkNumber('maxTimerFirings', options.maxTimerFirings ?? 100_000, {
    min: 1,
    allowInfinity: true,
  });
  const scheduler = new VirtualTimeScheduler(OrderedAction, -1);
  scheduler.frame = start;
  const actions = scheduler.actions;
  let busy: string | undefined;

  const enter = (name: string): void => {
    if (busy !== undefined)
      throw new Error(`redialer: ${name}() was called while ${busy}() is still running; await it first`);
  };

  /** Fires the next timer if it is due by `end`; false when none is. */
  const fireNext = (end: number, name: string, fired: number): boolean => {
    const action = actions[0];
    if (action === undefined || action.delay > end) return false;
    if (fired >= maxFirings) {
      throw new RangeError(
        `redialer: the virtual clock fired ${String(fired)} timers in one ${name}() call and stopped at ${formatDuration(scheduler.frame - start)} of virtual time ` +
          `with ${String(actions.length)} still pending (option "maxTimerFirings" is ${String(maxFirings)}); ` +
          'does a timer re-arm itself with no delay?',
      );
    }
    actions.shift();
    scheduler.frame = action.delay;
    const error: unknown = action.execute(action.state, action.delay);
    if (error !== undefined && error !== false) {
      // As VirtualTimeScheduler.flush does: a timer that threw cancels the rest.
      for (let left = actions.shift(); left !== undefined; left = actions.shift()) left.unsubscribe();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what the timer threw, unchanged
      throw error;
    }
    return true;
  };

  const run = (end: number, name: string): void => {
    enter(name);
    busy = name;
    try {
      for (let fired = 0; fireNext(end, name, fired); fired++);
    } finally {
      busy = undefined;
    }
  };

  const runAsync = async (end: number, name: string): Promise<void> => {
    enter(name);
    busy = name;
    try {
      for (let fired = 0; ; fired++) {
        await yieldToHost();
        if (!fireNext(end, name, fired)) break;
      }
    } finally {
      busy = undefined;
    }
  };

  const target = (name: string, time: number): number => {
    if (Number.isNaN(time)) throw new RangeError(`redialer: ${name}() needs a number, got NaN`);
    return time;
  };
  const duration = (name: string, ms: number): number => {
    if (!(ms >= 0)) throw new RangeError(`redialer: ${name}() needs a duration >= 0, got ${String(ms)}`);
    return scheduler.frame + ms;
  };
  const settle = (time: number): void => {
    if (time > scheduler.frame) scheduler.frame = time;
  };

  return {
    scheduler,
    now: () => scheduler.frame,
    advanceBy(ms) {
      const end = duration('advanceBy', ms);
      run(end, 'advanceBy');
      settle(end);
    },
    advanceTo(time) {
      const end = target('advanceTo', time);
      run(end, 'advanceTo');
      settle(end);
    },
    runAll(limit = DAY) {
      run(duration('runAll', limit), 'runAll');
      return scheduler.frame;
    },
    async advanceByAsync(ms) {
      const end = duration('advanceByAsync', ms);
      await runAsync(end, 'advanceByAsync');
      settle(end);
    },
    async advanceToAsync(time) {
      const end = target('advanceToAsync', time);
      await runAsync(end, 'advanceToAsync');
      settle(end);
    },
    async runAllAsync(limit = DAY) {
      await runAsync(duration('runAllAsync', limit), 'runAllAsync');
      return scheduler.frame;
    },
    pendingTimers: () => actions.length,
  };
}
