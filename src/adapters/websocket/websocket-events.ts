/**
 * The events the client makes itself, where no socket gave one: a `close` for a socket it let go of
 * (reconnect(), an attempt cut at its deadline, a dead heartbeat) and an `error` for an attempt that
 * failed before it had a socket. They are DOM Events with the constructors of reconnecting-websocket
 * and partysocket, so that code importing those classes from either compiles and runs unchanged. A
 * socket's own events (open, message, a close it reported) are passed through as the socket gave them.
 * @module
 */
import { describeSafely, readSafely } from '../../internal/read-safely.js';

/** A `close` event made by the client. */
export class CloseEvent extends Event {
  /** The close code (1006 when the connection was lost without a close frame). */
  readonly code: number;
  /** The close reason, or ''. */
  readonly reason: string;
  /** Whether the closing handshake completed: false for 1006, true otherwise unless given. */
  readonly wasClean: boolean;

  /**
   * `target` is accepted for the peers' signature and ignored: an event's target is set when it is
   * dispatched.
   */
  constructor(code = 1000, reason = '', _target?: unknown, wasClean = code !== 1006) {
    super('close');
    this.code = code;
    this.reason = reason;
    this.wasClean = wasClean;
  }
}

/** An `error` event made by the client: `error` is what failed, `message` its message. */
export class ErrorEvent extends Event {
  readonly message: string;
  readonly error: unknown;

  /** `target` is accepted for the peers' signature and ignored, as for {@link CloseEvent}. */
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- kept for the peers' signature
  constructor(error: unknown, _target?: unknown) {
    super('error');
    this.error = error;
    const message = readSafely(error, 'message');
    this.message = typeof message === 'string' ? message : describeSafely(error);
  }
}
