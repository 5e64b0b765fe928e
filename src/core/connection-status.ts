/**
 * Connection state for people: what a UI should show, derived from any `state$` — a
 * `ConnectionManager`'s, a `ManagedChannel`'s or a `ReconnectingWebSocket`'s. Short blips stay
 * hidden for a grace period (`graceMs`, 5 s by default, as Stream's and Liveblocks' SDKs do); being
 * offline and failing for good show at once.
 * @module
 */
import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { ConnectionSnapshot } from './connection-snapshot.js';
import { scheduleTimerAt } from '../internal/schedule-timer.js';
import { checkOptionsObject, optionalNumber, optionalPort, optionalScheduler } from '../internal/validate.js';

/**
 * What a person should be told about a connection:
 * - `connected`: up.
 * - `connecting`: not connected yet and trying (the first connection; also a source that is idle
 *   before its first connection, such as a lazy gRPC channel).
 * - `reconnecting`: was connected, lost it, and is trying again (or idle after the loss).
 * - `offline`: the source holds its attempts until the network is back instead of retrying: IDLE with
 *   `paused: true` (`pause()`, which `ReconnectingWebSocket` calls while the browser is offline); also
 *   READY with `paused: true`, a connection still open while offline, which may be dead.
 * - `unavailable`: connected, but the service cannot serve: the server reports it is not serving
 *   (health checking: TRANSIENT_FAILURE with `connected: true`), or the `degraded` signal says calls
 *   keep failing (a proxy answering 502/503 for a backend that is down). No attempt is made for it;
 *   the phase ends when the service answers again, or becomes `reconnecting` if the connection ends.
 * - `failed`: gave up for good (SHUTDOWN); no more attempts.
 */
export type ConnectionPhase = 'connected' | 'connecting' | 'reconnecting' | 'offline' | 'unavailable' | 'failed';

/** One immutable value per change of what a UI shows; see {@link connectionStatus}. */
export interface ConnectionStatus {
  /** What is happening. */
  readonly phase: ConnectionPhase;
  /**
   * Whether to show it: false while connected, and during the grace period of an outage (so that a
   * blip never flashes a banner); true once the outage has lasted `graceMs`, at once for `offline`
   * and for a failure (not for a `shutdown()` the app asked for). Once true, it stays true until the
   * connection is back.
   */
  readonly visible: boolean;
  /** When this phase began, on the status scheduler's clock (ms). */
  readonly since: number;
  /** The source's attempt number (see `ConnectionSnapshot.attempt`). */
  readonly attempt: number;
  /** While waiting between attempts: when the next attempt starts (the countdown's target); else undefined. */
  readonly retryAt: number | undefined;
  /** Why the connection is not up: the last error, or the permanent failure; undefined while connected. */
  readonly reason: unknown;
}

/** Options of {@link connectionStatus}. */
export interface ConnectionStatusOptions {
  /**
   * How long (ms) an outage stays hidden (`visible: false`) before it is shown. 0 shows every
   * outage at once. @defaultValue 5000
   */
  readonly graceMs?: number;
  /** The scheduler for the grace timer and `since`: pass the source's. @defaultValue asyncScheduler */
  readonly scheduler?: SchedulerLike;
  /**
   * A signal that the service is failing although the connection is up: emits the reason while it is
   * (any value but undefined), and undefined once it is not. While the source is READY and the last
   * value is a reason, the phase is `unavailable` with that reason. `ManagedChannel.degraded$` is one
   * (calls that keep failing UNAVAILABLE through a proxy); an application can feed its own. Errors and
   * completion of this signal are ignored: it stops counting, and the source goes on. @defaultValue none
   */
  readonly degraded?: Observable<unknown>;
}

/** What {@link connectionStatus} reads: a manager's snapshot, of any transport; `paused: true` (IDLE or READY) is offline. */
export type StatusSnapshot = ConnectionSnapshot;

/** Default of {@link ConnectionStatusOptions.graceMs}: 5 s, as Stream's and Liveblocks' SDKs use. */
export const DEFAULT_GRACE_MS = 5000;

function isOffline(snapshot: StatusSnapshot): boolean {
  return snapshot.state === 'IDLE' && snapshot.paused === true;
}

/**
 * Derives {@link ConnectionStatus} from snapshots. Each subscription subscribes to `state$` once,
 * emits the current status at once, then on every change of what a UI shows (never twice the same),
 * and completes when `state$` completes. The grace timer runs on `options.scheduler` and is
 * cancelled on unsubscribe.
 *
 * @example
 * ```ts
 * import { connectionStatus } from 'redialer';
 * import { ReconnectingWebSocket } from 'redialer/websocket';
 *
 * const socket = new ReconnectingWebSocket('wss://example.test/feed');
 * connectionStatus(socket.state$).subscribe((s) => {
 *   banner.hidden = !s.visible;
 *   banner.textContent = s.phase === 'offline' ? 'Waiting for network…' : `${s.phase}…`;
 * });
 * declare const banner: HTMLElement;
 * ```
 * @throws RangeError or TypeError when `graceMs` is not a finite number ≥ 0.
 */
