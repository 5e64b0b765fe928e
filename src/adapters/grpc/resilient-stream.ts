/**
 * A long-lived server-streaming (or bidi) call kept alive with gRPC's connection-backoff protocol and
 * resumed from a cursor: the watch-with-cursor pattern of etcd and Kubernetes.
 *
 * Built on {@link ConnectionManager}: each attempt opens the stream, and the stream counts as
 * established (READY, the backoff resets) once it proves healthy — its response headers or its first
 * message arrive. A stream that ends with a transient status is re-opened after the backoff; the next
 * request is built from the last message seen.
 *
 * Given the channel its calls run on (`channel`, a `ManagedChannel`), it follows that channel instead
 * of running a second backoff over the channel's own: while the channel is not READY the stream's
 * manager is paused (the core's `pause()`: a stream that ends then waits for `resume()`, not for a
 * timer), and the channel's READY resumes it, so the stream re-opens on the connection that the
 * channel's schedule just made. A stream that fails while the channel stays READY (the service itself
 * answers UNAVAILABLE) waits on its own backoff as before. Opens are asked to wait for READY
 * (through the metadata `open` is given), so that one that races a connection's loss waits for the next.
 * @module
 */
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import {
  type ClientDuplexStream,
  type ClientReadableStream,
  Metadata,
  status as Status,
  type StatusObject,
} from '@grpc/grpc-js';
import { Observable, Subject, type Subscription } from 'rxjs';
import { ConnectionManager } from '../../core/connection-manager.js';
import type { ConnectionManagerOptions } from '../../core/connection-options.js';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import type { AttemptContext, Connector } from '../../core/connector.js';
import { ConnectionClosedError } from '../../errors/connection-closed-error.js';
import type { CannotResumeError } from '../../errors/cannot-resume-error.js';
import { ResumeCursor } from '../../core/resume-cursor.js';
import { isPermanentError, permanent } from '../../errors/permanent-error.js';
import {
  checkOptionsObject,
  describeValue,
  optionalBoolean,
  optionalFunction,
  optionalNumber,
} from '../../internal/validate.js';
import { isStreamReset } from './grpc-js-workarounds/stream-reset.js';
import { StreamStatusError } from './stream-status-error.js';
import { without } from '../../internal/without.js';

/** The streaming calls a {@link ResilientStream} can keep alive. */
export type ResponseStream<Res> = ClientReadableStream<Res> | ClientDuplexStream<never, Res>;

/** What `open` is given besides the request: the attempt, and the metadata to open the stream with. */
export interface StreamOpenContext extends AttemptContext {
  /**
   * Pass it to the client method (`client.watch(request, metadata)`), after adding your own entries
   * if any: new for each open, with the `waitForReady` call option set as the `waitForReady` option
   * says (grpc-js reads that option from the metadata).
   */
  readonly metadata: Metadata;
}

/**
 * The channel a stream's calls run on, for {@link ResilientStreamOptions.channel}: a `ManagedChannel`,
 * or anything with a connection manager's `state$` and `connect()`.
 */
export interface StreamChannel {
  /** The channel's connection snapshots; READY is when the stream may open. */
  readonly state$: Observable<ConnectionSnapshot>;
  readonly manager: {
    /** Asks an IDLE channel for a connection (as a call on it would). */
    connect(): void;
  };
}

/** Options of {@link ResilientStream}. */
export interface ResilientStreamOptions<Req, Res> extends Omit<
  ConnectionManagerOptions<ResponseStream<Res>>,
  'connector'
