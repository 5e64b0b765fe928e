/**
 * A {@link Connector} over node:http2 that counts a connection as established only when the
 * server's SETTINGS frame arrives (the session's `remoteSettings` event), not at TCP or TLS connect.
 * A peer that accepts TCP but never speaks HTTP/2 therefore never reaches READY and its attempt is cut
 * at the manager's deadline, max(backoff deadline, minConnectTimeout) — the gap that grpc-js leaves
 * open (grpc/grpc-node#2785).
 * @module
 */
import {
  type ClientHttp2Session,
  connect,
  type ClientSessionOptions,
  type SecureClientSessionOptions,
} from 'node:http2';
import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Connector } from '../connector.js';
import { ConnectionClosedError } from '../errors/connection-closed-error.js';
import { checkOptionsObject, describeValue, optionalNumber } from '../validate.js';
import { GoawayError } from './goaway-error.js';
import { KeepaliveTimeoutError } from './keepalive-timeout-error.js';

const MAX_TIMER = 2 ** 31 - 1;

/** Options of {@link http2Connector}. Times are in milliseconds. */
export interface Http2ConnectorOptions {
  /**
   * Passed to `http2.connect()`: TLS material (`ca`, `cert`, `key`, `servername`…), HTTP/2 settings,
   * `createConnection`. The authority's scheme picks TLS (`https:`) or plaintext (`http:`).
   */
  readonly connectOptions?: ClientSessionOptions | SecureClientSessionOptions;
  /** Send a keepalive PING this long after the last one was answered; Infinity sends none. @defaultValue Infinity */
  readonly keepaliveTime?: number;
  /** How long a keepalive PING may go unanswered before the connection is ended. @defaultValue 20000 */
  readonly keepaliveTimeout?: number;
  /** The clock for the keepalive timers. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
}

/**
 * A connector that opens one HTTP/2 session per attempt and emits it on the server's SETTINGS frame.
 *
 * The connection ends (the Observable errors) on a GOAWAY frame ({@link GoawayError}), a session or
 * socket error, an unanswered keepalive PING ({@link KeepaliveTimeoutError}), or a socket close
 * ({@link ConnectionClosedError}). Teardown (the manager cut the attempt, went idle or shut down)
 * destroys the session; after a GOAWAY it closes it gracefully instead, so streams the server agreed
 * to finish can finish.
 *
 * @example
 * ```ts
 * const manager = new ConnectionManager({
 *   connector: http2Connector('https://api.example.test', { keepaliveTime: 30_000 }),
 * });
 * manager.connect();
 * ```
 */
export function http2Connector(authority: string | URL, options: Http2ConnectorOptions = {}): Connector<ClientHttp2Session> {
  const raw = checkOptionsObject('http2Connector options', options);
  let url: URL;
  try {
    url = new URL(authority);
  } catch (cause) {
    throw new TypeError(`redialer: http2Connector needs an absolute http: or https: URL, got ${describeValue(authority)}`, { cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`redialer: http2Connector needs an http: or https: URL, got ${JSON.stringify(url.href)}`);
  }
  const keepaliveTime = optionalNumber('keepaliveTime', raw['keepaliveTime'], Infinity, { min: 1, max: MAX_TIMER, allowInfinity: true });
  const keepaliveTimeout = optionalNumber('keepaliveTimeout', raw['keepaliveTimeout'], 20_000, { min: 1, max: MAX_TIMER });
  const scheduler = (raw['scheduler'] ?? asyncScheduler) as SchedulerLike;
  if (typeof scheduler.schedule !== 'function') {
    throw new TypeError(`redialer: option "scheduler" must be an RxJS SchedulerLike, got ${describeValue(scheduler)}`);
  }
  const connectOptions = options.connectOptions;

  return () =>
    new Observable<ClientHttp2Session>((subscriber) => {
      let goaway = false;
      let established = false;
      let timer: Subscription | undefined;
      const session = connect(url, connectOptions);

      const fail = (error: unknown): void => {
        subscriber.error(error);
      };
      const armKeepalive = (): void => {
        if (keepaliveTime === Infinity || subscriber.closed) return;
        timer = scheduler.schedule(() => {
          let answered = false;
          timer = scheduler.schedule(() => {
            if (!answered) fail(new KeepaliveTimeoutError(keepaliveTimeout));
          }, keepaliveTimeout);
          // ping() returns false when too many PINGs are outstanding; the timeout still ends a dead connection.
          session.ping((error) => {
            answered = true;
            timer?.unsubscribe();
            if (error === null) armKeepalive();
            else fail(error);
          });
        }, keepaliveTime);
      };

      session.once('remoteSettings', () => {
        established = true;
        subscriber.next(session);
        armKeepalive();
      });
      session.on('goaway', (errorCode: number, lastStreamId?: number) => {
        goaway = true;
        fail(new GoawayError(errorCode, lastStreamId));
      });
      session.on('error', fail);
      session.once('close', () => {
        fail(
          new ConnectionClosedError(
            established ? 'the HTTP/2 connection closed' : "the connection closed before the server's SETTINGS frame",
          ),
        );
      });

      return () => {
        timer?.unsubscribe();
        session.removeAllListeners('remoteSettings');
        session.off('error', fail);
        // Errors after teardown (a socket reset while destroying) have nobody to report to.
        session.on('error', () => undefined);
        if (goaway) session.close();
        else session.destroy();
      };
    });
}
