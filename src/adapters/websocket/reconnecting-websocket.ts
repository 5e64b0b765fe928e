/**
 * A reconnecting WebSocket on the connection state machine: reconnecting-websocket's public surface,
 * gRPC's backoff, a bounded outbound queue with an outcome per message, server-directed backoff and
 * browser awareness. This class wires the parts: the connection manager and its connector, the
 * listeners (websocket-event-target.ts), the send path (send-path.ts), the peers' properties
 * (ready-state.ts), how a socket ends and is let go of (close-outcome.ts, socket-release.ts).
 * @module
 */
import type { Observable } from 'rxjs';
import { ConnectionManager } from '../../core/connection-manager.js';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import type { Connector } from '../../core/connector.js';
import { defineDispose, type DisposableWhereDeclared } from '../../internal/dispose.js';
import { happyEyeballs } from '../../connectors/happy-eyeballs.js';
import { reportUnhandledError } from '../../internal/report-unhandled-error.js';
import { LatestSubject } from '../../internal/latest-subject.js';
import { isOffline, watchEnvironment } from '../../internal/environment-watch.js';
import { type Heartbeat, startHeartbeat } from './heartbeat.js';
import { HeartbeatTimeoutError } from './heartbeat-timeout-error.js';
import { toMessage } from './message-payload.js';
import { CloseEvent } from './websocket-events.js';
import {
  type AnnouncedEvent,
  type Release,
  type SocketControl,
  type SocketHooks,
  createWebSocketConnector,
} from './websocket-connector.js';
import {
  type ReconnectingWebSocketOptions,
  type ResolvedWebSocketOptions,
  checkCloseCode,
  checkUrl,
  isUrlList,
  resolveProtocols,
  resolveWebSocketOptions,
} from './websocket-options.js';
import {
  type CloseEventLike,
  type ErrorEventLike,
  type Message,
  type MessageEventLike,
  type ProtocolsProvider,
  ReadyState,
  type UrlProvider,
  type WebSocketEventLike,
  type WebSocketLike,
} from './websocket-types.js';
import { closeOutcome } from './close-outcome.js';
import { traceOf } from './debug-trace.js';
import { isPaused, readyStateOf, retryCountOf, shouldReconnectOf, type WebSocketSnapshot } from './ready-state.js';
import { type DropEvent, type FlushEvent, SendPath, type SendStatus } from './send-path.js';
import { type Releasing, releaseOf } from './socket-release.js';
import {
  type EventHandler,
  type EventType,
  type Listener,
  type ListenerOptions,
  type ReconnectingWebSocketEventMap,
  WebSocketEventTarget,
} from './websocket-event-target.js';

