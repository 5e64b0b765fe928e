/**
 * The WebSocket connector: one attempt opens one socket; `open` is establishment; the socket's
 * `error` or `close`, whichever comes first, ends the attempt or the connection (Node 22's own
 * WebSocket fires `error` without `close` when a connection is refused). It reports every socket
 * event to the adapter through hooks and owns the socket's listeners.
 * @module
 */
import { Observable } from 'rxjs';
import type { Connector } from '../../core/connector.js';
import { permanent } from '../../errors/permanent-error.js';
import { readSafely } from '../../internal/read-safely.js';
import { describeValue } from '../../internal/validate.js';
import {
  type CloseEventLike,
  type ErrorEventLike,
  type MessageEventLike,
  type ProtocolsProvider,
  ReadyState,
  type UrlProvider,
  type WebSocketConstructor,
  type WebSocketEventLike,
  type WebSocketFactory,
  type WebSocketLike,
} from './websocket-types.js';
import { CloseEvent, ErrorEvent } from './websocket-events.js';

/** An event for the application: dispatched once the manager has published the state it leads to. */
export type AnnouncedEvent = readonly ['error', ErrorEventLike] | readonly ['close', CloseEventLike];

/**
 * How the adapter lets go of a live socket that the manager released: the socket is closed with
 * `code` and `reason`, nothing more is heard from it, and `events` are announced in its place (the
 * socket finishes its close handshake by itself).
 */
export interface Release {
  /** The close code and reason to close the socket with. */
  readonly code?: number;
  readonly reason?: string;
  readonly events: readonly AnnouncedEvent[];
}

/** Lets the adapter end a live connection itself (the heartbeat found it dead). */
export interface SocketControl {
  /** Ends the connection with `error` for the manager, closes the socket and announces `close`. */
  fail(error: unknown, close: CloseEventLike): void;
}

/** How the adapter takes part in each attempt. */
export interface SocketHooks {
  /** The socket was created. */
  created(socket: WebSocketLike): void;
  /** The socket opened; establishment is announced right after this returns (flush the queue here). */
  opening(socket: WebSocketLike, control: SocketControl): void;
  /** Establishment has been announced (the manager is READY). */
  open(socket: WebSocketLike, event: WebSocketEventLike): void;
  /** A message arrived on the live socket. */
  message(event: MessageEventLike): void;
  /**
   * The socket ended the attempt or the connection with `close` (and `error`, when an error event
   * came first): returns the error that the manager sees (wrap in PermanentError to stop).
   */
  ended(close: CloseEventLike, error: ErrorEventLike | undefined, opened: boolean): unknown;
  /** Events for the application, to dispatch after the manager's next published state. */
  announce(events: readonly AnnouncedEvent[]): void;
  /** The manager let go of the live socket (cut, reconnect(), close()). */
  released(socket: WebSocketLike, opened: boolean): Release;
}

/** What the connector needs to open sockets. */
export interface WebSocketConnectorConfig {
  readonly url: UrlProvider;
  readonly protocols: ProtocolsProvider | undefined;
  readonly WebSocket: WebSocketConstructor;
  readonly hooks: SocketHooks;
}

type SocketListener = Parameters<WebSocketLike['addEventListener']>[1];

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof readSafely(value, 'then') === 'function';
}

/**
 * The sub-protocols to open a socket with, from what the protocols provider gave: a string or a
 * non-empty array of strings; undefined for none (null, undefined, an empty array or string, as the
 * peers treat them); a TypeError for anything else.
 */
function toProtocols(value: unknown): string | string[] | undefined | TypeError {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((p) => typeof p === 'string')) {
    return value.length === 0 ? undefined : value;
  }
  return new TypeError(
    `redialer: Invalid protocols from the protocols provider: expected a string, an array of strings or null, got ${describeValue(value)}`,
  );
}

/** The close event announced when the socket reported an error and no close (yet). */
export function abnormalClose(reason = ''): CloseEventLike {
  return new CloseEvent(1006, reason);
}

/** Closes `socket` unless it is already closing; `terminate` (ws) also drops the TCP connection at once. */
function closeSocket(
  socket: WebSocketLike,
  code: number | undefined,
  reason: string | undefined,
  terminate = false,
): void {
  try {
    if (socket.readyState !== ReadyState.CLOSING && socket.readyState !== ReadyState.CLOSED) socket.close(code, reason);
    const ws = socket as WebSocketLike & { terminate?: () => void };
    if (terminate && typeof ws.terminate === 'function') ws.terminate();
  } catch {
    // A socket that cannot be closed any more is already on its way out.
  }
}

