/**
 * The WebSocket connector: one attempt opens one socket; `open` is establishment; the socket's
 * `close` ends the attempt or the connection. It reports every socket event to the adapter through
 * hooks and owns the socket's listeners, which it removes once the socket has closed.
 * @module
 */
import { Observable } from 'rxjs';
import type { AttemptContext, Connector } from '../connector.js';
import { permanent } from '../errors/permanent-error.js';
import {
  type CloseEventLike,
  type ErrorEventLike,
  type MessageEventLike,
  ReadyState,
  type UrlProvider,
  type WebSocketConstructor,
  type WebSocketEventLike,
  type WebSocketFactory,
  type WebSocketLike,
} from './websocket-types.js';

/** How the adapter takes part in each attempt. */
export interface SocketHooks {
  /**
   * Before a socket is made: 'go'; 'park' to leave the attempt pending without a socket (the adapter
   * takes the manager elsewhere); or an error to fail the attempt with.
   */
  beforeAttempt(context: AttemptContext): 'go' | 'park' | Error;
  /** The socket was created. */
  created(socket: WebSocketLike): void;
  /** The socket opened; the manager is already READY. */
  open(socket: WebSocketLike, event: WebSocketEventLike): void;
  message(event: MessageEventLike): void;
  /** An error event while the attempt or connection was live. */
  error(event: ErrorEventLike): void;
  /**
   * The socket closed while live: returns the error that ends the attempt or the connection (wrap in
   * PermanentError to stop), or undefined when the adapter has already taken the manager elsewhere.
   */
  closed(event: CloseEventLike, opened: boolean, context: AttemptContext): unknown;
  /**
   * Every socket's close event, once, after the manager has seen it (or after the manager let go of
   * the socket: cut, idle, close()); for the caller's onclose.
   */
  notifyClose(event: CloseEventLike): void;
  /** The code and reason to close a socket with when the manager lets go of it. */
  releaseArgs(): { readonly code?: number; readonly reason?: string };
}

/** What the connector needs to open sockets. */
export interface WebSocketConnectorConfig {
  readonly url: UrlProvider;
  readonly protocols: string | string[] | undefined;
  readonly WebSocket: WebSocketConstructor;
  readonly hooks: SocketHooks;
}

type SocketListener = Parameters<WebSocketLike['addEventListener']>[1];

function nextUrl(provider: UrlProvider): string | Promise<string> {
  if (typeof provider === 'string') return provider;
  return provider();
}

/** Creates the connector; each subscription is one attempt and, once open, one connection. */
export function createWebSocketConnector(config: WebSocketConnectorConfig): Connector<WebSocketLike> {
  const { hooks } = config;
  return (context) =>
    new Observable<WebSocketLike>((subscriber) => {
      const verdict = hooks.beforeAttempt(context);
      if (verdict === 'park') return undefined;
      if (verdict !== 'go') {
        subscriber.error(verdict);
        return undefined;
      }
      let socket: WebSocketLike | undefined;
      let opened = false;
      let released = false;

      const onOpen = (event: WebSocketEventLike): void => {
        if (released || socket === undefined) return;
        opened = true;
        subscriber.next(socket);
        hooks.open(socket, event);
      };
      const onMessage = (event: MessageEventLike): void => {
        if (!released) hooks.message(event);
      };
      // After release, error events are the consequence of our own close (`ws` emits one when a
      // connecting socket is closed); the listener stays until `close` so that `ws` never sees an
      // unhandled 'error'.
      const onError = (event: ErrorEventLike): void => {
        if (!released) hooks.error(event);
      };
      const onClose = (event: CloseEventLike): void => {
        detach();
        if (!released) {
          released = true;
          const error = hooks.closed(event, opened, context);
          if (error !== undefined) subscriber.error(error);
        }
        hooks.notifyClose(event);
      };
      const listeners: [string, SocketListener][] = [
        ['open', onOpen],
        ['message', onMessage],
        ['error', onError],
        ['close', onClose],
      ];
      const detach = (): void => {
        for (const [type, listener] of listeners) socket?.removeEventListener(type, listener);
      };

      const start = (url: unknown): void => {
        if (subscriber.closed) return;
        if (typeof url !== 'string') {
          subscriber.error(permanent(new TypeError(`redialer: the url provider must return a string, got ${typeof url}`)));
          return;
        }
        try {
          const Factory = config.WebSocket as unknown as WebSocketFactory;
          socket = config.protocols === undefined ? new Factory(url) : new Factory(url, config.protocols);
        } catch (error) {
          // A malformed URL or protocol list: retrying cannot fix it.
          subscriber.error(permanent(error));
          return;
        }
        for (const [type, listener] of listeners) socket.addEventListener(type, listener);
        hooks.created(socket);
      };

      let url: string | Promise<string>;
      try {
        url = nextUrl(config.url);
      } catch (error) {
        subscriber.error(error);
        return undefined;
      }
      if (typeof url === 'string') start(url);
      else {
        Promise.resolve(url).then(start, (error: unknown) => {
          if (!subscriber.closed) subscriber.error(error);
        });
      }

      return () => {
        if (released) return;
        released = true;
        if (socket === undefined) return;
        if (socket.readyState === ReadyState.CLOSED) {
          detach();
          return;
        }
        if (socket.readyState !== ReadyState.CLOSING) {
          const { code, reason } = hooks.releaseArgs();
          socket.close(code, reason);
        }
      };
    });
}
