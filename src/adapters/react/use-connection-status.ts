/**
 * `useConnectionStatus(source)`: what a UI should show about a connection (see `connectionStatus`),
 * with "Retry now".
 * @module
 */
import { type SchedulerLike, asyncScheduler, map } from 'rxjs';
import { connectionStatus, type ConnectionStatus, DEFAULT_GRACE_MS } from '../../core/connection-status.js';
import { useSyncExternalStore } from 'react';
import { type ExternalStore, observableStore } from './external-store.js';
import type { StateSource } from './state-source.js';

/** A {@link ConnectionStatus} and the action that goes with it. */
export interface ConnectionStatusView extends ConnectionStatus {
  /** Starts the next attempt now with a fresh backoff (`resetBackoff()`); nothing without a source. */
  readonly retryNow: () => void;
}

/** Options of {@link useConnectionStatus}. */
export interface UseConnectionStatusOptions {
  /** How long an outage stays hidden (ms); read once per source and value. @defaultValue 5000 */
  readonly graceMs?: number;
  /** The source's scheduler (for the grace timer and `since`). @defaultValue asyncScheduler */
  readonly scheduler?: SchedulerLike;
}

const noop = (): void => undefined;

/** What the hook returns on the server, while hydrating and without a source: connecting, hidden. */
export const SERVER_STATUS: ConnectionStatusView = Object.freeze({
  phase: 'connecting',
  visible: false,
  since: 0,
  attempt: 0,
  retryAt: undefined,
  reason: undefined,
  retryNow: noop,
});

const stores = new WeakMap<StateSource, Map<string, ExternalStore<ConnectionStatusView>>>();
const schedulerIds = new WeakMap<SchedulerLike, number>();
let schedulers = 0;
const noSource: ExternalStore<ConnectionStatusView> = {
  subscribe: () => () => undefined,
  getSnapshot: () => SERVER_STATUS,
};

function statusStore(
  source: StateSource | null | undefined,
  graceMs: number,
  scheduler: SchedulerLike,
): ExternalStore<ConnectionStatusView> {
  if (source === null || source === undefined) return noSource;
  let bySettings = stores.get(source);
  if (bySettings === undefined) {
    bySettings = new Map();
    stores.set(source, bySettings);
  }
  let schedulerId = schedulerIds.get(scheduler);
  if (schedulerId === undefined) {
    schedulerId = schedulers++;
    schedulerIds.set(scheduler, schedulerId);
  }
  const key = `${String(graceMs)}/${String(schedulerId)}`;
  let store = bySettings.get(key);
  if (store === undefined) {
    const retryNow = (): void => {
      if (source.resetBackoff !== undefined) source.resetBackoff();
      else source.manager?.resetBackoff();
    };
    const view$ = connectionStatus(source.state$, {
      graceMs,
      scheduler,
      ...(source.degraded$ === undefined ? {} : { degraded: source.degraded$ }),
    }).pipe(map((status) => Object.freeze({ ...status, retryNow })));
    store = observableStore<ConnectionStatusView>(view$, SERVER_STATUS);
    bySettings.set(key, store);
  }
  return store;
}

/**
 * What to show about `source`'s connection: `phase`, `visible` (false during the first `graceMs` of
 * an outage, so that blips never flash a banner), `retryAt` for a countdown
 * ({@link useRetryCountdown}), `attempt`, `reason`, and `retryNow()`. One status per source and
 * settings, shared by every component (no tearing; a component mounted mid-outage sees the outage's
 * real age). On the server, while hydrating and without a source: `connecting`, hidden.
 *
 * @example
 * ```tsx
 * import { useConnectionStatus, useRetryCountdown } from 'redialer/react';
 *
 * function Banner({ socket }: { socket: ReconnectingWebSocket }) {
 *   const status = useConnectionStatus(socket);
 *   const seconds = useRetryCountdown(status.retryAt);
 *   return (
 *     <div role="status" aria-live="polite">
 *       {status.visible && status.phase === 'offline' && 'Waiting for network…'}
 *       {status.visible && status.phase === 'reconnecting' && <>Reconnecting{seconds === undefined ? '…' : ` in ${seconds} s`}
 *         <button onClick={status.retryNow}>Retry now</button></>}
 *     </div>
 *   );
 * }
 * ```
 * @throws RangeError or TypeError for a bad `graceMs` or `scheduler`.
 */
export function useConnectionStatus(
  source: StateSource | null | undefined,
  options: UseConnectionStatusOptions = {},
): ConnectionStatusView {
  const store = statusStore(source, options.graceMs ?? DEFAULT_GRACE_MS, options.scheduler ?? asyncScheduler);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, serverStatus);
}

function serverStatus(): ConnectionStatusView {
  return SERVER_STATUS;
}
