/**
 * `ReconnectingEventSource`: the EventSource interface over `fetch`, with redialer's connection
 * manager deciding every reconnect (gRPC's backoff, the flap guard, the floor on attempt starts, a
 * server's `retry:` and `Retry-After` as floors) and the stream resumed from `Last-Event-ID`.
 *
 * As EventSource: `readyState` is CONNECTING until a stream opens, OPEN while it does and again
 * CONNECTING while waiting to reconnect, CLOSED after `close()` or a permanent failure; `open` fires
 * on each open stream, `message` and named events carry `data` and `lastEventId`, `error` fires on
 * each failed or ended attempt and when the source stops for good. Departures from the spec (5xx is
 * retried, reconnects wait on a backoff instead of a fixed delay) are in docs/sse.md.
 * @module
 */
import { asyncScheduler, type Observable } from 'rxjs';
import { ConnectionManager } from '../../core/connection-manager.js';
import { ResumeCursor } from '../../core/resume-cursor.js';
import type { CannotResumeError } from '../../errors/cannot-resume-error.js';
import { permanent } from '../../errors/permanent-error.js';
import type { ConnectionManagerOptions } from '../../core/connection-options.js';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import {
  checkOptionsObject,
  checkText,
  describeValue,
  optionalBoolean,
  optionalFunction,
  optionalNumber,
  schedulerOption,
} from '../../internal/validate.js';
import { reportUnhandledError, type UnhandledErrorHandler } from '../../internal/report-unhandled-error.js';
import { without } from '../../internal/without.js';
import { type EnvironmentLike, isOffline, watchEnvironment } from '../../internal/environment-watch.js';
import { type EventStreamConnection, type EventStreamHeaders, eventStreamConnector } from './event-stream-connector.js';

/** Options of {@link ReconnectingEventSource}. Times are in milliseconds. */
export interface ReconnectingEventSourceOptions extends Omit<
  ConnectionManagerOptions<EventStreamConnection>,
  'connector' | 'autoReconnect'
> {
  /** Send cookies and HTTP auth cross-origin (`credentials: 'include'`), as EventSource's option. @defaultValue false */
  readonly withCredentials?: boolean;
  /** The request's method. @defaultValue 'GET' */
  readonly method?: string;
  /** The request's body (for POST streams, as AI and MCP endpoints use). @defaultValue none */
  readonly body?: string;
  /** Headers to send, or a function called before every attempt (a fresh token each time). */
  readonly headers?: EventStreamHeaders;
  /** The cursor of the first request (`Last-Event-ID`), as a page that stored it would give it. @defaultValue none */
  readonly lastEventId?: string;
  /** An open stream that sends nothing (no event, no comment) for this long is ended and reconnected. @defaultValue Infinity */
  readonly idleTimeout?: number;
  /** The `fetch` to use. @defaultValue `globalThis.fetch` */
  readonly fetch?: typeof fetch;
  /** Hold attempts while the browser says it is offline, and attempt at once when it is back. @defaultValue true */
  readonly pauseWhileOffline?: boolean;
  /** When a hidden page is shown again with more than `visibleRetryThreshold` of a wait left, attempt at once. @defaultValue true */
  readonly retryOnVisible?: boolean;
  /** The wait beyond which `retryOnVisible` cuts it short. @defaultValue 5000 */
  readonly visibleRetryThreshold?: number;
  /** The global scope to watch for online/offline and visibility. @defaultValue `globalThis` */
  readonly environment?: EnvironmentLike;
  /**
   * Whether event ID `id` comes after `lastEventId` (the cursor), for servers whose IDs are ordered
   * (`(id, last) => Number(id) > Number(last)`): with it, an event whose own ID does not is a replay
   * of one already delivered and is dropped, as are events without an ID that follow it.
   * @defaultValue none: every event is delivered (IDs are opaque, as the spec has them)
   */
  readonly isAfter?: (id: string, lastEventId: string) => boolean;
  /**
   * Whether an answer other than a stream, to a request that sent `Last-Event-ID`, says the server
   * cannot resume from there: the source then forgets the cursor, `resync$` gives a
   * {@link CannotResumeError}, and it reconnects without `Last-Event-ID` on the schedule. It sees the
   * status and headers (the body is not read). @defaultValue status 409 or 410
   */
  readonly cannotResume?: (response: Response) => boolean;
}

