import { type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import { MAX_DELAY_MS } from '../../src/backoff/backoff.js';

/**
 * A scheduler like Node's timers: a wait above 2^31 - 1 ms fires after 1 ms, and each timer fires
 * `early` ms before its due time by the clock
 * (waits of 100 ms and more; shorter ones are on time). Arms are recorded.
 */
export function hostLikeScheduler(early = 0) {
  let now = 0;
  const pending: { at: number; run: () => void }[] = [];
  const arms: number[] = [];
  const scheduler: SchedulerLike = {
    now: () => now,
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      const action = Object.assign(new Subscription(), {
        schedule(nextState?: T, nextDelay = 0): Subscription {
          arm(nextState, nextDelay);
          return action;
        },
      }) as unknown as SchedulerAction<T>;
      const arm = (s: T | undefined, wait: number) => {
        arms.push(wait);
        const effective = wait > MAX_DELAY_MS ? 1 : wait;
        const entry = {
          at: now + (effective >= 100 ? effective - early : effective),
          run: () => {
            work.call(action, s);
          },
        };
        pending.push(entry);
        action.add(() => pending.splice(pending.indexOf(entry) >>> 0, 1));
      };
      arm(state, delay);
      return action;
    },
  };
  const runUntil = (time: number) => {
    for (;;) {
      pending.sort((a, b) => a.at - b.at);
      const next = pending[0];
      if (next === undefined || next.at > time) break;
      pending.shift();
      now = Math.max(now, next.at);
      next.run();
    }
    now = time;
  };
  return { scheduler, arms, runUntil, pending: () => pending.length };
}
