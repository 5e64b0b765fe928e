/**
 * An Observable as an external store in the shape React's `useSyncExternalStore` takes: the latest
 * value, cached (the same object until the Observable emits another), and change listeners.
 * @module
 */
import type { Observable, Subscription } from 'rxjs';

/** What `useSyncExternalStore` takes. */
export interface ExternalStore<T> {
  /** Adds a change listener; returns its removal. */
  readonly subscribe: (onChange: () => void) => () => void;
  /** The latest value (the same object until it changes). */
  readonly getSnapshot: () => T;
}

/**
 * A store over `source$`, subscribed on first use (never while rendering on a server, where React
 * calls neither) and kept until `source$` completes, so that every component reading it sees one
 * value and a component mounted later sees the same history (the grace period of an outage that began
 * before it mounted). `initial` stands in until `source$` has emitted.
 */
export function observableStore<T>(source$: Observable<T>, initial: T): ExternalStore<T> {
  let current = initial;
  let subscription: Subscription | undefined;
  let done = false;
  const listeners = new Set<() => void>();
  const start = (): void => {
    if (subscription !== undefined || done) return;
    subscription = source$.subscribe({
      next: (value) => {
        if (Object.is(value, current)) return;
        current = value;
        for (const listener of [...listeners]) listener();
      },
      complete: () => {
        done = true;
      },
      error: () => {
        // state$ never errors; a store keeps its last value rather than tearing the page down.
        done = true;
      },
    });
  };
  return {
    subscribe(onChange) {
      start();
      listeners.add(onChange);
      return () => {
        listeners.delete(onChange);
      };
    },
    getSnapshot() {
      start();
      return current;
    },
  };
}