export type { WebSocketSnapshot } from './ready-state.js';
export type { DropEvent, DropReason, FlushEvent, SendStatus } from './send-path.js';
export type {
  EventHandler,
  Listener,
  ListenerOptions,
  ReconnectingWebSocketEventMap,
} from './websocket-event-target.js';

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
  /** Called once for every socket's end: its close event, or the close that the client announces for it. */
  onclose: EventHandler<CloseEventLike> | null = null;
  /** Called for each message received. */
  onmessage: EventHandler<MessageEventLike> | null = null;
  /**
   * Called for a socket's error event while it is in use, and for a connect timeout (a `close` event
   * follows); also when an attempt fails before it has a socket: the url provider threw, rejected or
   * returned no string, or the URL was refused (no `close` follows).
   */
  onerror: EventHandler<ErrorEventLike> | null = null;
  /** Called once for each message that will never be sent. */
  ondrop: EventHandler<DropEvent> | null = null;
  /** Called once for each queued message when it goes out on an open socket, in order. */
  onflush: EventHandler<FlushEvent> | null = null;

  /**
   * The connection state, read-only: replays the current snapshot to each new subscriber and emits on
   * every change, in order. It does not complete on close(), since `reconnect()` may start again.
   */
  readonly state$: Observable<WebSocketSnapshot>;

  readonly #url: UrlProvider | readonly string[];
  readonly #protocols: ProtocolsProvider | undefined;
  readonly #options: ResolvedWebSocketOptions;
  /** The subject behind `state$`, made from the first snapshot (the manager replays it at once). */
  readonly #subject: LatestSubject<WebSocketSnapshot>;
  /** Snapshots that arrived while one was being emitted (restarted from a subscriber), in order. */
  readonly #unpublished: WebSocketSnapshot[] = [];
  #publishing = false;
  readonly #sendPath: SendPath;
  readonly #events: WebSocketEventTarget;
  #manager!: ConnectionManager<WebSocketLike>;
  #current!: WebSocketSnapshot;
  #socket: WebSocketLike | undefined;
  #lastSocket: WebSocketLike | undefined;
  /** The socket that reconnect() let go of, while readyState may still report it (see readyState). */
  #abandoned: WebSocketLike | undefined;
  /** Applied to every socket, as the peers do: 'blob' unless set (`ws` alone defaults to 'nodebuffer'). */
  #binaryType = 'blob';
  #heartbeat: Heartbeat | undefined;
  /** A ping after an offline spell is waiting for its answer (the connection is held until then). */
  #verifying = false;
  #stopWatching: (() => void) | undefined;
  /** Why the client is letting go of its socket (set around close() and reconnect()). */
  #releasing: Releasing | undefined;
  /** Events for the application that wait for the state they lead to. */
  readonly #announced: AnnouncedEvent[] = [];

  /**
   * `url` is a URL, a function returning one, or several URLs of the same service: those are raced as
   * `happyEyeballs()` races addresses (a 250 ms stagger, first open wins, a backoff per URL).
   */
  constructor(
    url: UrlProvider | readonly string[],
    protocols?: ProtocolsProvider,
    options?: ReconnectingWebSocketOptions,
  ) {
    checkUrl(url);
    this.#protocols = resolveProtocols(protocols);
    this.#url = url;
    this.#options = resolveWebSocketOptions(options);
    this.#events = new WebSocketEventTarget(this, (error) => {
      this.#report(error);
    });
    this.#sendPath = new SendPath(
      this.#options,
      (event) => {
        this.#emit('drop', event);
      },
      (event) => {
        this.#emit('flush', event);
      },
    );
    this.#startSession();
    this.#subject = new LatestSubject(this.#current);
    this.state$ = this.#subject.observable;
    if (!this.#options.startClosed) this.#manager.connect();
  }

  /** The current snapshot: the manager's (IDLE with `paused: true` while offline). */
  get snapshot(): WebSocketSnapshot {
    return this.#current;
  }

  /**
   * Retries in the current backoff cycle, counted as the peers count them: the attempt number minus
   * one while connecting, and while open until the connection has stayed up `minUptime` (then 0);
   * while waiting to retry (and so in the `error` and `close` events of a failed attempt or a lost
   * connection), the number of the retry to come. 0 after reconnect() and while idle.
   */
  get retryCount(): number {
    return retryCountOf(this.#current, this.#options.scheduler.now(), this.#options.minUptime);
  }

  /**
   * CONNECTING (0) while connecting, waiting to retry or paused; OPEN (1) while connected; CLOSING
   * (2) after reconnect() while the socket it let go of is still closing and the new one is not open
   * (in its `close` event too), as in the peers; CLOSED (3) before the first connect with
   * `startClosed`, and at once after close() or giving up (as partysocket 1.3).
   */
  get readyState(): number {
    return readyStateOf(this.#current, this.#socket?.readyState, this.#closingAbandoned());
  }

  /** Whether the socket that reconnect() let go of is still closing. */
  #closingAbandoned(): boolean {
    if (this.#abandoned?.readyState === ReadyState.CLOSING) return true;
    this.#abandoned = undefined;
    return false;
  }

  /**
   * Whether the client connects again by itself: false after close() or giving up, and before the
   * first connect with `startClosed`, until reconnect() (partysocket's `shouldReconnect`).
   */
  get shouldReconnect(): boolean {
    return shouldReconnectOf(this.#current);
  }

  /** Bytes queued here plus the open socket's own `bufferedAmount`. */
  get bufferedAmount(): number {
    return this.#sendPath.queue.bytes + (this.#socket?.bufferedAmount ?? 0);
  }

  /** Messages queued until the next open. */
  get queuedMessages(): number {
    return this.#sendPath.queue.length;
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

  /**
   * The binary type of received binary messages; it applies to the current socket and every later
   * one. @defaultValue 'blob', as in the browser and the peers (set 'arraybuffer', or with `ws`
   * 'nodebuffer', for other types)
   */
  get binaryType(): string {
    return this.#lastSocket?.binaryType ?? this.#binaryType;
  }

  /** Sets the binary type of the current socket and of every socket opened later. */
  set binaryType(value: string) {
    this.#binaryType = value;
    if (this.#lastSocket !== undefined) this.#lastSocket.binaryType = value;
  }

  /**
   * Sends `data` if the socket is open and nothing is queued before it; otherwise queues it for the
   * next open, in order. Returns `true` if it was handed to the open socket, `false` if it was queued
   * or could not be (as partysocket's `send()`); {@link sendWithStatus} tells those apart. A message
   * that cannot be queued gets a `drop` event: none is dropped silently. As with WebSocket, a value
   * that is neither a string nor binary data is sent as its string (`send(42)` sends `'42'`).
   *
   * @throws TypeError when called without a message, or with a symbol; nothing is queued.
   */
  send(data: Message): boolean {
    // WebSocket's send() tells send() from send(undefined).
    if (arguments.length === 0) throw new TypeError('redialer: send() needs a message, got no argument');
    return this.#sendPath.send(toMessage(data), this.#current, this.#socket) === 'sent';
  }

  /**
   * `send()`, returning what became of the message: `'sent'` (handed to the open socket), `'queued'`
   * (held for the next open) or `'rejected'` (not queued; a `drop` event has been dispatched).
   *
   * @throws TypeError when called without a message, or with a symbol; nothing is queued.
   */
  sendWithStatus(data: Message): SendStatus {
    if (arguments.length === 0) throw new TypeError('redialer: sendWithStatus() needs a message, got no argument');
    return this.#sendPath.send(toMessage(data), this.#current, this.#socket);
  }

  /**
   * Removes and returns the messages queued and not yet sent, oldest first: to hand them to another
   * client, or to keep them, when this one is closed for good.
   */
  drainQueuedMessages(): Message[] {
    return this.#sendPath.queue.clear().map((item) => item.data);
  }

  /**
   * Closes the socket (or abandons the attempt or the wait) and stops reconnecting. Queued messages
   * stay queued for `reconnect()` (`drainQueuedMessages()` takes them; with `dropOnClose` each gets
   * a `drop` event instead); no timer, listener or socket is left once the socket's
   * close event has been delivered (an open socket's after its close handshake; a socket still
   * connecting is abandoned at once, with a close event of code 1006). `reconnect()` starts again.
   */
  close(code = 1000, reason?: string): void {
    checkCloseCode(code);
    this.#releasing = reason === undefined ? { kind: 'close', code } : { kind: 'close', code, reason };
    try {
      this.#manager.shutdown();
    } finally {
      this.#releasing = undefined;
    }
  }

  /**
   * Closes the current socket, if any, with `code` (default 1000) and `reason`, dispatching its
   * `close` event at once (nothing more is heard from that socket), and connects again at once with
   * a fresh backoff; after close() or giving up, starts again.
   */
  reconnect(code?: number, reason?: string): void {
    checkCloseCode(code);
    this.#sendPath.rearm();
    if (this.#current.state === 'SHUTDOWN') {
      this.#startSession();
      this.#manager.connect();
      return;
    }
    this.#renew(this.#manager, code, reason, false);
  }

  /**
   * Lets go of the socket or attempt, as reconnect() does (its close announced with `code` and
   * `reason`), and connects again at once with a fresh backoff; with `resume`, also ends a pause once
   * the old socket is gone (so that nothing held is sent on it).
   */
  #renew(
    manager: ConnectionManager<WebSocketLike>,
    code: number | undefined,
    reason: string | undefined,
    resume: boolean,
  ): void {
    const state = this.#current.state;
    if (state === 'READY' || state === 'CONNECTING' || isPaused(this.#current)) {
      this.#releasing = {
        kind: 'reconnect',
        ...(code === undefined ? {} : { code }),
        ...(reason === undefined ? {} : { reason }),
      };
      try {
        manager.idle();
      } finally {
        this.#releasing = undefined;
      }
    }
    if (resume) manager.resume();
    manager.resetBackoff();
    manager.connect();
  }

  /** gRPC's ResetConnectBackoff: while waiting to retry, attempt now; the next wait starts from the initial delay. */
  resetBackoff(): void {
    this.#manager.resetBackoff();
  }

  /**
   * Adds a listener (a listener added twice is called twice, as in reconnecting-websocket). With
   * `{ once: true }` it is removed after its first call; with `{ signal }`, when the signal aborts.
   */
  addEventListener<K extends EventType>(
    type: K,
    listener: Listener<ReconnectingWebSocketEventMap[K]>,
    options?: boolean | ListenerOptions,
  ): void {
    this.#events.add(type, listener, options);
  }

  /** Removes every registration of `listener` for `type` (`options` are accepted and ignored). */
  removeEventListener<K extends EventType>(
    type: K,
    listener: Listener<ReconnectingWebSocketEventMap[K]>,
    options?: boolean | ListenerOptions,
  ): void;
  removeEventListener<K extends EventType>(type: K, listener: Listener<ReconnectingWebSocketEventMap[K]>): void {
    this.#events.remove(type, listener);
  }

  /** Calls the listeners of `event.type` (not the `on…` handler), as reconnecting-websocket does. */
  dispatchEvent(event: WebSocketEventLike): boolean {
    this.#events.dispatch(event.type, event);
    return true;
  }

  #startSession(): void {
    const options = this.#options;
    const hooks = this.#hooks();
    const connectorFor = (url: UrlProvider): Connector<WebSocketLike> =>
      createWebSocketConnector({ url, protocols: this.#protocols, WebSocket: options.WebSocket, hooks });
    const urls = this.#url;
    const trace = traceOf(options);
    const manager = new ConnectionManager<WebSocketLike>({
      connector: isUrlList(urls)
        ? happyEyeballs(
            urls.map((url) => ({ label: url, connector: connectorFor(url) })),
            {
              backoff: options.backoff,
              scheduler: options.scheduler,
              random: options.random,
              maxRetryAfter: options.maxRetryAfter,
            },
          )
        : connectorFor(urls),
      backoff: options.backoff,
      minConnectTimeout: options.connectionTimeout,
      minUptime: options.minUptime,
      backoffAfterLoss: options.backoffAfterLoss,
      maxRetries: options.maxRetries,
      serverHints: options.serverHints,
      maxRetryAfter: options.maxRetryAfter,
      scheduler: options.scheduler,
      random: options.random,
      reconnectSpread: options.reconnectSpread,
      attemptSpacing: options.attemptSpacing,
      ...(trace === undefined ? {} : { trace }),
      ...(options.onUnhandledError === undefined ? {} : { onUnhandledError: options.onUnhandledError }),
    });
    this.#manager = manager;
    if (options.pauseWhileOffline && isOffline(options.environment)) manager.pause({ offline: true });
    if (options.pauseWhileOffline || options.retryOnVisible || options.heartbeat !== undefined) {
      this.#stopWatching = watchEnvironment(options.environment, {
        online: () => {
          this.#onOnline(manager);
        },
        offline: () => {
          if (manager === this.#manager && options.pauseWhileOffline) manager.pause({ offline: true });
        },
        visible: () => {
          this.#onVisible(manager);
        },
        resumed: () => {
          // A frozen page's timers did not run: the heartbeat asks before it judges the silence.
          if (manager === this.#manager) this.#heartbeat?.check();
        },
      });
    }
    manager.state$.subscribe((snapshot) => {
      if (manager === this.#manager) this.#onSnapshot(snapshot);
    });
  }

  #onSnapshot(snapshot: ConnectionSnapshot<WebSocketLike>): void {
    if (snapshot.state === 'READY' || snapshot.state === 'SHUTDOWN') this.#abandoned = undefined;
    if (snapshot.state !== 'READY') {
      this.#socket = undefined;
      this.#heartbeat?.stop();
      this.#heartbeat = undefined;
    }
    if (snapshot.state === 'SHUTDOWN') {
      this.#stopWatching?.();
      this.#stopWatching = undefined;
    }
    // Back from offline on the same connection (verified): what was held goes out first, in order.
    const released = snapshot.state === 'READY' && snapshot.paused !== true && this.#current.state === 'READY';
    if (released && this.#socket !== undefined) this.#sendPath.flush(this.#socket);
    this.#current = snapshot;
    // The socket being verified after an offline spell died unanswered: online, so reconnect now.
    const unanswered = this.#verifying && snapshot.state !== 'READY';
    if (unanswered) this.#verifying = false;
    // Taken before the publish: a subscriber that restarts the socket queues for the new session.
    const dropped = this.#sendPath.takeOnShutdown(snapshot);
    this.#publish(snapshot);
    this.#sendPath.dropClosed(dropped);
    if (unanswered && !isOffline(this.#options.environment)) this.#manager.resume();
  }

  /**
   * Emits `snapshot` on `state$`, then dispatches the events that waited for it. A snapshot that
   * arrives while another is being emitted (a subscriber called reconnect() after close()) waits
   * until every subscriber has seen that one, so that each sees the snapshots in order and ends on
   * the current one.
   */
  #publish(snapshot: WebSocketSnapshot): void {
    // Unset only while the constructor starts the first session; the subject starts from its snapshot.
    const subject = this.#subject as LatestSubject<WebSocketSnapshot> | undefined;
    if (subject === undefined) return;
    if (this.#publishing) {
      this.#unpublished.push(snapshot);
      return;
    }
    this.#publishing = true;
    try {
      for (let next: WebSocketSnapshot | undefined = snapshot; next !== undefined; next = this.#unpublished.shift()) {
        subject.next(next);
        this.#flushAnnounced();
      }
    } finally {
      this.#publishing = false;
    }
  }

  #hooks(): SocketHooks {
    return {
      created: (socket) => {
        this.#lastSocket = socket;
        socket.binaryType = this.#binaryType;
      },
      opening: (socket, control) => {
        // With several URLs, the socket created first may have lost the race.
        this.#lastSocket = socket;
        this.#socket = socket;
        // Queued messages go first, before READY is announced: a send() from a state$ subscriber or
        // from onopen comes after them and is never refused by a queue that is about to drain.
        this.#sendPath.flush(socket);
        this.#startHeartbeat(socket, control);
      },
      open: (_socket, event) => {
        this.#emit('open', event);
      },
      message: (event) => {
        this.#onMessage(event);
      },
      ended: (close, error, opened) => this.#ended(close, error, opened),
      announce: (events) => {
        this.#announce(events);
      },
      released: (socket, opened) => this.#released(socket, opened),
    };
  }

  #startHeartbeat(socket: WebSocketLike, control: SocketControl): void {
    const config = this.#options.heartbeat;
    if (config === undefined) return;
    this.#heartbeat?.stop();
    this.#heartbeat = startHeartbeat(socket, config, {
      scheduler: this.#options.scheduler,
      random: this.#options.random,
      dead: (silence) => {
        control.fail(new HeartbeatTimeoutError(silence), new CloseEvent(4000, 'heartbeat timeout', this, false));
      },
      report: (error) => {
        this.#report(error);
      },
    });
  }

  #onMessage(event: MessageEventLike): void {
    this.#heartbeat?.alive();
    const isPong = this.#options.heartbeat?.isPong;
    if (isPong !== undefined) {
      try {
        if (isPong(event.data)) return;
      } catch (error) {
        this.#report(error);
      }
    }
    this.#emit('message', event);
  }

  #ended(close: CloseEventLike, errorEvent: ErrorEventLike | undefined, opened: boolean): unknown {
    this.#socket = undefined;
    return closeOutcome(close, errorEvent, opened, this.#options);
  }

  /** How to let go of the live socket: as close() or reconnect() asked, or (a cut attempt) as a timeout. */
  #released(socket: WebSocketLike, opened: boolean): Release {
    const releasing = this.#releasing;
    // readyState shows the socket reconnect() let go of CLOSING until it has closed or the new one opens.
    if (releasing?.kind === 'reconnect') this.#abandoned = socket;
    return releaseOf(releasing, opened, this.#manager.snapshot, this);
  }

  #announce(events: readonly AnnouncedEvent[]): void {
    if (events.length === 0) return;
    this.#announced.push(...events);
    // Normally dispatched right after the state they lead to is published; at the latest, now.
    queueMicrotask(() => {
      this.#flushAnnounced();
    });
  }

  #flushAnnounced(): void {
    for (let next = this.#announced.shift(); next !== undefined; next = this.#announced.shift()) {
      if (next[0] === 'error') this.#emit('error', next[1]);
      else this.#emit('close', next[1]);
    }
  }

  #onOnline(manager: ConnectionManager<WebSocketLike>): void {
    if (manager !== this.#manager) return;
    const current = this.#current;
    if (current.state === 'READY' && current.paused === true) {
      this.#verifyAfterOffline(manager);
      return;
    }
    this.#heartbeat?.check();
    // Back online: a wait ends now (the core keeps a wait the server asked for), a paused attempt starts.
    manager.wake();
    if (this.#options.pauseWhileOffline) manager.resume();
  }

  /**
   * Online again with the socket that was open when the page went offline: the path may have
   * changed and the socket died without a word. A heartbeat that can ask verifies it (a ping answered
   * within `timeout`: the held messages go out on it); otherwise, or when nothing answers, it is
   * replaced at once (the held messages go out on the new one).
   */
  #verifyAfterOffline(manager: ConnectionManager<WebSocketLike>): void {
    const socket = this.#socket;
    const verifying =
      socket !== undefined &&
      this.#heartbeat?.verify(() => {
        this.#verifying = false;
        // Answered: resume on this connection, unless the page went offline again meanwhile.
        if (manager === this.#manager && this.#socket === socket && !isOffline(this.#options.environment))
          manager.resume();
      }) === true;
    if (verifying) {
      this.#verifying = true;
      return;
    }
    this.#renew(manager, 1000, 'network changed', true);
  }

  #onVisible(manager: ConnectionManager<WebSocketLike>): void {
    if (manager !== this.#manager) return;
    // Background tabs throttle timers: a connection that died meanwhile is found now.
    this.#heartbeat?.check();
    if (this.#options.retryOnVisible) manager.wake({ ifWaitExceeds: this.#options.visibleRetryThreshold });
  }

  #emit<K extends EventType>(type: K, event: ReconnectingWebSocketEventMap[K]): void {
    this.#events.emit(type, event, this[`on${type}`] as EventHandler<ReconnectingWebSocketEventMap[K]> | null);
  }

  /** An exception of the application's code must not break the state machine, nor be swallowed. */
  #report(error: unknown): void {
    reportUnhandledError(error, this.#options.onUnhandledError);
  }
}

// `[Symbol.dispose]()` is `close()`, for `using` declarations; typed where the consumer's lib has it.
defineDispose(ReconnectingWebSocket.prototype, function dispose(this: ReconnectingWebSocket) {
  if (this.snapshot.state !== 'SHUTDOWN') this.close();
});

/** `using socket = new ReconnectingWebSocket(…)` closes the socket at the end of the scope. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- merged into the class
export interface ReconnectingWebSocket extends DisposableWhereDeclared {}