/** Creates the connector; each subscription is one attempt and, once open, one connection. */
export function createWebSocketConnector(config: WebSocketConnectorConfig): Connector<WebSocketLike> {
  const { hooks } = config;
  return () =>
    new Observable<WebSocketLike>((subscriber) => {
      let socket: WebSocketLike | undefined;
      let opened = false;
      // Set once the attempt or connection has ended, by the socket or by the manager.
      let ended = false;

      const end = (error: unknown, events: readonly AnnouncedEvent[]): void => {
        hooks.announce(events);
        subscriber.error(error);
      };
      const control: SocketControl = {
        fail: (error, close) => {
          if (ended || socket === undefined) return;
          ended = true;
          stopListening();
          closeSocket(socket, close.code, close.reason, true);
          end(error, [['close', close]]);
        },
      };

      // Whether the attempt or connection is still on (a subscriber of READY may have ended it).
      const live = (): boolean => !ended;
      const onOpen = (event: WebSocketEventLike): void => {
        if (ended || socket === undefined) return;
        opened = true;
        hooks.opening(socket, control);
        subscriber.next(socket);
        if (live()) hooks.open(socket, event);
      };
      const onMessage = (event: MessageEventLike): void => {
        if (!ended) hooks.message(event);
      };
      // Stays attached to the end: `ws` throws on an 'error' event that nobody listens to, and a
      // socket we closed while connecting emits one.
      const onError = (event: ErrorEventLike): void => {
        if (ended || socket === undefined) return;
        // First, so that an error event dispatched by close() below (Node 22 does) is ignored.
        ended = true;
        const close = abnormalClose();
        stopListening();
        closeSocket(socket, undefined, undefined);
        end(hooks.ended(close, event, opened), [
          ['error', event],
          ['close', close],
        ]);
      };
      const onClose = (event: CloseEventLike): void => {
        stopListening();
        socket?.removeEventListener('error', onError);
        socket?.removeEventListener('close', onClose);
        if (!ended) {
          ended = true;
          end(hooks.ended(event, undefined, opened), [['close', event]]);
        }
      };
      // The error and close listeners stay until the socket's close event, to hear its end.
      const listeners: [string, SocketListener][] = [
        ['open', onOpen],
        ['message', onMessage],
      ];
      const stopListening = (): void => {
        for (const [type, listener] of listeners) socket?.removeEventListener(type, listener);
      };

      /**
       * Ends an attempt that failed before it had a socket, with one `error` event (no `close`: there
       * was no socket). Reported a microtask later, as a socket's error always is: so that listeners
       * added right after the constructor hear the first attempt's, and so that the manager does not
       * take a url provider's TypeError for a bug in the connector (errors/programming-error.ts): the
       * provider is asked again for every attempt, and its next answer may be a good one.
       */
      const failEarly = (error: unknown): void => {
        queueMicrotask(() => {
          if (ended || subscriber.closed) return;
          ended = true;
          end(error, [['error', new ErrorEvent(error)]]);
        });
      };

      /** Gives `then` the provider's answer, or the value itself; a provider that fails fails the attempt. */
      const ask = (provider: unknown, then: (value: unknown) => void): void => {
        if (ended || subscriber.closed) return;
        if (typeof provider !== 'function') {
          then(provider);
          return;
        }
        let value: unknown;
        try {
          value = (provider as () => unknown)();
        } catch (error) {
          failEarly(error);
          return;
        }
        if (isPromiseLike(value)) Promise.resolve(value).then(then, failEarly);
        else then(value);
      };

      const start = (url: unknown, protocols: unknown): void => {
        if (ended || subscriber.closed) return;
        if (typeof url !== 'string') {
          failEarly(new TypeError(`redialer: the url provider must return a URL string, got ${describeValue(url)}`));
          return;
        }
        const list = toProtocols(protocols);
        if (list instanceof TypeError) {
          failEarly(list);
          return;
        }
        try {
          const Factory = config.WebSocket as unknown as WebSocketFactory;
          socket = list === undefined ? new Factory(url) : new Factory(url, list);
        } catch (error) {
          // A URL (or protocol list) the WebSocket class refuses: retrying fixed values cannot fix it;
          // a provider's next answer may.
          failEarly(
            typeof config.url === 'string' && typeof config.protocols !== 'function' ? permanent(error) : error,
          );
          return;
        }
        for (const [type, listener] of listeners) socket.addEventListener(type, listener);
        socket.addEventListener('error', onError);
        socket.addEventListener('close', onClose);
        hooks.created(socket);
      };

      // A url or protocols provider that throws, rejects or answers something else than it should
      // fails this attempt like a refused connection (retried on the backoff); a PermanentError stops.
      // Plain values (and providers that answer at once) open the socket synchronously.
      ask(config.url, (url) => {
        ask(config.protocols, (protocols) => {
          start(url, protocols);
        });
      });

      return () => {
        if (ended) return;
        ended = true;
        if (socket === undefined) return;
        if (socket.readyState === ReadyState.CLOSED) {
          onClose(abnormalClose());
          return;
        }
        const release = hooks.released(socket, opened);
        stopListening();
        closeSocket(socket, release.code, release.reason);
        hooks.announce(release.events);
      };
    });
}
