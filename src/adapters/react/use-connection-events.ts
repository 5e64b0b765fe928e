/**
 * `useConnectionEvents(source, handler)`: the moments to tell the user about — `lost` (an outage
 * that outlived the grace period, or offline), `restored` (back after a `lost`: a "Reconnected"
 * toast), `failed` (gave up) — as `connectionEvents()` gives them, delivered to a handler.
 * @module
 */
import { useEffect, useRef } from 'react';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import {
  type ConnectionEvent,
  connectionEvents,
  connectionStatus,
  DEFAULT_GRACE_MS,
} from '../../core/connection-status.js';
import type { StateSource } from './state-source.js';

/** Options of {@link useConnectionEvents}. */
export interface UseConnectionEventsOptions {
  /** How long an outage stays unannounced, as for `useConnectionStatus`. @defaultValue 5000 */
  readonly graceMs?: number;
  /** The clock of the grace period. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
}

/**
 * Calls `handler` with each `lost`, `restored` and `failed` event of `source` while the component
 * is mounted (the latest `handler` is called: it need not be memoised). A blip within the grace
 * period raises none. Nothing is called on the server or without a source.
 *
 * @example
 * ```tsx
 * import { useConnectionEvents } from 'redialer/react';
 *
 * function Toasts({ socket }: { socket: ReconnectingWebSocket | null }) {
 *   useConnectionEvents(socket, (event) => {
 *     if (event.type === 'restored') toast('Reconnected');
 *   });
 *   return null;
 * }
 * ```
 * @throws RangeError or TypeError for a bad `graceMs` or `scheduler` (when the effect runs).
 */
export function useConnectionEvents(
  source: StateSource | null | undefined,
  handler: (event: ConnectionEvent) => void,
  options: UseConnectionEventsOptions = {},
): void {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const scheduler = options.scheduler ?? asyncScheduler;
  useEffect(() => {
    if (source === null || source === undefined) return undefined;
    const status$ = connectionStatus(source.state$, {
      graceMs,
      scheduler,
      ...(source.degraded$ === undefined ? {} : { degraded: source.degraded$ }),
    });
    const subscription = connectionEvents(status$).subscribe((event) => {
      latest.current(event);
    });
    return () => {
      subscription.unsubscribe();
    };
  }, [source, graceMs, scheduler]);
}
