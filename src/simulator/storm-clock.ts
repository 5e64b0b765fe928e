/**
 * The simulation clock: an RxJS VirtualTimeScheduler whose actions are inserted in order instead of
 * re-sorting the whole queue on every schedule, so that tens of thousands of pending timers stay cheap.
 * Same ordering as the stock VirtualAction (by due time, then by creation), so runs are identical.
 * @module
 */
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';

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
      if (other !== undefined && (other.delay < this.delay || (other.delay === this.delay && other.order < this.index))) low = mid + 1;
      else high = mid;
    }
    actions.splice(low, 0, this);
    return 1;
  }
}

/** A virtual clock for simulations. */
export interface StormClock {
  /** Pass as a manager's `scheduler`. */
  readonly scheduler: VirtualTimeScheduler;
  /** Runs every action due up to `time`, then sets the clock to `time`. */
  advanceTo(time: number): void;
}

/** Creates a {@link StormClock} at time 0. */
export function createStormClock(): StormClock {
  const scheduler = new VirtualTimeScheduler(OrderedAction, -1);
  return {
    scheduler,
    advanceTo(time) {
      if (time < scheduler.frame) return;
      scheduler.maxFrames = time;
      scheduler.flush();
      scheduler.frame = time;
      scheduler.maxFrames = -1;
    },
  };
}
