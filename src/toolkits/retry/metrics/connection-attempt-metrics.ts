/**
 * The retry counters for a connection manager's connection attempts, derived from its `state$` alone
 * (the manager needs no change): entering CONNECTING is an attempt (a retry when its attempt number
 * is above 1, that is, when earlier attempts of the backoff cycle failed), entering READY a success,
 * entering TRANSIENT_FAILURE a scheduled retry, and SHUTDOWN for a permanent failure or a policy error
 * a permanent failure. A server not serving on an open connection (TRANSIENT_FAILURE with `connected`)
 * and serving again count as nothing: no attempt ended and none was made. A manager never gives up on its own, so it reports no give-ups.
 * @module
 */
import type { Observable, Subscription } from 'rxjs';
import type { ConnectionSnapshot } from '../../../core/connection-snapshot.js';
import type { RetryEvent, RetryEventSink } from '../core/retry-event.js';
import { emit } from '../core/retry-event.js';
import { describeSafely } from '../../../internal/read-safely.js';

/** The retry events that the move from `previous` to `snapshot` stands for. */
export function connectionAttemptEvents(
  previous: ConnectionSnapshot | undefined,
  snapshot: ConnectionSnapshot,
): RetryEvent[] {
  if (previous?.state === snapshot.state) return [];
  // A server that is not serving on an open connection (health checking) neither ends an attempt nor
  // plans one, and serving again is no new connection.
  if (snapshot.state === 'TRANSIENT_FAILURE' && snapshot.connected === true) return [];
  if (snapshot.state === 'READY' && previous?.state === 'TRANSIENT_FAILURE' && previous.connected === true) return [];
  switch (snapshot.state) {
    case 'CONNECTING':
      return [{ type: 'attempt', attempt: Math.max(1, snapshot.attempt) }];
    case 'READY':
      return [{ type: 'success', attempt: Math.max(1, snapshot.attempt) }];
    case 'TRANSIENT_FAILURE':
      return [
        {
          type: 'retry',
          attempt: snapshot.attempt,
          delay: Math.max(0, snapshot.nextAttemptAt - snapshot.since),
          source: 'backoff',
          reason: describeSafely(snapshot.lastError),
          error: snapshot.lastError,
        },
      ];
    case 'SHUTDOWN':
      if (snapshot.reason === 'shutdown') return [];
      return [
        {
          type: 'permanent',
          attempt: snapshot.attempt,
          reason:
            snapshot.reason === 'permanent-failure'
              ? `permanent failure: ${describeSafely(snapshot.lastError)}`
              : `the backoff policy failed: ${describeSafely(snapshot.lastError)}`,
          error: snapshot.lastError,
        },
      ];
    case 'IDLE':
      return [];
  }
}

/**
 * Feeds a connection manager's attempts into `sink` (for example a {@link RetryMetrics}) until the
 * returned subscription is unsubscribed or the manager shuts down.
 *
 * @example
 * ```ts
 * const metrics = new RetryMetrics({ meter, attributes: { 'server.address': host } });
 * const subscription = recordConnectionAttempts(manager.state$, metrics);
 * ```
 */
export function recordConnectionAttempts(state$: Observable<ConnectionSnapshot>, sink: RetryEventSink): Subscription {
  let previous: ConnectionSnapshot | undefined;
  return state$.subscribe((snapshot) => {
    const events = connectionAttemptEvents(previous, snapshot);
    previous = snapshot;
    for (const event of events) emit(sink, event);
  });
}
