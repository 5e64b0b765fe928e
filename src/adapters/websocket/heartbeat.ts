/**
 * Dead-connection detection for one open socket. Any inbound message (and, on `ws`, any pong or
 * ping frame) counts as life; pings ask for it. The connection is dead when nothing has arrived for
 * `interval + timeout` ms. The first ping goes out after a random share of `interval` so that a fleet
 * of clients opened together does not ping in step (Discord's gateway does the same).
 *
 * It judges only silence it was awake for: when its timer runs more than `timeout` late (a throttled
 * or frozen page, a suspended machine), the silence may be the client's own, so it asks first — a
 * ping, and `timeout` ms for an answer (without a way to ask, `interval + timeout` from waking).
 * @module
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { RandomSource } from '../../backoff/backoff.js';
import { scheduleTimer, scheduleTimerAt } from '../../internal/schedule-timer.js';
import { ReadyState, type Message, type WebSocketLike } from './websocket-types.js';

/** The `heartbeat` option of {@link ReconnectingWebSocket}; every time is in milliseconds. */
export interface HeartbeatOptions {
  /** Time between pings. @defaultValue 25000 (socket.io's pingInterval) */
  readonly interval?: number;
  /** How much longer than `interval` a silence may last before the connection counts as dead. @defaultValue 20000 */
  readonly timeout?: number;
  /**
   * The application message that asks the server for an answer, where the socket has no protocol
   * ping (browsers, Node's own WebSocket). With `ws`, protocol ping frames are sent instead. Without
   * it, on a socket without protocol pings, the heartbeat is refused as a configuration that would
   * close a healthy but quiet connection, unless `serverSends` says the server speaks on its own.
   */
  readonly ping?: Message | (() => Message);
  /**
   * Recognises the server's answer to `ping`; a message it matches counts as life and is not
   * dispatched as a `message` event. Without it, answers are dispatched like any message.
   */
  readonly isPong?: (data: unknown) => boolean;
  /**
   * The server sends something at least every `interval` ms on its own (its own heartbeat, as
   * socket.io's server pings, or a steady feed): the client sends no ping and only watches inbound
   * traffic. @defaultValue false
   */
  readonly serverSends?: boolean;
}

/** The heartbeat settings after validation. */
export interface HeartbeatConfig {
  readonly interval: number;
  readonly timeout: number;
  readonly ping: (() => Message) | undefined;
  readonly isPong: ((data: unknown) => boolean) | undefined;
  readonly serverSends: boolean;
}

/** The running heartbeat of one connection. */
export interface Heartbeat {
  /** Something arrived: the connection is alive. */
  alive(): void;
  /** Checks expiry against the clock now (for moments when timers may have been throttled). */
  check(): void;
  /**
   * Asks the server now (a ping) and calls `answered` at the next sign of life; without one within
   * `timeout`, the connection is dead as usual. False (and nothing done) where it cannot ask.
   */
  verify(answered: () => void): boolean;
  /** Stops every timer and listener; idempotent. */
  stop(): void;
}

/** The part of `ws`'s WebSocket that protocol pings need. */
interface ProtocolPingSocket {
  ping(): void;
  on(event: 'ping' | 'pong', listener: () => void): unknown;
  removeListener(event: 'ping' | 'pong', listener: () => void): unknown;
}

/** Whether sockets of the class `WebSocket` send protocol pings (`ws` does; browsers' and Node's own do not). */
export function classHasProtocolPing(WebSocket: unknown): boolean {
  const prototype = (WebSocket as { readonly prototype?: Partial<ProtocolPingSocket> } | undefined)?.prototype;
  return typeof prototype?.ping === 'function' && typeof prototype.on === 'function';
}

function hasProtocolPing(socket: WebSocketLike): socket is WebSocketLike & ProtocolPingSocket {
  const candidate = socket as Partial<ProtocolPingSocket>;
  return (
    typeof candidate.ping === 'function' &&
    typeof candidate.on === 'function' &&
    typeof candidate.removeListener === 'function'
  );
}

/** What a heartbeat needs besides its settings. */
export interface HeartbeatContext {
  readonly scheduler: SchedulerLike;
  readonly random: RandomSource;
  /** Called once when the connection is found dead, with how long nothing had arrived. */
  readonly dead: (silence: number) => void;
  /** Receives an exception from the `ping` function. */
  readonly report: (error: unknown) => void;
}

/** Starts the heartbeat of an open socket. */
export function startHeartbeat(socket: WebSocketLike, config: HeartbeatConfig, context: HeartbeatContext): Heartbeat {
  const { scheduler } = context;
  let lastLife = scheduler.now();
  /** After a late timer: the silence is judged at this time instead (undefined: not asking). */
  let askedUntil: number | undefined;
  let stopped = false;
  let pingTimer: Subscription | undefined;
  let expiryTimer: Subscription | undefined;
  const protocol = hasProtocolPing(socket);
  const canAsk = !config.serverSends && (protocol || config.ping !== undefined);
  /** Waiting for the answer to `verify()`. */
  let onAnswer: (() => void) | undefined;
  const onFrame = (): void => {
    lastLife = scheduler.now();
    askedUntil = undefined;
    const answered = onAnswer;
    onAnswer = undefined;
    answered?.();
  };

  const ping = (): void => {
    if (socket.readyState !== ReadyState.OPEN || config.serverSends) return;
    try {
      if (protocol) socket.ping();
      else if (config.ping !== undefined) socket.send(config.ping());
    } catch (error) {
      context.report(error);
    }
  };

  const sendPing = (): void => {
    if (stopped) return;
    ping();
    pingTimer = scheduleTimer(scheduler, config.interval, sendPing);
  };

  const check = (): void => {
    if (stopped) return;
    const expiry = askedUntil ?? lastLife + config.interval + config.timeout;
    const now = scheduler.now();
    if (now >= expiry) {
      if (askedUntil === undefined && now - expiry > config.timeout) {
        // Late by more than the timeout: the client was asleep, not only the server silent. Ask first.
        askedUntil = now + (canAsk ? config.timeout : config.interval + config.timeout);
        ping();
        check();
        return;
      }
      stop();
      context.dead(now - lastLife);
      return;
    }
    expiryTimer?.unsubscribe();
    expiryTimer = scheduleTimerAt(scheduler, expiry, check);
  };

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    onAnswer = undefined;
    pingTimer?.unsubscribe();
    expiryTimer?.unsubscribe();
    if (protocol) {
      socket.removeListener('pong', onFrame);
      socket.removeListener('ping', onFrame);
    }
  };

  if (protocol) {
    socket.on('pong', onFrame);
    socket.on('ping', onFrame);
  }
  const verify = (answered: () => void): boolean => {
    if (stopped || !canAsk) return false;
    onAnswer = answered;
    askedUntil = scheduler.now() + config.timeout;
    ping();
    check();
    return true;
  };

  pingTimer = scheduleTimer(scheduler, context.random() * config.interval, sendPing);
  check();
  return { alive: onFrame, check, verify, stop };
}
