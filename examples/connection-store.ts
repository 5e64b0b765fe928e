/**
 * External stores over redialer's `state$` and over the clock, in the shape React's
 * useSyncExternalStore takes (see use-connection-state.ts); usable with any UI library that
 * subscribes to a store.
 */
import type { Observable } from 'rxjs';
import type { ConnectionSnapshot } from '../src/index.js';

/** What the hook reads: a ConnectionManager, a ManagedChannel or a ReconnectingWebSocket. */
export interface StateSource<S extends ConnectionSnapshot> {
  readonly state$: Observable<S>;
  readonly snapshot: S;
}

/** An external store over `state$`, in the shape useSyncExternalStore takes (also usable without React). */
export function connectionStore<S extends ConnectionSnapshot>(source: StateSource<S>): { subscribe: (onChange: () => void) => () => void; getSnapshot: () => S } {
  return {
    subscribe(onChange) {
      const subscription = source.state$.subscribe(() => {
        onChange();
      });
      return () => {
        subscription.unsubscribe();
      };
    },
    // The manager keeps one snapshot object per state change, so this is stable between changes.
    getSnapshot: () => source.snapshot,
  };
}

/** A clock store: `Date.now()` refreshed every `intervalMs` while subscribed (0: not ticking). */
export function clockStore(intervalMs: number): { subscribe: (onChange: () => void) => () => void; getSnapshot: () => number } {
  let now = Date.now();
  return {
    subscribe(onChange) {
      if (intervalMs <= 0) return () => undefined;
      const timer = setInterval(() => {
        now = Date.now();
        onChange();
      }, intervalMs);
      return () => {
        clearInterval(timer);
      };
    },
    getSnapshot: () => now,
  };
}