/** An `onopen` / `onerror` handler, as EventSource's. */
export type EventSourceHandler = ((this: ReconnectingEventSource, event: Event) => unknown) | null;
/** An `onmessage` handler, as EventSource's: called with each `message` event. */
export type EventSourceMessageHandler =
  ((this: ReconnectingEventSource, event: MessageEvent<string>) => unknown) | null;

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 2;

/** A reconnecting EventSource over `fetch`; see the module notes. */
export class ReconnectingEventSource extends EventTarget {
  static readonly CONNECTING = CONNECTING;
  static readonly OPEN = OPEN;
  static readonly CLOSED = CLOSED;
  readonly CONNECTING = CONNECTING;
  readonly OPEN = OPEN;
  readonly CLOSED = CLOSED;
  /** The stream's URL, resolved. */
  readonly url: string;
  readonly withCredentials: boolean;
  /** The manager that decides every attempt: `resetBackoff()` ("Retry now"), `waitForStateChange()`… */
  readonly manager: ConnectionManager<EventStreamConnection>;
  /** The connection's snapshots (READY carries the open response). */
  readonly state$: Observable<ConnectionSnapshot<EventStreamConnection>>;
  onopen: EventSourceHandler = null;
  onmessage: EventSourceMessageHandler = null;
  onerror: EventSourceHandler = null;
  /**
   * Every refusal to resume (see the `cannotResume` option), before the reconnect without a cursor:
   * the moment to drop what was built from earlier events and refetch it. An observable rather than
   * an event, since the server's named events share the event target. Completes at CLOSED.
   */
  readonly resync$: Observable<CannotResumeError<string>>;
  #readyState: 0 | 1 | 2 = CONNECTING;
  /** The position: the last event ID seen. */
  readonly #cursor: ResumeCursor<string>;
  readonly #origin: string;
  #stopWatching: (() => void) | undefined;
  readonly #onUnhandledError: UnhandledErrorHandler | undefined;

