/**
 * React hooks over redialer's `state$`, built on `useSyncExternalStore` (React 18+): the connection's
 * snapshot, and a clock for the countdown.
 *
 * In your project: `import type { ConnectionSnapshot } from 'redialer';`
 *
 * @example
 * ```tsx
 * function ConnectionBadge({ socket }: { socket: ReconnectingWebSocket }) {
 *   const s = useConnectionState(socket);
 *   const now = useNow(s.state === 'TRANSIENT_FAILURE' ? 250 : 0);
 *   if (s.state !== 'TRANSIENT_FAILURE') return <span>{s.state}</span>;
 *   return (
 *     <span>
 *       Reconnecting in {Math.ceil((s.nextAttemptAt - now) / 1000)} s{' '}
 *       <button onClick={() => socket.resetBackoff()}>Retry now</button>
 *     </span>
 *   );
 * }
 * ```
 */
import { useSyncExternalStore } from 'react';
import type { ConnectionSnapshot } from '../src/index.js';
import { type StateSource, clockStore, connectionStore } from './connection-store.js';

const stores = new WeakMap<object, ReturnType<typeof connectionStore>>();

/** The connection's current snapshot; the component re-renders on every change. */
export function useConnectionState<S extends ConnectionSnapshot>(source: StateSource<S>): S {
  let store = stores.get(source);
  if (store === undefined) {
    store = connectionStore(source);
    stores.set(source, store);
  }
  return useSyncExternalStore(store.subscribe, store.getSnapshot) as S;
}

const clocks = new Map<number, ReturnType<typeof clockStore>>();

/** The current time, re-rendering every `intervalMs` (for a countdown); 0 stops the ticking. */
export function useNow(intervalMs: number): number {
  let clock = clocks.get(intervalMs);
  if (clock === undefined) {
    clock = clockStore(intervalMs);
    clocks.set(intervalMs, clock);
  }
  return useSyncExternalStore(clock.subscribe, clock.getSnapshot);
}
