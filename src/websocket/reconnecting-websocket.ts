/**
 * A reconnecting WebSocket on the connection state machine: reconnecting-websocket's public surface,
 * gRPC's backoff, a bounded outbound queue with an outcome per message, server-directed backoff and
 * browser awareness.
 * @module
 */
import { type Observable, ReplaySubject } from 'rxjs';
import { ConnectionManager } from '../connection-manager.js';
import type { ConnectionSnapshot } from '../connection-snapshot.js';
import type { AttemptContext } from '../connector.js';
import { defineDispose, type DisposableWhereDeclared } from '../dispose.js';
import { PermanentError, permanent } from '../errors/permanent-error.js';
import { isRetryAfterError, retryAfter } from '../errors/retry-after-error.js';
import { checkNumber } from '../validate.js';
import { decideClose, serverBackoffDelay } from './close-policy.js';
import { isOffline, watchEnvironment } from './environment-watch.js';
import { OutboundQueue } from './outbound-queue.js';
import { WebSocketCloseError } from './websocket-close-error.js';
import { type SocketHooks, createWebSocketConnector } from './websocket-connector.js';
import { type ReconnectingWebSocketOptions, type ResolvedWebSocketOptions, resolveWebSocketOptions } from './websocket-options.js';
import {
  type CloseEventLike,
  type ErrorEventLike,
  type Message,
  type MessageEventLike,
  ReadyState,
  type UrlProvider,
  type WebSocketEventLike,
  type WebSocketLike,
} from './websocket-types.js';

/**
 * Why attempts are on hold while the manager is IDLE: `navigator.onLine === false`; the next attempt
 * starts on `online`. (A server-directed wait is an ordinary TRANSIENT_FAILURE whose `lastError` is a
 * RetryAfterError and whose `nextAttemptAt` honours the server's delay.)
 */
export interface PauseInfo {
  readonly reason: 'offline';
}

/**
 * The connection manager's snapshot plus `pause`: set while the manager is IDLE because the browser
 * is offline, undefined otherwise.
 */
export type WebSocketSnapshot = ConnectionSnapshot<WebSocketLike> & { readonly pause: PauseInfo | undefined };

/**
 * What `send()` did with a message: `sent` (handed to the open socket), `queued` (held until the
 * next open, or dropped with a `drop` event if the client closes first), `rejected` (not queued: a
 * `drop` event has been dispatched with the reason).
 */
export type SendStatus = 'sent' | 'queued' | 'rejected';

/** Why a message will never be sent. */
export type DropReason =
  /** Sent while not open and the queue was full (by count or by bytes). */
  | 'queue-full'
  /** Queued when the client closed or gave up, or sent after that. */
  | 'closed';

/** Dispatched once for each message that will never be sent. */
export interface DropEvent extends WebSocketEventLike {
  readonly type: 'drop';
  /** The message, as passed to `send()`. */
  readonly data: Message;
  readonly reason: DropReason;
}

/** The events and their types. */
export interface ReconnectingWebSocketEventMap {
  open: WebSocketEventLike;
  message: MessageEventLike;
  error: ErrorEventLike;
  close: CloseEventLike;
  drop: DropEvent;
}

/**
 * An event handler. Declared as a method type, so that handlers written for the richer DOM event
 * types (`(event: MessageEvent) => void`, `(event: CloseEvent) => void`) or for
 * reconnecting-websocket's own event classes are accepted unchanged.
 */
export type EventHandler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

/** A listener: a function or an object with `handleEvent`, as for EventTarget. */
export type Listener<E> = EventHandler<E> | { handleEvent(event: E): void };

type EventType = keyof ReconnectingWebSocketEventMap;
type ListenerMap = { [K in EventType]: Listener<ReconnectingWebSocketEventMap[K]>[] };

function checkCloseCode(code: number | undefined): void {
  if (code === undefined) return;
  checkNumber('code', code, { integer: true, min: 1000, max: 4999 });
  if (code !== 1000 && code < 3000) {
    throw new RangeError(`redialer: close code must be 1000 or in 3000-4999, got ${String(code)}`);
  }
}

