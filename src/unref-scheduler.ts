/**
 * An RxJS scheduler on the host's timers whose timers do not keep a Node process alive.
 * @module
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { MAX_DELAY_MS } from './backoff/backoff.js';

type Handle = ReturnType<typeof setTimeout>;

class UnrefAction<T> extends Subscription implements SchedulerAction<T> {
  private handle: Handle | undefined;

  constructor(private readonly work: (this: SchedulerAction<T>, state?: T) => void) {
    super();
  }

  override unsubscribe(): void {
    this.clear();
    super.unsubscribe();
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.clear();
    // A host timer holds at most 2^31 - 1 ms (Node fires a longer one after 1 ms): a longer wait, or
    // an infinite one, is armed in steps and runs the work only once its due time has come.
    const dueAt = Date.now() + Math.max(0, delay);
    const arm = (): void => {
      const handle = setTimeout(() => {
        this.handle = undefined;
        if (Date.now() < dueAt) arm();
        else this.work.call(this, state);
      }, Math.min(MAX_DELAY_MS, Math.max(0, dueAt - Date.now())));
      (handle as { unref?: () => void }).unref?.();
      this.handle = handle;
    };
    arm();
    return this;
  }

  private clear(): void {
    if (this.handle !== undefined) {
      clearTimeout(this.handle);
      this.handle = undefined;
    }
  }
}

/**
 * Like RxJS's `asyncScheduler`, but each timer is unref'd (in Node), so pending work never holds the
 * process open. In browsers it behaves exactly like `asyncScheduler`.
 */
export const unrefScheduler: SchedulerLike = Object.freeze({
  now: () => Date.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return new UnrefAction(work).schedule(state, delay);
  },
});
