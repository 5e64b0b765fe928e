/**
 * A long-lived server-streaming (or bidi) call kept alive with gRPC's connection-backoff protocol and
 * resumed from a cursor: the watch-with-cursor pattern of etcd and Kubernetes.
 *
 * Built on {@link ConnectionManager}: each attempt opens the stream, and the stream counts as
 * established (READY, the backoff resets) once it proves healthy — its response headers or its first
 * message arrive. A stream that ends with a transient status is re-opened after the backoff; the next
 * request is built from the last message seen.
 * @module
 */
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import { type ClientDuplexStream, type ClientReadableStream, status as Status, type StatusObject } from '@grpc/grpc-js';
import { Observable, Subject } from 'rxjs';
import { ConnectionManager } from '../../core/connection-manager.js';
import type { ConnectionManagerOptions } from '../../core/connection-options.js';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import type { AttemptContext, Connector } from '../../core/connector.js';
import { isPermanentError, permanent } from '../../errors/permanent-error.js';
import { checkOptionsObject, describeValue, optionalFunction, optionalNumber } from '../../internal/validate.js';
import { StreamStatusError } from './stream-status-error.js';
import { without } from '../../internal/without.js';

/** The streaming calls a {@link ResilientStream} can keep alive. */
export type ResponseStream<Res> = ClientReadableStream<Res> | ClientDuplexStream<never, Res>;

/** Options of {@link ResilientStream}. */
export interface ResilientStreamOptions<Req, Res> extends Omit<
  ConnectionManagerOptions<ResponseStream<Res>>,
  'connector'
> {
  /** Opens the stream for `request` (for bidi calls, also writes the request). Required. */
  readonly open: (request: Req, context: AttemptContext) => ResponseStream<Res>;
  /** Builds the request of each (re)open from the last message seen (`undefined` before the first). Required. */
  readonly request: (last: Res | undefined) => Req;
  /**
   * Statuses that re-open the stream after the backoff; any other status ends it (`messages$` errors
   * with a {@link StreamStatusError}). Add `status.OK` to re-open a stream the server ended normally;
   * without it, OK completes `messages$`. @defaultValue `[status.UNAVAILABLE]`
   */
  readonly retryOn?: readonly Status[];
  /**
   * How long a stream must stay healthy for its health to reset the backoff; 0 resets as soon as the
   * headers or the first message arrive. @defaultValue 0
   */
  readonly minUptime?: number;
}

const STATUS_CODES = new Set<number>(
  Object.values(Status).filter((value): value is number => typeof value === 'number'),
);

function checkStatuses(value: unknown): readonly Status[] {
  if (value === undefined) return [Status.UNAVAILABLE];
  if (
    !Array.isArray(value) ||
    !value.every((code): code is Status => typeof code === 'number' && STATUS_CODES.has(code))
  ) {
    throw new TypeError(
      `redialer: option "retryOn" must be an array of grpc status codes, got ${describeValue(value)}`,
    );
  }
  return Object.freeze([...value]);
}

/** The error behind a PermanentError wrapper (the status error the caller wants to see). */
function unwrap(error: unknown): unknown {
  return isPermanentError(error) && error.cause !== undefined ? error.cause : error;
}

/**
 * Keeps one streaming call alive and resumable.
 *
 * `messages$` emits every message of every stream in order (subscribe before `start()`); it completes
 * when the server ends the stream with OK (unless OK is in `retryOn`) or `close()` is called, and
 * errors with a {@link StreamStatusError} on a status not in `retryOn`. `state$` is the stream's own
 * connectivity: CONNECTING while a stream is opening, READY once it proved healthy, TRANSIENT_FAILURE
 * while waiting to re-open, SHUTDOWN at the end.
 *
 * @example
 * ```ts
 * const watch = new ResilientStream<WatchRequest, Event>({
 *   open: (request) => client.watch(request),
 *   request: (last) => ({ fromRevision: last === undefined ? 0 : last.revision + 1 }),
 * });
 * watch.messages$.subscribe((event) => apply(event));
 * watch.start();
 * ```
 */
