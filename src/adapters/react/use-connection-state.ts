/**
 * `useConnectionState(source)`: the source's current snapshot, re-rendering on every change.
 * @module
 */
import { useSyncExternalStore } from 'react';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import { type ExternalStore, observableStore } from './external-store.js';
import { SERVER_SNAPSHOT, type StateSource } from './state-source.js';

const stores = new WeakMap<StateSource, ExternalStore<ConnectionSnapshot>>();
const noSource: ExternalStore<ConnectionSnapshot> = {
  subscribe: () => () => undefined,
  getSnapshot: () => SERVER_SNAPSHOT,
};

/** The store of `source`'s snapshots, one per source. */
function stateStore(source: StateSource | null | undefined): ExternalStore<ConnectionSnapshot> {
  if (source === null || source === undefined) return noSource;
  let store = stores.get(source);
  if (store === undefined) {
    store = observableStore<ConnectionSnapshot>(source.state$, SERVER_SNAPSHOT);
    stores.set(source, store);
  }
  return store;
}

/**
 * The source's current snapshot (`state`, `attempt`, `nextAttemptAt`…); the component re-renders on
 * every change. Every component reading the same source sees the same snapshot object (no tearing).
 * On the server, while hydrating, and without a source (`null`, e.g. a socket opened in an effect):
 * IDLE with attempt 0.
 *
 * @example
 * ```tsx
 * import { useConnectionState } from 'redialer/react';
 *
 * function StateLabel({ socket }: { socket: ReconnectingWebSocket }) {
 *   const snapshot = useConnectionState(socket);
 *   return <span>{snapshot.state}</span>;
 * }
 * ```
 */
export function useConnectionState<S extends ConnectionSnapshot>(source: StateSource<S> | null | undefined): S {
  const store = stateStore(source);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, serverSnapshot) as S;
}

function serverSnapshot(): ConnectionSnapshot {
  return SERVER_SNAPSHOT;
}
