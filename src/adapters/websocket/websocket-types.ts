/**
 * The structural types the adapter needs from a WebSocket: the browser's native WebSocket, Node's
 * (>= 22) and the `ws` package all fit them, so the adapter never imports a WebSocket implementation.
 * @module
 */

/** What can be sent: the same as `WebSocket.send()` accepts. */
export type Message = string | ArrayBufferLike | Blob | ArrayBufferView;

/**
 * Where the URL comes from: a string, or a function returning one (or a Promise of one), asked before
 * every attempt. A function that throws, rejects or returns no string fails that attempt, which is
 * retried on the backoff; one that throws a PermanentError stops the client.
 */
export type UrlProvider = string | (() => string) | (() => Promise<string>);

/**
 * The sub-protocols to ask for: a string, an array of strings, or null for none; or a function
 * returning one of those (or a Promise of one), asked before every attempt, as the url provider is
 * (partysocket's ProtocolsProvider).
 */
export type ProtocolsProvider =
  null | string | string[] | (() => string | string[] | null) | (() => Promise<string | string[] | null>);

/** An event as a WebSocket delivers it; the adapter passes the socket's own events through. */
export interface WebSocketEventLike {
  readonly type: string;
}

/** A `message` event. */
export interface MessageEventLike extends WebSocketEventLike {
  // `any`, as on the DOM's MessageEvent, so that handlers written for WebSocket compile unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly data: any;
}

/** A `close` event. */
export interface CloseEventLike extends WebSocketEventLike {
  /** The close code (1006 when the connection was lost without a close frame). */
  readonly code: number;
  /** The close reason the peer sent, or ''. */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;
}

/** An `error` event (browsers give no detail; `ws` adds `message` and `error`). */
export interface ErrorEventLike extends WebSocketEventLike {
  readonly message?: string;
  readonly error?: unknown;
}

/** The part of a WebSocket instance the adapter uses. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly url: string;
  readonly protocol: string;
  readonly extensions: string;
  readonly bufferedAmount: number;
  binaryType: string;
  /** Sends `data` on the open socket. */
  send(data: Message): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  // The listener's parameter is `any` so that the DOM's WebSocket and `ws`'s, whose listener types
  // differ, both fit; the adapter's own listeners take the event types above.
  /** Adds a listener for `open`, `message`, `close` or `error`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  addEventListener(type: string, listener: (event: any) => void): void;
  /** Removes a listener given to `addEventListener`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  removeEventListener(type: string, listener: (event: any) => void): void;
}

/**
 * A WebSocket class: the global `WebSocket`, or `WebSocket` from the `ws` package. It is called as
 * `new WebSocket(url)` or `new WebSocket(url, protocols)`; the parameters are left open so that
 * classes with overloaded constructors (such as `ws`'s) are accepted.
 */
export type WebSocketConstructor = new (...args: never[]) => WebSocketLike;

/** How the adapter calls a {@link WebSocketConstructor}. */
export type WebSocketFactory = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** WebSocket ready states, as numbers. */
export const ReadyState = Object.freeze({ CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 } as const);
