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
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Connector } from '../../core/connector.js';
import { ConnectionClosedError } from '../../errors/connection-closed-error.js';
import { retryAfter } from '../../errors/retry-after-error.js';
import { scheduleTimer } from '../../internal/schedule-timer.js';
import { checkOptionsObject, describeValue, optionalScheduler } from '../../internal/validate.js';
import { parseCloseReasonDelay } from '../../backoff/server-hint.js';
import { GoawayError } from './goaway-error.js';
import { KeepalivePolicy, type KeepaliveOptions } from './keepalive.js';
import { KeepaliveTimeoutError } from './keepalive-timeout-error.js';
import { checkHealthCheckOptions, healthChecked, type HealthCheckOptions } from './health-check/health-checked.js';
import { http2HealthWatch } from './health-check/http2-health-watch.js';

/** Options of {@link http2Connector}. Times are in milliseconds. */
export interface Http2ConnectorOptions extends KeepaliveOptions {
  /**
   * Passed to `http2.connect()`: TLS material (`ca`, `cert`, `key`, `servername`…), HTTP/2 settings,
   * `createConnection`. The authority's scheme picks TLS (`https:`) or plaintext (`http:`).
   */
  readonly connectOptions?: ClientSessionOptions | SecureClientSessionOptions;
  /** The clock for the keepalive timers and the health check's retries. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
  /**
   * Health checking per gRFC A17: one `grpc.health.v1.Health/Watch` stream on each connection, which
   * is emitted (READY) only after the first answer, and reported not serving while the server says
   * anything but SERVING (see `AttemptContext.reportServing`). Off by default, as in gRPC.
   * @defaultValue none
   */
  readonly healthCheck?: HealthCheckOptions;
}

/**
 * A connector that opens one HTTP/2 session per attempt and emits it on the server's SETTINGS frame.
 *
 * The connection ends (the Observable errors) on a GOAWAY frame ({@link GoawayError}, with its code
 * and debug data), a session or socket error (the error is the `cause` of a
 * {@link ConnectionClosedError} that names the server), an unanswered keepalive PING
 * ({@link KeepaliveTimeoutError}), or a socket close ({@link ConnectionClosedError}). Teardown (the
 * manager cut the attempt, went idle or shut down) destroys the session; after a GOAWAY it closes it
 * gracefully instead, so streams the server agreed to finish can finish.
 *
 * Keepalive follows gRFC A8 ({@link KeepaliveOptions}): PINGs only while a stream opened with
 * `session.request()` is open (unless `keepaliveWithoutCalls`), never more often than every 10 s, and
 * twice as far apart for this connector's later connections after each GOAWAY "too_many_pings".
 *
 * @example
 * ```ts
 * const manager = new ConnectionManager({
 *   connector: http2Connector('https://api.example.test', { keepaliveTime: 30_000 }),
 * });
 * manager.connect();
 * ```
 */
export function http2Connector(
  authority: string | URL,
  options: Http2ConnectorOptions = {},
): Connector<ClientHttp2Session> {
  const raw = checkOptionsObject('http2Connector options', options);
  let url: URL;
  try {
    url = new URL(authority);
  } catch (cause) {
    throw new TypeError(
      `redialer: http2Connector needs an absolute http: or https: URL, got ${describeValue(authority)}`,
      { cause },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`redialer: http2Connector needs an http: or https: URL, got ${JSON.stringify(url.href)}`);
  }
  const keepalive = new KeepalivePolicy(raw);
  const scheduler = optionalScheduler('scheduler', raw['scheduler'], asyncScheduler);
  const connectOptions = options.connectOptions;
  const server = url.host;
  const healthCheck = checkHealthCheckOptions(raw['healthCheck']);

  const connector: Connector<ClientHttp2Session> = () =>
    new Observable<ClientHttp2Session>((subscriber) => {
      let goaway = false;
      let established = false;
      let timer: Subscription | undefined;
      let openStreams = 0;
      // The keepalive time when this connection started: a later doubling applies to new connections.
      const keepaliveTime = keepalive.time;
      const session = connect(url, connectOptions);

      const fail = (error: unknown): void => {
        if (subscriber.closed) return;
        keepalive.onConnectionEnded(server, error);
        subscriber.error(error);
      };
      const pingsAllowed = (): boolean => keepalive.withoutCalls || openStreams > 0;
      const armKeepalive = (): void => {
        if (keepaliveTime === Infinity || subscriber.closed || timer !== undefined || !pingsAllowed()) return;
        timer = scheduleTimer(scheduler, keepaliveTime, () => {
          if (!pingsAllowed()) {
            // The last call ended while waiting: no PING until the next one opens.
            timer = undefined;
            return;
          }
          let answered = false;
          timer = scheduleTimer(scheduler, keepalive.timeout, () => {
            if (!answered) fail(new KeepaliveTimeoutError(keepalive.timeout));
          });
          // ping() returns false when too many PINGs are outstanding; the timeout still ends a dead connection.
          session.ping((error) => {
            answered = true;
            timer?.unsubscribe();
            timer = undefined;
            if (error === null) armKeepalive();
            else if (!session.destroyed) fail(error);
          });
        });
      };
      // Count the streams opened on this session, so that PINGs are sent only while a call is open.
      const request = session.request.bind(session);
      session.request = (...args: Parameters<ClientHttp2Session['request']>) => {
        const stream = request(...args);
        openStreams += 1;
        stream.once('close', () => {
          openStreams -= 1;
        });
        armKeepalive();
        return stream;
      };

      session.once('remoteSettings', () => {
        established = true;
        subscriber.next(session);
        armKeepalive();
      });
      session.on('goaway', (errorCode: number, lastStreamId?: number, opaqueData?: Buffer) => {
        goaway = true;
        const error = new GoawayError(errorCode, lastStreamId, opaqueData);
        // A graceful GOAWAY may say when to come back (redialer/server's drainHttp2: `retry-after=<ms>ms`).
        const hint =
          errorCode === 0 && opaqueData !== undefined
            ? parseCloseReasonDelay(opaqueData.toString('latin1'))
            : undefined;
        fail(hint === undefined ? error : retryAfter(error, hint));
      });
      session.on('error', (error: Error) => {
        fail(
          new ConnectionClosedError(
            established
              ? `the connection to ${server} failed: ${error.message}`
              : `could not connect to ${server}: ${error.message}`,
            { cause: error },
          ),
        );
      });
      session.once('close', () => {
        fail(
          new ConnectionClosedError(
            established
              ? `the connection to ${server} closed`
              : `the connection to ${server} closed before the server's SETTINGS frame`,
          ),
        );
      });

      return () => {
        timer?.unsubscribe();
        session.removeAllListeners('remoteSettings');
        session.removeAllListeners('error');
        // Errors after teardown (a socket reset while destroying) have nobody to report to.
        session.on('error', () => undefined);
        if (goaway) session.close();
        else {
          // An attempt cut before SETTINGS is reset (RST), like ManagedChannel's: the peer may not be reading.
          // Only a plain TCP socket can be reset; a TLS socket throws ERR_INVALID_HANDLE_TYPE and is destroyed.
          const socket = session.socket as Socket | undefined;
          if (!established && socket !== undefined && !(socket instanceof TLSSocket)) socket.resetAndDestroy();
          session.destroy();
        }
      };
    });
  return healthCheck === undefined
    ? connector
    : healthChecked(connector, http2HealthWatch, { ...healthCheck, scheduler });
}