export function connectionStatus(
  state$: Observable<StatusSnapshot>,
  options: ConnectionStatusOptions = {},
): Observable<ConnectionStatus> {
  const checked = checkOptionsObject('connectionStatus options', options);
  const graceMs = optionalNumber('graceMs', checked['graceMs'], DEFAULT_GRACE_MS, { min: 0 });
  const scheduler = optionalScheduler('scheduler', checked['scheduler'], asyncScheduler);
  const degraded$ = optionalPort<Observable<unknown>>('degraded', checked['degraded'], ['subscribe']);
  return new Observable<ConnectionStatus>((subscriber) => {
    let current: ConnectionStatus | undefined;
    let latest: StatusSnapshot | undefined;
    /** The last reason the `degraded` signal gave; undefined while it gives none. */
    let degradedBy: unknown = undefined;
    let everConnected = false;
    /** When the current outage began (undefined while connected, idle or failed). */
    let outageSince: number | undefined;
    let shown = false;
    let grace: Subscription | undefined;

    const publish = (next: Omit<ConnectionStatus, 'since'>): void => {
      const previous = current;
      if (
        previous?.phase === next.phase &&
        previous.visible === next.visible &&
        previous.attempt === next.attempt &&
        previous.retryAt === next.retryAt &&
        previous.reason === next.reason
      ) {
        return;
      }
      const since = previous?.phase === next.phase ? previous.since : scheduler.now();
      current = Object.freeze({ ...next, since });
      subscriber.next(current);
    };

    /** An outage: hidden for the grace period from its start, then shown until it is over. */
    const outage = (status: Omit<ConnectionStatus, 'since' | 'visible'>): void => {
      const now = scheduler.now();
      outageSince ??= now;
      const showAt = outageSince + graceMs;
      if (now >= showAt) shown = true;
      publish({ ...status, visible: shown });
      if (!shown) {
        grace = scheduleTimerAt(scheduler, showAt, () => {
          grace = undefined;
          shown = true;
          publish({ ...status, visible: true });
        });
      }
    };

    const onSnapshot = (snapshot: StatusSnapshot): void => {
      latest = snapshot;
      grace?.unsubscribe();
      grace = undefined;
      const base = { attempt: snapshot.attempt, retryAt: undefined, reason: snapshot.lastError };
      switch (snapshot.state) {
        case 'READY':
          everConnected = true;
          if (snapshot.paused === true) {
            // Offline with the connection still open: it may be dead, and nothing is sent on it.
            outageSince ??= scheduler.now();
            shown = true;
            publish({ ...base, phase: 'offline', visible: true });
            return;
          }
          if (degradedBy !== undefined) {
            outage({ ...base, phase: 'unavailable', reason: degradedBy });
            return;
          }
          outageSince = undefined;
          shown = false;
          publish({ ...base, phase: 'connected', visible: false, reason: undefined });
          return;
        case 'SHUTDOWN':
          outageSince = undefined;
          publish({ ...base, phase: 'failed', visible: snapshot.reason !== 'shutdown' });
          return;
        case 'IDLE':
          if (isOffline(snapshot)) {
            outageSince ??= scheduler.now();
            shown = true;
            publish({ ...base, phase: 'offline', visible: true });
          } else {
            // Not trying (idle channel, lazy connect, autoReconnect off): nothing to count down.
            outageSince = undefined;
            shown = false;
            publish({ ...base, phase: everConnected ? 'reconnecting' : 'connecting', visible: false });
          }
          return;
        case 'TRANSIENT_FAILURE':
          if (snapshot.connected === true) {
            everConnected = true;
            outage({ ...base, phase: 'unavailable' });
            return;
          }
          outage({ ...base, phase: everConnected ? 'reconnecting' : 'connecting', retryAt: snapshot.nextAttemptAt });
          return;
        case 'CONNECTING':
          outage({ ...base, phase: everConnected ? 'reconnecting' : 'connecting' });
          return;
      }
    };

    // Subscribed first, so that the status of the source's first snapshot already counts the signal.
    const degradedSubscription = degraded$?.subscribe({
      next: (reason: unknown) => {
        if (reason === degradedBy) return;
        degradedBy = reason;
        if (latest?.state === 'READY') onSnapshot(latest);
      },
      error: () => {
        degradedBy = undefined;
        if (latest?.state === 'READY') onSnapshot(latest);
      },
    });
    const subscription = state$.subscribe({
      next: onSnapshot,
      error: (error: unknown) => {
        subscriber.error(error);
      },
      complete: () => {
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      degradedSubscription?.unsubscribe();
      grace?.unsubscribe();
    };
  });
}

/** What {@link connectionEvents} emits. */
export interface ConnectionEvent {
  /**
   * `lost`: a connection that was up has been down for longer than the grace period (or the device
   * went offline) — show a toast; `restored`: it is back after a `lost`; `failed`: it gave up for good.
   */
  readonly type: 'lost' | 'restored' | 'failed';
  /** The status that caused the event. */
  readonly status: ConnectionStatus;
}

/**
 * The `lost`, `restored` and `failed` events of a status stream, as Liveblocks' `lost-connection`
 * events: a blip within the grace period raises none, an outage raises `lost` once and `restored`
 * once it is over.
 *
 * @example
 * ```ts
 * import { connectionEvents, connectionStatus, type ConnectionManager } from 'redialer';
 *
 * declare const manager: ConnectionManager;
 * connectionEvents(connectionStatus(manager.state$)).subscribe((e) => {
 *   if (e.type === 'restored') console.log('Reconnected');
 * });
 * ```
 */
export function connectionEvents(status$: Observable<ConnectionStatus>): Observable<ConnectionEvent> {
  return new Observable<ConnectionEvent>((subscriber) => {
    let wasConnected = false;
    let lost = false;
    let failed = false;
    return status$.subscribe({
      next: (status) => {
        if (status.phase === 'connected') {
          if (lost) subscriber.next({ type: 'restored', status });
          wasConnected = true;
          lost = false;
        } else if (status.phase === 'failed') {
          if (status.visible && !failed) subscriber.next({ type: 'failed', status });
          failed = true;
        } else if (status.visible && wasConnected && !lost) {
          lost = true;
          subscriber.next({ type: 'lost', status });
        }
      },
      error: (error: unknown) => {
        subscriber.error(error);
      },
      complete: () => {
        subscriber.complete();
      },
    });
  });
}
