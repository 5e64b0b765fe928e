/**
 * Client-side health checking (gRFC A17) as a connector around a connector: on each connection it
 * opens one `grpc.health.v1.Health/Watch` stream and tells the manager what the server reports
 * (`AttemptContext.reportServing`), so that the manager is READY only while the last answer is
 * SERVING and TRANSIENT_FAILURE with `connected: true` otherwise, on the same connection.
 *
 * As A17 says: the Watch starts as soon as the connection is up, and the connection is not handed to
 * the manager (no READY) before the first answer; UNIMPLEMENTED means the server has no health service,
 * so the connection counts as serving and the Watch is not retried (said once per connector through
 * `log`); any other end of the stream counts as not serving, and the Watch is opened again on the
 * connection-backoff schedule, reset by any message, without touching a connection that is fine; the
 * Watch is cancelled when the connection ends (a GOAWAY included) or the attempt is torn down.
 * One departure: a Watch that answered SERVING and then ended is re-opened before anything is said,
 * and only the new one's failure (or answer) changes the state, because proxies end idle streams
 * (nginx after its `grpc_read_timeout`, 60 s by default) while the server is fine.
 *
 * The Watch's own retries are attempts of a {@link ConnectionManager} (one per connection, `minUptime:
 * 0`: a stream that answered once has proved itself), so they follow the one schedule every attempt
 * in redialer follows: gRPC's backoff, waits measured from each start, never faster than a first wait.
 * @module
 */
import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { ConnectionManager } from '../../../core/connection-manager.js';
import type { Connector } from '../../../core/connector.js';
import { toConnectorObservable } from '../../../core/connector-observable.js';
import type { BackoffPolicy, RandomSource } from '../../../backoff/backoff.js';
import { NotServingError } from '../../../errors/not-serving-error.js';
import { permanent } from '../../../errors/permanent-error.js';
import { scheduleTimer } from '../../../internal/schedule-timer.js';
import { describeValue as describe } from '../../../internal/validate.js';
import { encodeHealthRequest, type ServingStatus } from './health-messages.js';
import { grpcStatusName, UNIMPLEMENTED } from './grpc-status.js';

/** What one Watch stream reports to the health check. */
export interface HealthWatchHandlers {
  /** A HealthCheckResponse arrived with this status. */
  status(status: ServingStatus): void;
  /** The stream ended with this gRPC status code and message (after which nothing more is reported). */
  end(code: number, details: string): void;
}

/** How the health check talks to one kind of connection. */
export interface HealthWatchTransport<C> {
  /**
   * Opens a Watch stream on `connection` with the encoded HealthCheckRequest; returns its cancel,
   * after which the handlers are not called.
   */
  open(connection: C, request: Uint8Array, handlers: HealthWatchHandlers): () => void;
  /** Whether the connection is still open (a Watch that ended with it is the connection's end, not a failed check). */
  isOpen(connection: C): boolean;
}

/** What {@link healthChecked} needs besides the connector and the transport. */
export interface HealthCheckSettings {
  /** The service name to ask about; `""` is the whole server. */
  readonly serviceName: string;
  /** The clock of the Watch's retries: the manager's. */
  readonly scheduler: SchedulerLike;
  /** The random source of the Watch's backoff jitter. */
  readonly random?: RandomSource;
  /** The backoff of the Watch's retries: the connection's. @defaultValue `grpcBackoff()` */
  readonly backoff?: BackoffPolicy;
  /** Where the one note about a server without a health service goes. */
  readonly log: (message: string) => void;
}

/** The marker a Watch attempt emits on its first answer: the stream is up. */
const ANSWERED = true;

