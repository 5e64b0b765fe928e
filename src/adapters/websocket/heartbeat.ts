/**
 * Dead-connection detection for one open socket. Any inbound message (and, on `ws`, any pong or
 * ping frame) counts as life; pings ask for it. The connection is dead when nothing has arrived for
 * `interval + timeout` ms. The first ping goes out after a random share of `interval` so that a fleet
 * of clients opened together does not ping in step (Discord's gateway does the same).
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
   * it (and without protocol pings) the heartbeat only watches inbound traffic.
   */
  readonly ping?: Message | (() => Message);
  /**
   * Recognises the server's answer to `ping`; a message it matches counts as life and is not
   * dispatched as a `message` event. Without it, answers are dispatched like any message.
   */
  readonly isPong?: (data: unknown) => boolean;
}

/** The heartbeat settings after validation. */
export interface HeartbeatConfig {
  readonly interval: number;
  readonly timeout: number;
  readonly ping: (() => Message) | undefined;
  readonly isPong: ((data: unknown) => boolean) | undefined;
}

/** The running heartbeat of one connection. */
export interface Heartbeat {
  /** Something arrived: the connection is alive. */
  alive(): void;
  /** Checks expiry against the clock now (for moments when timers may have been throttled). */
  check(): void;
  /** Stops every timer and listener; idempotent. */
  stop(): void;
}

/** The part of `ws`'s WebSocket that protocol pings need. */
interface ProtocolPingSocket {
  ping(): void;
  on(event: 'ping' | 'pong', listener: () => void): unknown;
  removeListener(event: 'ping' | 'pong', listener: () => void): unknown;
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
  let stopped = false;
  let pingTimer: Subscription | undefined;
  let expiryTimer: Subscription | undefined;
  const protocol = hasProtocolPing(socket);
  const onFrame = (): void => {
    lastLife = scheduler.now();
  };

  const sendPing = (): void => {
    if (stopped) return;
    if (socket.readyState === ReadyState.OPEN) {
      try {
        if (protocol) socket.ping();
        else if (config.ping !== undefined) socket.send(config.ping());
      } catch (error) {
        context.report(error);
      }
    }
    pingTimer = scheduleTimer(scheduler, config.interval, sendPing);
  };

  const check = (): void => {
    if (stopped) return;
    const expiry = lastLife + config.interval + config.timeout;
    const now = scheduler.now();
    if (now >= expiry) {
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
  pingTimer = scheduleTimer(scheduler, context.random() * config.interval, sendPing);
  check();
  return { alive: onFrame, check, stop };
}
