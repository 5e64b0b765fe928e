/**
 * What `state$` emits: one immutable snapshot per state, with the data that belongs to that state.
 * All times are milliseconds on the manager's scheduler clock (`scheduler.now()`).
 * @module
 */

interface SnapshotBase {
  /** When this state was entered. */
  readonly since: number;
  /**
   * The number of the current (CONNECTING), establishing (READY) or last attempt in the current
   * backoff cycle; 0 when no attempt has been made since the last backoff reset.
   */
  readonly attempt: number;
  /** The error that ended the last attempt or connection, if any; cleared on READY. */
  readonly lastError: unknown;
}

/** No connection and no attempt. */
export interface IdleSnapshot extends SnapshotBase {
  readonly state: 'IDLE';
  /**
   * True while the manager holds an attempt it wants to make because attempts are paused
   * (`pause()`, e.g. while offline): `resume()` starts it with a fresh backoff.
   */
  readonly paused?: true;
}

/** An attempt is in flight; `since` is its start. */
export interface ConnectingSnapshot extends SnapshotBase {
  readonly state: 'CONNECTING';
  /** When the attempt will be cut: max(backoff deadline, start + minConnectTimeout). */
  readonly timeoutAt: number;
}

/** Connected: the connector signalled establishment. */
export interface ReadySnapshot<C> extends SnapshotBase {
  readonly state: 'READY';
  /** The value the connector emitted on establishment (a socket, a session, a channel…). */
  readonly connection: C;
  /**
   * True while attempts are paused (`pause()`: the browser says it is offline) on an open
   * connection, which may be dead by now: `connectionStatus` shows `offline`, and an adapter holds
   * what it would send until `resume()`.
   */
  readonly paused?: true;
}

/**
 * Waiting for the next attempt; or, with `connected`, connected to a server that reports it is not
 * serving (health checking, gRFC A17: see `AttemptContext.reportServing`).
 */
export interface TransientFailureSnapshot<C = unknown> extends SnapshotBase {
  readonly state: 'TRANSIENT_FAILURE';
  /**
   * When the next attempt starts, unless `resetBackoff()` or `wake()` starts it sooner. Under
   * `pause()` a wait the server asked for runs on, and when it ends the manager holds (IDLE with
   * `paused: true`) instead of attempting. Infinity while `connected`: no attempt is planned, the
   * connection stays open, and only its end leads to one.
   */
  readonly nextAttemptAt: number;
  /**
   * True while the connection is open but the server reports it is not serving (`lastError` says
   * why, e.g. a `NotServingError`); the state goes back to READY when it serves again, with no
   * attempt and no change to the backoff. Absent while waiting for the next attempt.
   */
  readonly connected?: true;
  /** With `connected`: the open connection (the value the connector emitted). */
  readonly connection?: C;
}

/** Why a manager is in SHUTDOWN. */
export type ShutdownReason = 'shutdown' | 'permanent-failure' | 'policy-error';

/** Terminal. */
export interface ShutdownSnapshot extends SnapshotBase {
  readonly state: 'SHUTDOWN';
  /**
   * `shutdown`: `shutdown()` was called; `permanent-failure`: the connector failed with a
   * PermanentError (in `lastError`); `policy-error`: the backoff policy threw (in `lastError`).
   */
  readonly reason: ShutdownReason;
}

/** A connection manager's state with its per-state data; discriminated on `state`. */
export type ConnectionSnapshot<C = unknown> =
  IdleSnapshot | ConnectingSnapshot | ReadySnapshot<C> | TransientFailureSnapshot<C> | ShutdownSnapshot;
