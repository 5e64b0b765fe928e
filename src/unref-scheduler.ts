/**
 * An RxJS scheduler on the host's timers whose timers do not keep a Node process alive.
 * @module
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { timerWait } from './timing/schedule-timer.js';

type Handle = ReturnType<typeof setTimeout>;

/** Runs an action's timer; the action is passed as the timer's argument, so no closure is made per arming. */
function fire(action: UnrefAction<unknown>): void {
  action.fired();
}

class UnrefAction<T> extends Subscription implements SchedulerAction<T> {
  private handle: Handle | undefined;
  private dueAt = 0;
  private state: T | undefined;

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
    this.dueAt = Date.now() + Math.max(0, delay);
    this.state = state;
    this.arm();
    return this;
  }

  /** The host timer fired: run the work, or arm again for the rest of a long wait. */
  fired(): void {
    this.handle = undefined;
    if (Date.now() < this.dueAt) this.arm();
    else this.work.call(this, this.state);
  }

  private arm(): void {
    // With an argument, TypeScript picks the DOM overload (a number); in Node the handle is a Timeout.
    const handle = setTimeout(fire, timerWait(this.dueAt, Date.now()), this) as unknown as Handle;
    (handle as { unref?: () => void }).unref?.();
    this.handle = handle;
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
