/**
 * Announced downtime: close every client with the server's word on when to come back, each client
 * a different time, so that the herd returns at the pace the server can take.
 * @module
 */
import { MAX_DELAY_MS, type RandomSource } from '../../backoff/backoff.js';
import { checkOptionsObject, checkNumber, optionalFunction, optionalNumber } from '../../internal/validate.js';
import { drainHint } from './herd-plan.js';

/** Options of {@link drain} and {@link drainHttp2}; times in milliseconds. */
export interface DrainOptions {
  /** How long the server expects to be down, from now. Required. */
  readonly expectedDowntime: number;
  /** Connections the server can accept per second once it is back. Required. */
  readonly capacity: number;
  /** How long to wait for the clients to close before cutting the rest. @defaultValue 5000 */
  readonly closeTimeout?: number;
  /** The random source of the spread. @defaultValue `Math.random` */
  readonly random?: RandomSource;
}

/** What {@link drain} did. */
export interface DrainReport {
  /** Clients told when to come back. */
  readonly clients: number;
  /** Clients that had not closed by `closeTimeout` and were cut. */
  readonly terminated: number;
  /** The shortest and longest hint handed out, ms from the drain. */
  readonly hints: { readonly min: number; readonly max: number };
}

/** The part of a `ws` WebSocket that {@link drain} uses. */
export interface DrainableSocket {
  /** 1 while open. */
  readonly readyState: number;
  /** Starts the closing handshake with a code and a reason. */
  close(code?: number, reason?: string): void;
  /** Cuts the connection at once. */
  terminate(): void;
  /** Calls `listener` once the socket has closed. */
  once(event: 'close', listener: () => void): unknown;
}

/** The part of a `ws` WebSocketServer that {@link drain} uses. */
export interface DrainableServer {
  readonly clients: ReadonlySet<DrainableSocket>;
}

/** The part of an `http2.Http2Session` that {@link drainHttp2} uses. */
export interface GoawaySession {
  /** Whether the session has closed. */
  readonly closed: boolean;
  /** Sends a GOAWAY frame with an error code and debug data. */
  goaway(code?: number, lastStreamID?: number, opaqueData?: Uint8Array): void;
}

/** The close reason (and HTTP/2 GOAWAY debug data) that carries a hint: `retry-after=<ms>ms`. */
export function retryHintText(ms: number): string {
  return `retry-after=${String(Math.max(0, Math.round(ms)))}ms`;
}

interface Resolved {
  readonly expectedDowntime: number;
  readonly capacity: number;
  readonly closeTimeout: number;
  readonly random: RandomSource;
}

function resolveDrain(options: DrainOptions): Resolved {
  const raw = checkOptionsObject('drain options', options);
  return {
    expectedDowntime: checkNumber('expectedDowntime', raw['expectedDowntime'], { min: 0, max: MAX_DELAY_MS }),
    capacity: checkNumber('capacity', raw['capacity'], { min: 1, max: 1e9 }),
    closeTimeout: optionalNumber('closeTimeout', raw['closeTimeout'], 5000, { min: 0, max: MAX_DELAY_MS }),
    random: optionalFunction('random', raw['random'], Math.random),
  };
}

const OPEN = 1;

/**
 * Closes every open client of a `ws` server with close code 1012 (service restart) and a reason
 * `retry-after=<ms>ms`, each client its own hint: expectedDowntime + U(0, 1.1 × N / capacity). A
 * redialer `ReconnectingWebSocket` waits at least that long (`serverHints: 'exact'`: exactly that
 * long, within its backoff's bounds). Resolves once every client has closed; clients still open after
 * `closeTimeout` are cut. Stop accepting new connections (or shut the server down) yourself.
 *
 * @example
 * ```ts
 * import { WebSocketServer } from 'ws';
 * import { drain } from 'redialer/server';
 *
 * const wss = new WebSocketServer({ port: 8080 });
 * // before a deploy that takes about 30 s; the new server accepts 1,000 connections per second
 * const report = await drain(wss, { expectedDowntime: 30_000, capacity: 1000 });
 * wss.close();
 * ```
 */
export async function drain(wss: DrainableServer, options: DrainOptions): Promise<DrainReport> {
  const o = resolveDrain(options);
  if (typeof wss !== 'object' || !((wss.clients as unknown) instanceof Set)) {
    throw new TypeError('redialer: drain() needs a ws WebSocketServer (an object with a clients Set)');
  }
  const open = [...wss.clients].filter((socket) => socket.readyState === OPEN);
  const plan = { expectedDowntime: o.expectedDowntime, clients: open.length, capacity: o.capacity };
  let min = Infinity;
  let max = -Infinity;
  const closed = open.map(
    (socket) =>
      new Promise<boolean>((resolve) => {
        const hint = drainHint(plan, o.random);
        min = Math.min(min, hint);
        max = Math.max(max, hint);
        const timer = setTimeout(() => {
          socket.terminate();
          resolve(true);
        }, o.closeTimeout);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve(false);
        });
        socket.close(1012, retryHintText(hint));
      }),
  );
  const cut = (await Promise.all(closed)).filter(Boolean).length;
  return { clients: open.length, terminated: cut, hints: open.length === 0 ? { min: 0, max: 0 } : { min, max } };
}

/**
 * The HTTP/2 (gRPC) counterpart of {@link drain}: sends each session a GOAWAY with NO_ERROR (a
 * graceful shutdown: streams in flight finish) whose debug data is `retry-after=<ms>ms`, each
 * session its own hint. Track your server's sessions (`server.on('session', …)`) and pass them.
 * Clients that do not read the debug data (grpc-js) reconnect on their own backoff. Returns the
 * hints handed out.
 *
 * @example
 * ```ts
 * import { createServer, type Http2Session } from 'node:http2';
 * import { drainHttp2 } from 'redialer/server';
 *
 * const sessions = new Set<Http2Session>();
 * const server = createServer();
 * server.on('session', (s) => { sessions.add(s); s.once('close', () => sessions.delete(s)); });
 * drainHttp2(sessions, { expectedDowntime: 30_000, capacity: 1000 });
 * ```
 */
export function drainHttp2(sessions: Iterable<GoawaySession>, options: DrainOptions): DrainReport {
  const o = resolveDrain(options);
  const live = [...sessions].filter((s) => !s.closed);
  const plan = { expectedDowntime: o.expectedDowntime, clients: live.length, capacity: o.capacity };
  let min = Infinity;
  let max = -Infinity;
  for (const session of live) {
    const hint = drainHint(plan, o.random);
    min = Math.min(min, hint);
    max = Math.max(max, hint);
    session.goaway(0, undefined, new TextEncoder().encode(retryHintText(hint)));
  }
  return { clients: live.length, terminated: 0, hints: live.length === 0 ? { min: 0, max: 0 } : { min, max } };
}
