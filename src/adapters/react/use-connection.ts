/**
 * `useConnection(create, deps)`: a connection the component owns — made when the component mounts
 * (or `deps` change), closed when it unmounts — and exactly one of it under StrictMode, whose
 * development-only unmount and remount would otherwise open a second connection and close the first.
 * @module
 */
import { type DependencyList, useEffect, useRef, useState } from 'react';

/** What {@link useConnection} owns: anything that can be closed (`ReconnectingWebSocket`, `ReconnectingEventSource`…). */
export interface Closable {
  /** Stops the connection for good: no timer, no socket left. */
  close(): void;
}

/** The owned connection, and the close waiting to happen if the component does not come back. */
interface Owned<T> {
  readonly value: T;
  readonly deps: DependencyList;
  closing: ReturnType<typeof setTimeout> | undefined;
}

function sameDeps(a: DependencyList, b: DependencyList): boolean {
  return a.length === b.length && a.every((value, i) => Object.is(value, b[i]));
}

/**
 * Makes the connection with `create()` after the component mounts and closes it after it unmounts,
 * or makes a new one (closing the old) when `deps` change. An unmount that is followed at once by a
 * mount with the same `deps` (StrictMode in development, a fast refresh) keeps the connection: the
 * close waits one macrotask, and the remount cancels it. Null during server rendering, hydration and
 * the first render (the connection is made in an effect); the hooks take null.
 *
 * @example
 * ```tsx
 * import { useConnection, useConnectionStatus } from 'redialer/react';
 * import { ReconnectingWebSocket } from 'redialer/websocket';
 *
 * function Chat({ url }: { url: string }) {
 *   const socket = useConnection(() => new ReconnectingWebSocket(url), [url]);
 *   const status = useConnectionStatus(socket);
 *   return <p>{status.phase}</p>;
 * }
 * ```
 */
export function useConnection<T extends Closable>(create: () => T, deps: DependencyList): T | null {
  const [value, setValue] = useState<T | null>(null);
  const owned = useRef<Owned<T> | null>(null);
  useEffect(() => {
    let current = owned.current;
    if (current?.closing !== undefined && sameDeps(current.deps, deps)) {
      // Unmounted and mounted again at once (StrictMode): the same connection carries on.
      clearTimeout(current.closing);
      current.closing = undefined;
    } else {
      if (current?.closing !== undefined) {
        clearTimeout(current.closing);
        current.value.close();
      }
      current = { value: create(), deps, closing: undefined };
      owned.current = current;
    }
    const held = current;
    setValue(held.value);
    return () => {
      held.closing = setTimeout(() => {
        held.closing = undefined;
        if (owned.current === held) owned.current = null;
        held.value.close();
      }, 0);
    };
    // `deps` are the caller's, as for useEffect; `create` is read when they change.
  }, deps);
  return value;
}
