/**
 * `useRetryCountdown(retryAt)`: whole seconds until the next attempt, ticking once a second only while
 * one is pending.
 * @module
 */
import { useMemo, useSyncExternalStore } from 'react';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { scheduleTimerAt } from '../../internal/schedule-timer.js';
import type { ExternalStore } from './external-store.js';

/** Options of {@link useRetryCountdown}. */
export interface UseRetryCountdownOptions {
  /** The clock `retryAt` is on: the source's scheduler. @defaultValue asyncScheduler (`Date.now()`) */
  readonly scheduler?: SchedulerLike;
}

/** Whole seconds from `now` until `retryAt`, rounded up (0 once it has passed). */
function secondsLeft(retryAt: number, now: number): number {
  return Math.max(0, Math.ceil((retryAt - now) / 1000));
}

interface CountdownStore extends ExternalStore<number | undefined> {
  readonly getServerSnapshot: () => number | undefined;
  /** Whether no component listens. */
  idle(): boolean;
  /** Recomputes the value while idle (nobody to notify). */
  refresh(): void;
}

/**
 * A store whose value is the seconds left until `retryAt`. While it has listeners and the value is
 * above 0, one timer is armed for the moment the value next changes (never a polling interval).
 */
function countdownStore(retryAt: number, scheduler: SchedulerLike): CountdownStore {
  let value = secondsLeft(retryAt, scheduler.now());
  const initial = value;
  const listeners = new Set<() => void>();
  let timer: Subscription | undefined;
  const update = (): void => {
    const next = secondsLeft(retryAt, scheduler.now());
    if (next !== value) {
      value = next;
      for (const listener of [...listeners]) listener();
    }
  };
  const arm = (): void => {
    timer?.unsubscribe();
    timer = undefined;
    if (value === 0 || listeners.size === 0) return;
    // The value drops from n to n - 1 when retryAt - now falls to (n - 1) seconds.
    timer = scheduleTimerAt(scheduler, retryAt - (value - 1) * 1000, () => {
      timer = undefined;
      update();
      arm();
    });
  };
  return {
    subscribe(onChange) {
      listeners.add(onChange);
      update();
      if (timer === undefined) arm();
      return () => {
        listeners.delete(onChange);
        if (listeners.size === 0) {
          timer?.unsubscribe();
          timer = undefined;
        }
      };
    },
    getSnapshot: () => value,
    getServerSnapshot: () => initial,
    idle: () => listeners.size === 0,
    refresh() {
      if (listeners.size === 0) value = secondsLeft(retryAt, scheduler.now());
    },
  };
}

const none: CountdownStore = {
  subscribe: () => () => undefined,
  getSnapshot: () => undefined,
  getServerSnapshot: () => undefined,
  idle: () => true,
  refresh: () => undefined,
};

/** Stores by scheduler and retryAt: components counting down to the same moment share one timer and tick together. */
const stores = new WeakMap<SchedulerLike, Map<number, CountdownStore>>();
/** Idle stores kept for reuse before the oldest are dropped. */
const IDLE_KEPT = 32;

function sharedCountdown(retryAt: number | undefined, scheduler: SchedulerLike): CountdownStore {
  if (retryAt === undefined) return none;
  let byTime = stores.get(scheduler);
  if (byTime === undefined) {
    byTime = new Map();
    stores.set(scheduler, byTime);
  }
  let store = byTime.get(retryAt);
  if (store === undefined) {
    store = countdownStore(retryAt, scheduler);
    byTime.set(retryAt, store);
    const idle = [...byTime].filter(([, s]) => s.idle());
    for (const [key] of idle.slice(0, Math.max(0, idle.length - IDLE_KEPT))) byTime.delete(key);
  } else {
    store.refresh();
  }
  return store;
}

/**
 * Whole seconds until `retryAt` (a status's `retryAt`, or a snapshot's `nextAttemptAt`), rounded up,
 * for "Reconnecting in 3 s"; undefined when `retryAt` is undefined. The component re-renders once a
 * second, at the moment the number changes, and only while a retry is pending; no timer is left
 * once the count reaches 0 or the component unmounts. Components counting down to the same moment
 * share one timer and change in the same render.
 *
 * @example
 * ```tsx
 * import { useConnectionStatus, useRetryCountdown } from 'redialer/react';
 *
 * function Countdown({ socket }: { socket: ReconnectingWebSocket }) {
 *   const seconds = useRetryCountdown(useConnectionStatus(socket).retryAt);
 *   return seconds === undefined ? null : <span>Reconnecting in {seconds} s</span>;
 * }
 * ```
 */
export function useRetryCountdown(
  retryAt: number | undefined,
  options: UseRetryCountdownOptions = {},
): number | undefined {
  const scheduler = options.scheduler ?? asyncScheduler;
  const store = useMemo(() => sharedCountdown(retryAt, scheduler), [retryAt, scheduler]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}