  constructor(url: string | URL, options: ReconnectingEventSourceOptions = {}) {
    super();
    const raw = checkOptionsObject('ReconnectingEventSource options', options);
    const base = (globalThis as { location?: { href?: string } }).location?.href;
    let resolved: URL;
    try {
      resolved = new URL(String(url), base);
    } catch {
      throw new TypeError(`redialer: ReconnectingEventSource needs a valid URL, got ${describeValue(url)}`);
    }
    this.url = resolved.href;
    this.#origin = resolved.origin;
    this.withCredentials = optionalBoolean('withCredentials', raw['withCredentials'], false);
    const method = raw['method'] === undefined ? 'GET' : checkText('method', raw['method']).toUpperCase();
    const body = raw['body'];
    if (body !== undefined && typeof body !== 'string') {
      throw new TypeError(`redialer: option "body" must be a string, got ${describeValue(body)}`);
    }
    const headers = raw['headers'];
    if (headers !== undefined && typeof headers !== 'function' && (typeof headers !== 'object' || headers === null)) {
      throw new TypeError(
        `redialer: option "headers" must be an object of strings or a function that returns one, got ${describeValue(headers)}`,
      );
    }
    const lastEventId = raw['lastEventId'] === undefined ? '' : checkText('lastEventId', raw['lastEventId']);
    const isAfter = optionalFunction<(id: string, lastEventId: string) => boolean>('isAfter', raw['isAfter']);
    const cannotResume = optionalFunction<(response: Response) => boolean>(
      'cannotResume',
      raw['cannotResume'],
      (response) => response.status === 409 || response.status === 410,
    );
    this.#cursor = new ResumeCursor<string>({ initial: lastEventId === '' ? undefined : lastEventId, isAfter });
    this.resync$ = this.#cursor.resync$;
    const idleTimeout = optionalNumber('idleTimeout', raw['idleTimeout'], Infinity, { min: 1, allowInfinity: true });
    const fetchImpl = optionalFunction<typeof fetch>('fetch', raw['fetch'], (input, init) =>
      globalThis.fetch(input, init),
    );
    const pauseWhileOffline = optionalBoolean('pauseWhileOffline', raw['pauseWhileOffline'], true);
    const retryOnVisible = optionalBoolean('retryOnVisible', raw['retryOnVisible'], true);
    const visibleRetryThreshold = optionalNumber('visibleRetryThreshold', raw['visibleRetryThreshold'], 5000, {
      min: 0,
    });
    const environment = (raw['environment'] ?? globalThis) as EnvironmentLike;
    const scheduler = schedulerOption(raw['scheduler'], asyncScheduler);
    this.#onUnhandledError = options.onUnhandledError;
    const managerOptions = without(
      options,
      'withCredentials',
      'method',
      'body',
      'headers',
      'lastEventId',
      'idleTimeout',
      'fetch',
      'pauseWhileOffline',
      'retryOnVisible',
      'visibleRetryThreshold',
      'environment',
      'isAfter',
      'cannotResume',
    );
    const connector = eventStreamConnector(
      {
        url: this.url,
        method,
        body,
        headers: headers as EventStreamHeaders | undefined,
        withCredentials: this.withCredentials,
        fetch: fetchImpl,
        idleTimeout,
        scheduler,
      },
      {
        open: () => this.#cursor.open() ?? '',
        cursor: (id) => {
          this.#admit(id);
        },
        event: (event) => {
          if (!this.#admit(event.id)) return;
          const message = new MessageEvent(event.type, {
            data: event.data,
            lastEventId: this.lastEventId,
            origin: this.#origin,
          });
          if (event.type === 'message') this.#call(this.onmessage, message);
          this.dispatchEvent(message);
        },
        cannotResume,
        refuse: (from, answer) => this.#cursor.refuse(from, answer),
      },
    );
    this.manager = new ConnectionManager<EventStreamConnection>({ ...managerOptions, scheduler, connector });
    this.state$ = this.manager.state$;
    if (pauseWhileOffline && isOffline(environment)) this.manager.pause({ offline: true });
    if (pauseWhileOffline || retryOnVisible) {
      this.#stopWatching = watchEnvironment(environment, {
        online: () => {
          // Back online: a wait ends now (the core keeps a wait the server asked for), a paused attempt starts.
          this.manager.wake();
          if (pauseWhileOffline) this.manager.resume();
        },
        offline: () => {
          if (pauseWhileOffline) this.manager.pause({ offline: true });
        },
        visible: () => {
          if (retryOnVisible) this.manager.wake({ ifWaitExceeds: visibleRetryThreshold });
        },
      });
    }
    let wasOpen = false;
    this.manager.state$.subscribe((snapshot) => {
      if (snapshot.state === 'READY') {
        // READY again with `paused` toggled (offline with the stream open) is the same stream.
        if (wasOpen) return;
        wasOpen = true;
        this.#readyState = OPEN;
        this.#fire('open', this.onopen);
        return;
      }
      if (snapshot.state === 'SHUTDOWN') {
        this.#stopWatching?.();
        this.#stopWatching = undefined;
        this.#cursor.complete();
        const closedByUser = snapshot.reason === 'shutdown';
        this.#readyState = CLOSED;
        if (!closedByUser) this.#fire('error', this.onerror);
        return;
      }
      if (snapshot.state === 'TRANSIENT_FAILURE' || (wasOpen && snapshot.state !== 'CONNECTING')) {
        this.#readyState = CONNECTING;
        wasOpen = false;
        this.#fire('error', this.onerror);
        return;
      }
      this.#readyState = CONNECTING;
    });
    this.manager.connect();
  }

  /** CONNECTING (0), OPEN (1) or CLOSED (2), as EventSource's. */
  get readyState(): 0 | 1 | 2 {
    return this.#readyState;
  }

  /** The cursor: the last event ID seen, sent as `Last-Event-ID` on every reconnect. */
  get lastEventId(): string {
    return this.#cursor.current ?? '';
  }

  /**
   * An event (or a block without data) with its own ID `id` (undefined: none): whether it is new. An
   * empty ID is the server resetting the cursor. What the app's `isAfter` throws stops the source.
   */
  #admit(id: string | undefined): boolean {
    if (id === '') {
      this.#cursor.reset();
      return true;
    }
    try {
      return this.#cursor.accept(id);
    } catch (error) {
      throw permanent(error);
    }
  }

  /** Stops for good: aborts the request or the open stream, clears every timer. */
  close(): void {
    this.manager.shutdown();
  }

  #fire(type: 'open' | 'error', handler: EventSourceHandler): void {
    const event = new Event(type);
    this.#call(handler, event);
    this.dispatchEvent(event);
  }

  /** Calls an `on…` handler; what it throws goes where the manager's own unhandled errors go. */
  #call<E extends Event>(handler: ((this: ReconnectingEventSource, event: E) => unknown) | null, event: E): void {
    if (handler === null) return;
    try {
      handler.call(this, event);
    } catch (error) {
      reportUnhandledError(error, this.#onUnhandledError);
    }
  }
}
