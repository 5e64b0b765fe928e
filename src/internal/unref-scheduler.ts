/**
 * An RxJS scheduler on the host's timers whose timers do not keep a Node process alive.
 *
 * Every pending action waits in one queue ordered by due time, behind one host timer armed for the
 * earliest of them: a fleet of 100,000 managers waiting out their backoff holds 100,000 small actions
 * and one host timer, instead of a host timer (with its argument list) each. Actions due at the same
 * time run in the order they were scheduled, as host timers do.
 *
 * One host callback runs due actions for at most {@link SLICE_MS} ms, then yields to the event loop
 * and goes on in the next turn (`setImmediate` where there is one: right after the I/O that waited,
 * with no timer's minimum delay): when 5,000 connections are lost at once, their redials start in
 * slices in due order, with the sockets' I/O between them, instead of in one block that holds the
 * loop for the whole batch.
 * @module
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { timerWait } from './schedule-timer.js';

type Handle = ReturnType<typeof setTimeout>;

/** The longest one host callback runs due actions before it yields to the event loop, in ms. */
export const SLICE_MS = 5;

/** The host's high-resolution clock, for the slice: Date.now() moves in whole ms. */
const sliceClock = (): number => performance.now();

/**
 * Whether the host can run a callback in the next turn of the event loop, after pending I/O (Node's
 * `setImmediate`), and cancel it. Read at each use, as the host timers are (a test may fake them).
 */
const hasImmediate = (): boolean => typeof setImmediate === 'function' && typeof clearImmediate === 'function';

class UnrefAction<T> extends Subscription implements SchedulerAction<T> {
  /** When the work is due (epoch ms). */
  dueAt = 0;
  /** Order of scheduling, which breaks ties between actions due at the same time. */
  order = 0;
  /** Where the action sits in the queue's heap; -1 when it is not queued. */
  index = -1;
  private state: T | undefined = undefined;

  constructor(private readonly work: (this: SchedulerAction<T>, state?: T) => void) {
    super();
  }

  override unsubscribe(): void {
    queue.remove(this as Action);
    super.unsubscribe();
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    queue.remove(this as Action);
    this.dueAt = Date.now() + Math.max(0, delay);
    this.state = state;
    queue.add(this as Action);
    return this;
  }

  /** The action is due: run its work. */
  run(): void {
    this.work.call(this, this.state);
  }
}

type Action = UnrefAction<unknown>;

function before(a: Action, b: Action): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.order < b.order);
}

/** The pending actions as a binary min-heap by (due time, order), and the one host timer behind them. */
class TimerQueue {
  readonly #heap: Action[] = [];
  #handle: Handle | undefined = undefined;
  /** The continuation of a batch that used up its slice, when one is pending. */
  #immediate: ReturnType<typeof setImmediate> | undefined = undefined;
  /** When the host timer is armed to fire (Infinity when it is not armed). */
  #armedFor = Infinity;

  #order = 0;
  readonly #onTimer = (): void => {
    this.#fire();
  };

  add(action: Action): void {
    action.order = this.#order++;
    action.index = this.#heap.length;
    this.#heap.push(action);
    this.#up(action.index);
    if (this.#heap[0] === action) this.#arm();
  }

  /** Takes the action out of the queue, if it is in it. The host timer stays: fired early, it re-arms. */
  remove(action: Action): void {
    const at = action.index;
    if (at < 0) return;
    action.index = -1;
    const last = this.#heap.pop();
    if (last !== undefined && last !== action) {
      this.#heap[at] = last;
      last.index = at;
      this.#down(at);
      this.#up(last.index);
    }
    if (this.#heap.length === 0) this.#disarm();
  }

  #fire(): void {
    this.#handle = undefined;
    this.#armedFor = Infinity;
    this.#immediate = undefined;
    let sliced = false;
    try {
      // Checked by the clock, not by the host timer: no work runs before its time. Work that schedules
      // or cancels actions changes the heap under this loop, which reads its top afresh each time; an
      // action scheduled by a work of this batch runs on a later turn, as a new host timer would (so a
      // work that reschedules itself without delay cannot hold the event loop).
      const now = Date.now();
      const scheduledBefore = this.#order;
      const sliceEnd = sliceClock() + SLICE_MS;
      for (
        let top = this.#heap[0];
        top !== undefined && top.dueAt <= now && top.order < scheduledBefore;
        top = this.#heap[0]
      ) {
        this.remove(top);
        top.run();
        if (sliceClock() >= sliceEnd) {
          sliced = true;
          break;
        }
      }
    } finally {
      // Also when a work threw (an uncaught exception, as from a host timer of its own): the actions
      // still due run on the next turn.
      if (sliced) this.#continue();
      else this.#arm();
    }
  }

  /** Goes on with the due actions in the next turn, after the I/O that waited for this slice. */
  #continue(): void {
    const top = this.#heap[0];
    if (!hasImmediate() || top === undefined || top.dueAt > Date.now()) {
      this.#arm();
      return;
    }
    this.#disarm();
    this.#immediate = setImmediate(this.#onTimer).unref();
  }

  /** Arms the host timer for the earliest action, unless it is armed for that time or sooner. */
  #arm(): void {
    const top = this.#heap[0];
    if (top === undefined) return;
    // A host timer already armed soon enough stays, unless it is overdue: one that never fired (a test's
    // fake timers, since uninstalled) must not hold back every action behind it.
    // A continuation fires before any timer could.
    if (this.#immediate !== undefined) return;
    if (this.#handle !== undefined && this.#armedFor <= top.dueAt && this.#armedFor >= Date.now()) return;
    this.#disarm();
    // A host timer holds at most 2^31 - 1 ms (Node fires a longer one after 1 ms): a longer wait, or
    // an infinite one, is armed in steps.
    const handle = setTimeout(this.#onTimer, timerWait(top.dueAt, Date.now()));
    (handle as { unref?: () => void }).unref?.();
    this.#handle = handle;
    this.#armedFor = top.dueAt;
  }

  #disarm(): void {
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    if (this.#handle !== undefined) {
      clearTimeout(this.#handle);
      this.#handle = undefined;
      this.#armedFor = Infinity;
    }
  }

  #up(i: number): void {
    const heap = this.#heap;
    const action = heap[i];
    if (action === undefined) return;
    while (i > 0) {
      const parentAt = (i - 1) >> 1;
      const parent = heap[parentAt];
      if (parent === undefined || !before(action, parent)) break;
      heap[i] = parent;
      parent.index = i;
      i = parentAt;
    }
    heap[i] = action;
    action.index = i;
  }

  #down(i: number): void {
    const heap = this.#heap;
    const action = heap[i];
    if (action === undefined) return;
    for (;;) {
      const leftAt = 2 * i + 1;
      if (leftAt >= heap.length) break;
      const left = heap[leftAt];
      const right = heap[leftAt + 1];
      let childAt = leftAt;
      let child = left;
      if (right !== undefined && left !== undefined && before(right, left)) {
        childAt = leftAt + 1;
        child = right;
      }
      if (child === undefined || !before(child, action)) break;
      heap[i] = child;
      child.index = i;
      i = childAt;
    }
    heap[i] = action;
    action.index = i;
  }
}

const queue = new TimerQueue();

/**
 * Like RxJS's `asyncScheduler`, but its timers are unref'd (in Node), so pending work never holds the
 * process open. In browsers it behaves like `asyncScheduler`.
 */
export const unrefScheduler: SchedulerLike = Object.freeze({
  now: () => Date.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return new UnrefAction(work).schedule(state, delay);
  },
});