> {
  /**
   * Opens the stream for `request` with `context.metadata` (for bidi calls, also writes the
   * request). Required.
   */
  readonly open: (request: Req, context: StreamOpenContext) => ResponseStream<Res>;
  /**
   * Builds the request of each (re)open from the last message delivered (`undefined` before the
   * first, and after the server refused to resume: see `cannotResume`). Required.
   */
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
  /**
   * The `ManagedChannel` the stream's calls run on: the stream then re-opens when the channel becomes
   * READY instead of after a backoff of its own, asks an IDLE channel to connect while it wants a
   * stream, and ends (`messages$` errors with a `ConnectionClosedError`) when the channel is closed.
   * @defaultValue none: the stream's own backoff decides every re-open
   */
  readonly channel?: StreamChannel;
  /**
   * Whether opens ask the call to wait for the channel's READY (the `metadata`'s waitForReady), so that
   * an open that races a lost connection waits for the next one instead of failing fast.
   * @defaultValue true
   */
  readonly waitForReady?: boolean;
  /**
   * Whether `message` comes after `last` (the last message delivered): with it, messages that do not
   * are replays of ones already delivered (a server that resumes inclusively, or replays a window) and
   * are dropped. @defaultValue none: every message is delivered
   */
  readonly isAfter?: (message: Res, last: Res) => boolean;
  /**
   * Whether a status that ends a stream opened from a cursor says the server cannot resume from it
   * (the revision was compacted): the stream then forgets its cursor, `resync$` gives a
   * {@link CannotResumeError}, and it re-opens from the beginning (`request(undefined)`) on the
   * schedule. Not asked for a stream opened without a cursor. @defaultValue status `OUT_OF_RANGE`
   */
  readonly cannotResume?: (status: StatusObject) => boolean;
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

/** Whether the channel-following stream should be held: the channel cannot carry a stream now. */
function holds(snapshot: ConnectionSnapshot): boolean {
  return snapshot.state !== 'READY';
}

function checkChannel(value: unknown): StreamChannel | undefined {
  if (value === undefined) return undefined;
  const channel = (typeof value === 'object' ? value : null) as {
    readonly state$?: { readonly subscribe?: unknown };
    readonly manager?: { readonly connect?: unknown };
  } | null;
  if (typeof channel?.state$?.subscribe !== 'function' || typeof channel.manager?.connect !== 'function') {
    throw new TypeError(
      `redialer: option "channel" must be a ManagedChannel (an object with state$ and manager.connect()), got ${describeValue(value)}`,
    );
  }
  return value as StreamChannel;
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
 * errors with a {@link StreamStatusError} on a status not in `retryOn`. A stream the server reset
 * (CANCELLED that the client did not cause: a grpc-js server's `forceShutdown()`) is re-opened as an
 * UNAVAILABLE one is; a CANCELLED the client caused is not. `state$` is the stream's own
 * connectivity: CONNECTING while a stream is opening, READY once it proved healthy, TRANSIENT_FAILURE
 * while waiting to re-open, IDLE with `paused: true` while it waits for its `channel`, SHUTDOWN at the
 * end.
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
  /**
   * Every refusal to resume (see `cannotResume`), before the stream re-opens from the beginning: the
   * moment to drop what was built from earlier messages and refetch it. Completes with `messages$`.
   */
  readonly resync$: Observable<CannotResumeError<Res>>;
  readonly #messages = new Subject<Res>();
  /** The position: the last message delivered. */
  readonly #cursor: ResumeCursor<Res>;
  readonly #channel: StreamChannel | undefined;
  /** Following the channel: from `start()` to the end. */
  #follow: Subscription | undefined;
  /** Why the stream ended other than by `close()` or a status: its channel was closed. */
  #channelClosed: ConnectionClosedError | undefined;

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
    this.#channel = checkChannel(raw['channel']);
    const waitForReady = optionalBoolean('waitForReady', raw['waitForReady'], true);
    const isAfter = optionalFunction<(message: Res, last: Res) => boolean>('isAfter', raw['isAfter']);
    const cannotResume = optionalFunction<(status: StatusObject) => boolean>(
      'cannotResume',
      raw['cannotResume'],
      (status) => status.code === Status.OUT_OF_RANGE,
    );
    this.#cursor = new ResumeCursor<Res>({ isAfter });
    const managerOptions = without(
      options,
      'open',
      'request',
      'retryOn',
      'channel',
      'waitForReady',
      'isAfter',
      'cannotResume',
    );
    this.manager = new ConnectionManager<ResponseStream<Res>>({
      ...managerOptions,
      minUptime,
      connector: this.#connector(open, request, { retryOn, waitForReady, cannotResume }),
    });
    this.state$ = this.manager.state$;
    this.messages$ = this.#messages.asObservable();
    this.resync$ = this.#cursor.resync$;
    this.manager.state$.subscribe((snapshot) => {
      if (snapshot.state !== 'SHUTDOWN') return;
      this.#follow?.unsubscribe();
      this.#cursor.complete();
      if (this.#channelClosed !== undefined) this.#messages.error(this.#channelClosed);
      else if (snapshot.reason === 'shutdown') this.#messages.complete();
      else this.#messages.error(unwrap(snapshot.lastError));
    });
  }

  /** The last message seen, if any (the cursor the next request is built from). */
  get last(): Res | undefined {
    return this.#cursor.current;
  }

  /** Opens the first stream (with a `channel`, once the channel is READY). */
  start(): void {
    if (this.#channel !== undefined && this.#follow === undefined && this.manager.snapshot.state !== 'SHUTDOWN') {
      this.#follow = this.#channel.state$.subscribe((channel) => {
        this.#channelChanged(channel);
      });
    }
    this.manager.connect();
  }

  /** Holds the stream while its channel cannot carry it, and lets it go on the channel's READY. */
  #channelChanged(channel: ConnectionSnapshot): void {
    if (channel.state === 'SHUTDOWN') {
      this.#channelClosed ??= new ConnectionClosedError("the stream's channel was closed", {
        cause: channel.lastError,
      });
      this.manager.shutdown();
      return;
    }
    if (holds(channel)) {
      this.manager.pause();
      // The stream wants a connection: an IDLE channel (lazy, or idled) is asked for one, as a call would.
      if (channel.state === 'IDLE') this.#channel?.manager.connect();
    } else {
      this.manager.resume();
    }
  }

  /** Cancels the current stream and stops for good; `messages$` completes. */
  close(): void {
    this.manager.shutdown();
  }

  /** A refusal to resume `from`, if `status` is one (asked only of a stream opened from a cursor). */
  #refused(
    from: Res | undefined,
    status: StatusObject,
    cannotResume: (status: StatusObject) => boolean,
  ): CannotResumeError<Res> | undefined {
    if (from === undefined || !cannotResume(status)) return undefined;
    return this.#cursor.refuse(from, new StreamStatusError(status));
  }

  #connector(
    open: ResilientStreamOptions<Req, Res>['open'],
    request: ResilientStreamOptions<Req, Res>['request'],
    rules: {
      readonly retryOn: readonly Status[];
      readonly waitForReady: boolean;
      readonly cannotResume: (status: StatusObject) => boolean;
    },
  ): Connector<ResponseStream<Res>> {
    const { retryOn, waitForReady, cannotResume } = rules;
    return (context) =>
      new Observable<ResponseStream<Res>>((subscriber) => {
        let call: ResponseStream<Res>;
        const from = this.#cursor.open();
        try {
          call = open(request(from), openContext(context, new Metadata({ waitForReady })));
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
          let fresh: boolean;
          try {
            fresh = this.#cursor.accept(message);
          } catch (error) {
            // The app's isAfter threw: the stream cannot tell replays from news, so it stops.
            subscriber.error(permanent(error));
            return;
          }
          if (fresh) this.#messages.next(message);
        };
        const finish = (): void => {
          if (status === undefined || !ended) return;
          const code = status.code;
          let refused: CannotResumeError<Res> | undefined;
          try {
            refused = code === Status.OK ? undefined : this.#refused(from, status, cannotResume);
          } catch (error) {
            subscriber.error(permanent(error));
            return;
          }
          if (refused !== undefined) subscriber.error(refused);
          else if (retryOn.includes(code) || isStreamReset(status)) subscriber.error(new StreamStatusError(status));
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

/** The attempt's context with the metadata; read through, so the signal is still made on first read. */
function openContext(context: AttemptContext, metadata: Metadata): StreamOpenContext {
  return {
    get attempt() {
      return context.attempt;
    },
    get signal() {
      return context.signal;
    },
    get timeoutAt() {
      return context.timeoutAt;
    },
    reportServing: (serving, reason) => {
      context.reportServing(serving, reason);
    },
    metadata,
  };
}