function report(error: unknown): void {
  // A listener's exception must not break the state machine, nor be swallowed: rethrow it on its own.
  queueMicrotask(() => {
    throw error;
  });
}

/**
 * A WebSocket that reconnects, with the public surface of reconnecting-websocket 4.x, so that
 * switching is a change of import. On top: `state$` and `snapshot` (the connection manager's
 * state), `send()` returning a {@link SendStatus} and a `drop` event for every message that will
 * never be sent, and `resetBackoff()`.
 *
 * @example Node 20, with ws
 * ```ts
 * import WebSocket from 'ws';
 * import { ReconnectingWebSocket } from 'redialer/websocket';
 * const socket = new ReconnectingWebSocket('wss://example.test/feed', [], { WebSocket });
 * socket.onmessage = (event) => console.log(event.data);
 * socket.state$.subscribe((s) => console.log(s.state));
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- [Symbol.dispose] comes from defineDispose
export class ReconnectingWebSocket {
  static readonly CONNECTING = ReadyState.CONNECTING;
  static readonly OPEN = ReadyState.OPEN;
  static readonly CLOSING = ReadyState.CLOSING;
  static readonly CLOSED = ReadyState.CLOSED;
  readonly CONNECTING = ReadyState.CONNECTING;
  readonly OPEN = ReadyState.OPEN;
  readonly CLOSING = ReadyState.CLOSING;
  readonly CLOSED = ReadyState.CLOSED;

  /** Called when a socket opens (after the queue has been flushed into it). */
  onopen: EventHandler<WebSocketEventLike> | null = null;
  /** Called for every socket's close event, once. */
  onclose: EventHandler<CloseEventLike> | null = null;
  /** Called for each message received. */
  onmessage: EventHandler<MessageEventLike> | null = null;
  /** Called for a socket's error events while it is in use (a `close` event follows). */
  onerror: EventHandler<ErrorEventLike> | null = null;
  /** Called once for each message that will never be sent. */
  ondrop: EventHandler<DropEvent> | null = null;

  /**
   * The connection state: replays the current snapshot to each new subscriber and emits on every
   * change. It does not complete on close(), since `reconnect()` may start again.
   */
  readonly state$: Observable<WebSocketSnapshot>;

  readonly #url: UrlProvider;
  readonly #protocols: string | string[] | undefined;
  readonly #options: ResolvedWebSocketOptions;
  readonly #subject = new ReplaySubject<WebSocketSnapshot>(1);
  readonly #queue: OutboundQueue;
  readonly #listeners: ListenerMap = { open: [], message: [], error: [], close: [], drop: [] };
  #manager!: ConnectionManager<WebSocketLike>;
  #current!: WebSocketSnapshot;
  #socket: WebSocketLike | undefined;
  #lastSocket: WebSocketLike | undefined;
  #binaryType: string | undefined;
  #pause: PauseInfo | undefined;
  #stopWatching: (() => void) | undefined;
  #release: { code?: number; reason?: string } = {};

  constructor(url: UrlProvider, protocols?: string | string[], options?: ReconnectingWebSocketOptions) {
    if (typeof url !== 'string' && typeof url !== 'function') {
      throw new TypeError(`redialer: url must be a string or a function returning one, got ${typeof url}`);
    }
    if (protocols !== undefined && typeof protocols !== 'string' && !Array.isArray(protocols)) {
      throw new TypeError(`redialer: protocols must be a string or an array of strings, got ${typeof protocols}`);
    }
    this.#url = url;
    // reconnecting-websocket passes protocols only when given; an empty list means none.
    this.#protocols = Array.isArray(protocols) && protocols.length === 0 ? undefined : protocols;
    this.#options = resolveWebSocketOptions(options);
    this.#queue = new OutboundQueue(this.#options.maxEnqueuedMessages, this.#options.maxEnqueuedBytes);
    this.state$ = this.#subject.asObservable();
    this.#startSession();
    if (!this.#options.startClosed) this.#manager.connect();
  }

  /** The current snapshot: the manager's, plus `pause`. */
  get snapshot(): WebSocketSnapshot {
    return this.#current;
  }

  /** Retries in the current backoff cycle: the attempt number minus one (0 after a reset). */
  get retryCount(): number {
    return Math.max(0, this.#current.attempt - 1);
  }

  /**
   * CONNECTING (0) while connecting, waiting to retry or paused; OPEN (1) while connected; CLOSING
   * (2) while the socket closes after close(); CLOSED (3) before the first connect with
   * `startClosed`, and after close() or giving up.
   */
  get readyState(): number {
    const snapshot = this.#current;
    switch (snapshot.state) {
      case 'READY':
        return this.#socket?.readyState ?? ReadyState.OPEN;
      case 'CONNECTING':
      case 'TRANSIENT_FAILURE':
        return ReadyState.CONNECTING;
      case 'IDLE':
        return snapshot.pause === undefined ? ReadyState.CLOSED : ReadyState.CONNECTING;
      case 'SHUTDOWN': {
        const last = this.#lastSocket?.readyState;
        return last === ReadyState.CLOSING || last === ReadyState.OPEN ? ReadyState.CLOSING : ReadyState.CLOSED;
      }
    }
  }

  /** Bytes queued here plus the open socket's own `bufferedAmount`. */
  get bufferedAmount(): number {
    return this.#queue.bytes + (this.#socket?.bufferedAmount ?? 0);
  }

  /** Messages queued until the next open. */
  get queuedMessages(): number {
    return this.#queue.length;
  }

  /** The URL of the latest socket, or '' before the first. */
  get url(): string {
    return this.#lastSocket?.url ?? '';
  }

  /** The sub-protocol the server selected on the latest socket, or ''. */
  get protocol(): string {
    return this.#lastSocket?.protocol ?? '';
  }

  /** The extensions the server selected on the latest socket, or ''. */
  get extensions(): string {
    return this.#lastSocket?.extensions ?? '';
  }

  /** The binary type; set, it applies to the current socket and every later one. @defaultValue the socket's own ('blob' in browsers) */
  get binaryType(): string {
    return this.#lastSocket?.binaryType ?? this.#binaryType ?? 'blob';
  }

  set binaryType(value: string) {
    this.#binaryType = value;
    if (this.#lastSocket !== undefined) this.#lastSocket.binaryType = value;
  }

  /**
   * Sends `data` if the socket is open and nothing is queued before it; otherwise queues it for the
   * next open, in order. A message that cannot be queued (the queue is full, or the client is closed)
   * is rejected with a `drop` event: none is dropped silently.
   */
  send(data: Message): SendStatus {
    if (this.#current.state === 'SHUTDOWN') return this.#drop(data, 'closed');
    const socket = this.#socket;
    if (socket?.readyState === ReadyState.OPEN && this.#queue.length === 0) {
      socket.send(data);
      return 'sent';
    }
    return this.#queue.offer(data) ? 'queued' : this.#drop(data, 'queue-full');
  }

  /**
   * Closes the socket (or abandons the attempt or the wait) and stops reconnecting. Every queued
   * message is dropped with a `drop` event; no timer, listener or socket is left once the socket's
   * close event has been delivered. `reconnect()` starts again.
   */
  close(code = 1000, reason?: string): void {
    checkCloseCode(code);
    this.#release = reason === undefined ? { code } : { code, reason };
    this.#clearPause();
    this.#manager.shutdown();
  }

  /**
   * Closes the current socket, if any, and connects again at once with a fresh backoff; after
   * close() or giving up, starts again.
   */
  reconnect(code?: number, reason?: string): void {
    checkCloseCode(code);
    this.#clearPause();
    if (this.#current.state === 'SHUTDOWN') {
      this.#startSession();
      this.#manager.connect();
      return;
    }
    const manager = this.#manager;
    const state = this.#current.state;
    if (state === 'READY' || state === 'CONNECTING') {
      // idle() closes the socket synchronously; the code and reason apply to that socket only.
      this.#release = { ...(code === undefined ? {} : { code }), ...(reason === undefined ? {} : { reason }) };
      manager.idle();
      this.#release = {};
    }
    manager.resetBackoff();
    manager.connect();
  }

  /** gRPC's ResetConnectBackoff: while waiting to retry, attempt now; the next wait starts from the initial delay. */
  resetBackoff(): void {
    this.#manager.resetBackoff();
  }

  /** Adds a listener (a listener added twice is called twice, as in reconnecting-websocket). */
  addEventListener<K extends EventType>(type: K, listener: Listener<ReconnectingWebSocketEventMap[K]>): void {
    const list = this.#listeners[type] as Listener<ReconnectingWebSocketEventMap[K]>[] | undefined;
    list?.push(listener);
  }

  /** Removes every registration of `listener` for `type`. */
  removeEventListener<K extends EventType>(type: K, listener: Listener<ReconnectingWebSocketEventMap[K]>): void {
    const list = this.#listeners[type] as Listener<ReconnectingWebSocketEventMap[K]>[] | undefined;
    if (list === undefined) return;
    for (let i = list.indexOf(listener); i !== -1; i = list.indexOf(listener)) list.splice(i, 1);
  }

  /** Calls the listeners of `event.type` (not the `on…` handler), as reconnecting-websocket does. */
  dispatchEvent(event: WebSocketEventLike): boolean {
    const list = (this.#listeners as Record<string, Listener<WebSocketEventLike>[] | undefined>)[event.type];
    for (const listener of list?.slice() ?? []) this.#call(listener, event);
    return true;
  }

  #startSession(): void {
    const options = this.#options;
    const manager = new ConnectionManager<WebSocketLike>({
      connector: createWebSocketConnector({
        url: this.#url,
        protocols: this.#protocols,
        WebSocket: options.WebSocket,
        hooks: this.#hooks(),
      }),
      backoff: options.backoff,
      minConnectTimeout: options.connectionTimeout,
      minUptime: options.minUptime,
      scheduler: options.scheduler,
      random: options.random,
      trace: (entry) => {
        options.trace?.(entry);
        if (options.debug) console.debug(`redialer/websocket ${entry.from} -> ${entry.to} (${entry.event}): ${entry.detail}`);
      },
    });
    this.#manager = manager;
    this.#release = {};
    if (options.pauseWhileOffline || options.retryOnVisible) {
      this.#stopWatching = watchEnvironment(options.environment, {
        online: () => {
          this.#onOnline(manager);
        },
        visible: () => {
          this.#onVisible(manager);
        },
      });
    }
    manager.state$.subscribe((snapshot) => {
      if (manager === this.#manager) this.#onSnapshot(snapshot);
    });
  }

  #onSnapshot(snapshot: ConnectionSnapshot<WebSocketLike>): void {
    if (snapshot.state !== 'READY') this.#socket = undefined;
    // A parked attempt (offline) is shown as IDLE with its pause, never as CONNECTING.
    if (snapshot.state === 'CONNECTING' && this.#pause !== undefined) return;
    if (snapshot.state === 'SHUTDOWN') {
      this.#clearPause();
      this.#stopWatching?.();
      this.#stopWatching = undefined;
    }
    this.#current = { ...snapshot, pause: snapshot.state === 'IDLE' ? this.#pause : undefined };
    this.#subject.next(this.#current);
    if (snapshot.state === 'SHUTDOWN') {
      for (const item of this.#queue.clear()) this.#drop(item.data, 'closed');
    }
  }

  #hooks(): SocketHooks {
    return {
      beforeAttempt: (context) => this.#beforeAttempt(context),
      created: (socket) => {
        this.#lastSocket = socket;
        if (this.#binaryType !== undefined) socket.binaryType = this.#binaryType;
      },
      open: (socket, event) => {
        this.#socket = socket;
        this.#flush(socket);
        this.#emit('open', event);
      },
      message: (event) => {
        this.#emit('message', event);
      },
      error: (event) => {
        this.#emit('error', event);
      },
      closed: (event, opened, context) => this.#closed(event, opened, context),
      notifyClose: (event) => {
        this.#emit('close', event);
      },
      releaseArgs: () => this.#release,
    };
  }

  #beforeAttempt(context: AttemptContext): 'go' | 'park' | Error {
    const options = this.#options;
    if (context.attempt - 1 > options.maxRetries) {
      return new PermanentError(`redialer: gave up after ${String(options.maxRetries)} retries (option "maxRetries")`, {
        cause: this.#current.lastError,
      });
    }
    if (options.pauseWhileOffline && isOffline(options.environment)) {
      this.#pause = { reason: 'offline' };
      this.#manager.idle();
      return 'park';
    }
    return 'go';
  }

  #closed(event: CloseEventLike, opened: boolean, context: AttemptContext): unknown {
    this.#socket = undefined;
    const options = this.#options;
    const error = new WebSocketCloseError(event, opened);
    const decision = decideClose(event, options);
    if (decision.action === 'stop') return permanent(error);
    if (decision.action === 'server-backoff') {
      // The manager waits at least this long (longer if its own backoff says so) in TRANSIENT_FAILURE.
      return retryAfter(error, serverBackoffDelay(decision.hintMs, options, options.random));
    }
    const snapshot = this.#current;
    const stable = opened && snapshot.state === 'READY' && options.scheduler.now() - snapshot.since >= options.minUptime;
    if (!stable && context.attempt - 1 >= options.maxRetries) {
      return new PermanentError(`redialer: gave up after ${String(options.maxRetries)} retries (option "maxRetries")`, { cause: error });
    }
    return error;
  }

  #onOnline(manager: ConnectionManager<WebSocketLike>): void {
    if (manager !== this.#manager) return;
    if (this.#pause?.reason === 'offline') {
      this.#pause = undefined;
      manager.resetBackoff();
      manager.connect();
    } else if (this.#current.state === 'TRANSIENT_FAILURE' && !isRetryAfterError(this.#current.lastError)) {
      // Coming back online retries at once, but a wait the server asked for is respected.
      manager.resetBackoff();
    }
  }

  #onVisible(manager: ConnectionManager<WebSocketLike>): void {
    if (manager !== this.#manager || !this.#options.retryOnVisible) return;
    const snapshot = this.#current;
    if (snapshot.state !== 'TRANSIENT_FAILURE' || isRetryAfterError(snapshot.lastError)) return;
    if (snapshot.nextAttemptAt - this.#options.scheduler.now() > this.#options.visibleRetryThreshold) manager.resetBackoff();
  }

  #clearPause(): void {
    this.#pause = undefined;
  }

  #flush(socket: WebSocketLike): void {
    for (let item = this.#queue.peek(); item !== undefined && socket.readyState === ReadyState.OPEN; item = this.#queue.peek()) {
      socket.send(item.data);
      this.#queue.shift();
    }
  }

  #drop(data: Message, reason: DropReason): 'rejected' {
    this.#emit('drop', { type: 'drop', data, reason });
    return 'rejected';
  }

  #emit<K extends EventType>(type: K, event: ReconnectingWebSocketEventMap[K]): void {
    const handler = this[`on${type}`] as EventHandler<ReconnectingWebSocketEventMap[K]> | null;
    if (handler !== null) this.#call(handler, event);
    for (const listener of this.#listeners[type].slice()) this.#call(listener, event);
  }

  #call<E>(listener: Listener<E>, event: E): void {
    try {
      if (typeof listener === 'function') listener.call(this, event);
      else listener.handleEvent(event);
    } catch (error) {
      report(error);
    }
  }
}

// `[Symbol.dispose]()` is `close()`, for `using` declarations; typed where the consumer's lib has it.
defineDispose(ReconnectingWebSocket.prototype, function dispose(this: ReconnectingWebSocket) {
  if (this.snapshot.state !== 'SHUTDOWN') this.close();
});

/** `using socket = new ReconnectingWebSocket(…)` closes the socket at the end of the scope. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- merged into the class
export interface ReconnectingWebSocket extends DisposableWhereDeclared {}