/** `connector`, whose connections are health-checked per gRFC A17 over `transport`. */
export function healthChecked<C>(
  connector: Connector<C>,
  transport: HealthWatchTransport<C>,
  settings: HealthCheckSettings,
): Connector<C> {
  const { serviceName, scheduler, random, backoff, log } = settings;
  const request = encodeHealthRequest(serviceName);
  let noted = false;
  return (context) =>
    new Observable<C>((subscriber) => {
      let connection: { readonly value: C } | undefined;
      let watch: ConnectionManager<typeof ANSWERED> | undefined;
      let pendingReport: Subscription | undefined;
      let handedOver = false;
      /** What was last reported: serving, or not. */
      let serving = false;

      /** Tells the manager what the server reports; the first report hands the connection over. */
      const report = (isServing: boolean, reason?: unknown): void => {
        if (subscriber.closed || connection === undefined) return;
        serving = isServing;
        context.reportServing(isServing, reason);
        if (!handedOver) {
          handedOver = true;
          subscriber.next(connection.value);
        }
      };

      const watchConnector: Connector<typeof ANSWERED> = () =>
        new Observable<typeof ANSWERED>((attempt) => {
          const open = connection;
          if (open === undefined) return undefined;
          let answered = false;
          return transport.open(open.value, request, {
            status: (status) => {
              pendingReport?.unsubscribe();
              if (!answered) {
                answered = true;
                attempt.next(ANSWERED);
              }
              report(status === 'SERVING', status === 'SERVING' ? undefined : new NotServingError(serviceName, status));
            },
            end: (code, details) => {
              if (code === UNIMPLEMENTED) {
                if (!noted) {
                  noted = true;
                  log(
                    `redialer: the server has no health service (Watch: UNIMPLEMENTED: ${details}); its connections count as serving`,
                  );
                }
                report(true);
                attempt.error(permanent(new Error(`the server has no health service: ${details}`)));
                return;
              }
              const reason = new NotServingError(serviceName, grpcStatusName(code), { detail: details });
              attempt.error(reason);
              // A Watch that answered SERVING and then ended is re-opened first (a proxy ends idle
              // streams: nginx's grpc_read_timeout is 60 s); only the next one's failure says more.
              if (answered && serving) return;
              // A Watch that ended with its connection is the connection's end, which the connector
              // reports next: wait one turn so that it arrives first, and say nothing if it did.
              pendingReport?.unsubscribe();
              pendingReport = scheduleTimer(scheduler, 0, () => {
                pendingReport = undefined;
                if (transport.isOpen(open.value)) report(false, reason);
              });
            },
          });
        });

      const inner = toConnectorObservable<C>(connector(context)).subscribe({
        next: (value) => {
          if (connection !== undefined) return;
          connection = { value };
          watch = new ConnectionManager<typeof ANSWERED>({
            connector: watchConnector,
            scheduler,
            minUptime: 0,
            ...(random === undefined ? {} : { random }),
            ...(backoff === undefined ? {} : { backoff }),
          });
          watch.connect();
        },
        error: (error: unknown) => {
          subscriber.error(error);
        },
        complete: () => {
          subscriber.complete();
        },
      });

      return () => {
        pendingReport?.unsubscribe();
        watch?.shutdown();
        inner.unsubscribe();
      };
    });
}

/** Options of health checking (gRFC A17) for `ManagedChannel` and `http2Connector`. */
export interface HealthCheckOptions {
  /**
   * The service name the Watch asks about (`""`: the whole server), as a service config's
   * `healthCheckConfig.serviceName` names it.
   */
  readonly serviceName: string;
  /**
   * Where the one note goes when the server has no health service (the Watch answers UNIMPLEMENTED):
   * its connections then count as serving, as A17 says. @defaultValue `console.warn`
   */
  readonly log?: (message: string) => void;
}

/** The checked `healthCheck` option, or undefined when it is absent. */
export function checkHealthCheckOptions(value: unknown): Required<HealthCheckOptions> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `redialer: option "healthCheck" must be an object such as { serviceName: "" }, got ${describe(value)}`,
    );
  }
  const raw = value as Readonly<Record<string, unknown>>;
  const serviceName = raw['serviceName'];
  if (typeof serviceName !== 'string') {
    throw new TypeError(
      `redialer: option "healthCheck.serviceName" must be a string ("" for the whole server), got ${describe(serviceName)}`,
    );
  }
  const log = raw['log'];
  if (log !== undefined && typeof log !== 'function') {
    throw new TypeError(`redialer: option "healthCheck.log" must be a function, got ${describe(log)}`);
  }
  return {
    serviceName,
    log:
      (log as ((message: string) => void) | undefined) ??
      ((message: string) => {
        console.warn(message);
      }),
  };
}
