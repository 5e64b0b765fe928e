/**
 * In-process stand-ins for the managers the file-descriptor limit leaves no room for: a WebSocket
 * class whose sockets "connect" to a {@link VirtualServer} with the real server's phases (keep, or
 * accept-then-close while flapping). Events are delivered on later ticks, as a real socket's are; the
 * adapter and its connection manager run unchanged on real timers.
 */
import type { Message, WebSocketLike } from '../../src/adapters/websocket/index.js';

type Listener = (event: unknown) => void;

/** The virtual side of the flapping server; counts as the real one does. */
export class VirtualServer {
  phase: 'up' | 'down' = 'up';
  delivered = 0;
  outOfOrder = 0;
  accepted = 0;
  readonly open = new Set<VirtualSocket>();
  readonly #lastSeq = new Map<string, number>();

  receive(text: string): void {
    const colon = text.indexOf(':');
    const id = text.slice(0, colon);
    const seq = Number(text.slice(colon + 1));
    this.delivered += 1;
    if (seq <= (this.#lastSeq.get(id) ?? -1)) this.outOfOrder += 1;
    else this.#lastSeq.set(id, seq);
  }

  /** Closes every open socket as the real server does on a flap (1001). */
  flap(): void {
    this.phase = 'down';
    for (const socket of this.open) socket.serverClose(1001, 'going away');
  }
}

/** A WebSocket-like socket connected to `server`. */
export class VirtualSocket implements WebSocketLike {
  readyState = 0;
  readonly protocol = '';
  readonly extensions = '';
  readonly bufferedAmount = 0;
  binaryType = 'blob';
  readonly #listeners = new Map<string, Listener[]>();

  constructor(
    readonly url: string,
    private readonly server: VirtualServer,
  ) {
    setTimeout(() => {
      this.#accept();
    }, 1);
  }

  addEventListener(type: string, listener: Listener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  removeEventListener(type: string, listener: Listener): void {
    this.#listeners.set(
      type,
      (this.#listeners.get(type) ?? []).filter((l) => l !== listener),
    );
  }

  send(data: Message): void {
    if (this.readyState !== 1) throw new Error('send() while not open');
    this.server.receive(typeof data === 'string' ? data : 'binary:0');
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    setTimeout(() => {
      this.#finish(code, reason);
    }, 1);
  }

  /** The server closes the connection: messages sent before this were delivered, later ones are refused by readyState. */
  serverClose(code: number, reason: string): void {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    setTimeout(() => {
      this.#finish(code, reason);
    }, 1);
  }

  #accept(): void {
    if (this.readyState !== 0) return;
    this.server.accepted += 1;
    this.readyState = 1;
    this.server.open.add(this);
    this.#emit('open', { type: 'open' });
    if (this.server.phase === 'down') this.serverClose(1000, 'flap');
  }

  #finish(code: number, reason: string): void {
    this.readyState = 3;
    this.server.open.delete(this);
    this.#emit('close', { type: 'close', code, reason, wasClean: true });
  }

  #emit(type: string, event: object): void {
    for (const listener of this.#listeners.get(type) ?? []) listener(event);
  }
}

/** A WebSocket class bound to `server`, for the adapter's `WebSocket` option. */
export function virtualWebSocketClass(server: VirtualServer): new (url: string) => VirtualSocket {
  return class extends VirtualSocket {
    constructor(url: string) {
      super(url, server);
    }
  };
}
