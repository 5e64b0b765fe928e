/**
 * What the hooks read: anything with `state$` — a `ConnectionManager`, a `ManagedChannel`, a
 * `ReconnectingWebSocket`.
 * @module
 */
import type { Observable } from 'rxjs';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';

/** A source of snapshots; `resetBackoff()` (or `manager.resetBackoff()`) is what "Retry now" calls. */
export interface StateSource<S extends ConnectionSnapshot = ConnectionSnapshot> {
  /** Replays the current snapshot to each subscriber, then emits every change. */
  readonly state$: Observable<S>;
  /**
   * The source's `degraded` signal, if it has one (`ManagedChannel.degraded$`): the status hooks pass
   * it to `connectionStatus()`, so a service failing behind a live connection shows as `unavailable`.
   */
  readonly degraded$?: Observable<unknown>;
  /** "Retry now" (ConnectionManager, ReconnectingWebSocket). */
  readonly resetBackoff?: () => void;
  /** "Retry now" through the manager (ManagedChannel). */
  readonly manager?: {
    /** The connection manager's "Retry now". */
    resetBackoff(): void;
  };
}

/** The snapshot a hook shows on the server and while hydrating: IDLE, no attempt yet. */
export const SERVER_SNAPSHOT: ConnectionSnapshot<never> = Object.freeze({
  state: 'IDLE',
  since: 0,
  attempt: 0,
  lastError: undefined,
});