export class ResilientStream<Req, Res> {
  /** Every message, in order, across re-opens. */
  readonly messages$: Observable<Res>;
  /** The stream's connectivity snapshots (READY carries the current call). */
  readonly state$: Observable<ConnectionSnapshot<ResponseStream<Res>>>;
  /** The manager that re-opens the stream; `resetBackoff()`, `waitForStateChange()`… */
  readonly manager: ConnectionManager<ResponseStream<Res>>;
  readonly #messages = new Subject<Res>();
  #last: Res | undefined;
  #hasLast = false;

  constructor(options: ResilientStreamOptions<Req, Res>) {
    const raw = checkOptionsObject('ResilientStream options', options);
    const open = optionalFunction<ResilientStreamOptions<Req, Res>['open']>('open', raw['open']);
    const request = optionalFunction<ResilientStreamOptions<Req, Res>['request']>('request', raw['request']);
    if (open === undefined)
      throw new TypeError('redialer: option "open" is required: a function that opens the stream');
    if (request === undefined)
      throw new TypeError(
        'redialer: option "request" is required: a function that builds the request from the last message',
      );
    const retryOn = checkStatuses(raw['retryOn']);
    const minUptime = optionalNumber('minUptime', raw['minUptime'], 0, { min: 0, max: MAX_DELAY_MS });
    const managerOptions = without(options, 'open', 'request', 'retryOn');
    this.manager = new ConnectionManager<ResponseStream<Res>>({
      ...managerOptions,
      minUptime,
      connector: this.#connector(open, request, retryOn),
    });
    this.state$ = this.manager.state$;
    this.messages$ = this.#messages.asObservable();
    this.manager.state$.subscribe((snapshot) => {
      if (snapshot.state !== 'SHUTDOWN') return;
      if (snapshot.reason === 'shutdown') this.#messages.complete();
      else this.#messages.error(unwrap(snapshot.lastError));
    });
  }

  /** The last message seen, if any (the cursor the next request is built from). */
  get last(): Res | undefined {
    return this.#last;
  }

  /** Opens the first stream. */
  start(): void {
    this.manager.connect();
  }

  /** Cancels the current stream and stops for good; `messages$` completes. */
  close(): void {
    this.manager.shutdown();
  }

  #connector(
    open: ResilientStreamOptions<Req, Res>['open'],
    request: ResilientStreamOptions<Req, Res>['request'],
    retryOn: readonly Status[],
  ): Connector<ResponseStream<Res>> {
    return (context) =>
      new Observable<ResponseStream<Res>>((subscriber) => {
        let call: ResponseStream<Res>;
        try {
          call = open(request(this.#hasLast ? this.#last : undefined), context);
        } catch (error) {
          subscriber.error(permanent(error));
          return undefined;
        }
        let healthy = false;
        let status: StatusObject | undefined;
        let ended = false;
        const proven = (): void => {
          if (healthy) return;
          healthy = true;
          subscriber.next(call);
        };
        const onData = (message: Res): void => {
          proven();
          this.#last = message;
          this.#hasLast = true;
          this.#messages.next(message);
        };
        const finish = (): void => {
          if (status === undefined || !ended) return;
          const code = status.code;
          if (retryOn.includes(code)) subscriber.error(new StreamStatusError(status));
          else if (code === Status.OK) this.manager.shutdown();
          else subscriber.error(permanent(new StreamStatusError(status)));
        };
        const onStatus = (received: StatusObject): void => {
          status = received;
          finish();
        };
        const onEnd = (): void => {
          ended = true;
          finish();
        };
        // grpc-js also reports a non-OK status as an 'error' event, which must have a listener.
        const onError = (): void => undefined;
        call.on('metadata', proven);
        call.on('data', onData);
        call.on('status', onStatus);
        call.on('end', onEnd);
        call.on('error', onError);
        return () => {
          call.off('metadata', proven);
          call.off('data', onData);
          call.off('status', onStatus);
          call.off('end', onEnd);
          // Keep swallowing the CANCELLED error that cancel() causes.
          if (status === undefined) call.cancel();
        };
      });
  }
}
