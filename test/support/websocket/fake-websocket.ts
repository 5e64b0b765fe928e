import {
  type CloseEventLike,
  type Message,
  ReconnectingWebSocket,
  type ReconnectingWebSocketOptions,
  type WebSocketLike,
} from '../../../src/adapters/websocket/index.js';
import { type VirtualClock, createVirtualClock } from '../../../src/testing/index.js';

type Listener = (event: never) => void;

/** A scriptable WebSocket: the test opens, fails and closes each socket by hand. */
export class FakeSocket implements WebSocketLike {
  readyState = 0;
  protocol = '';
  extensions = '';
  bufferedAmount = 0;
  binaryType = 'blob';
  readonly sent: Message[] = [];
  /** The arguments of the client's close() call, if any. */
  closedWith: { code: number | undefined; reason: string | undefined } | undefined;
  readonly #listeners = new Map<string, Listener[]>();

  constructor(
    readonly url: string,
    readonly protocols?: string | string[],
  ) {}

  addEventListener(type: string, listener: Listener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  removeEventListener(type: string, listener: Listener): void {
    this.#listeners.set(
      type,
      (this.#listeners.get(type) ?? []).filter((l) => l !== listener),
    );
  }

  /** Listeners still attached, over all types. */
  listenerCount(): number {
    return [...this.#listeners.values()].reduce((n, list) => n + list.length, 0);
  }

  send(data: Message): void {
    if (this.readyState !== 1) throw new Error(`send() in readyState ${String(this.readyState)}`);
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    if (this.readyState >= 2) return;
    this.closedWith = { code, reason };
    this.readyState = 2;
  }

  /** The server accepts. */
  open(): void {
    this.readyState = 1;
    this.#emit('open', { type: 'open' });
  }

  /** A message arrives. */
  receive(data: unknown): void {
    this.#emit('message', { type: 'message', data });
  }

  /** An error event without a close (Node 22's own WebSocket on a refused connection). */
  emitError(error?: unknown): void {
    this.#emit(
      'error',
      error === undefined ? { type: 'error' } : { type: 'error', message: (error as Error).message, error },
    );
  }

  /** The connection is refused or lost: error, then close 1006. */
  fail(): void {
    this.#emit('error', { type: 'error' });
    this.finish(1006, '', false);
  }

  /** The close handshake completes (after a server close frame, or after the client's close()). */
  finish(code = this.closedWith?.code ?? 1005, reason = this.closedWith?.reason ?? '', wasClean = true): void {
    this.readyState = 3;
    const event: CloseEventLike = { type: 'close', code, reason, wasClean };
    this.#emit('close', event);
  }

  #emit(type: string, event: object): void {
    for (const listener of this.#listeners.get(type) ?? []) (listener as (e: object) => void)(event);
  }
}

/** A WebSocket class whose instances are recorded in `sockets`. */
export function fakeWebSocketClass(): {
  WebSocket: new (url: string, protocols?: string | string[]) => FakeSocket;
  sockets: FakeSocket[];
  last: () => FakeSocket;
} {
  const sockets: FakeSocket[] = [];
  class Recorded extends FakeSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      sockets.push(this);
    }
  }
  return {
    WebSocket: Recorded,
    sockets,
    last: () => {
      const socket = sockets.at(-1);
      if (socket === undefined) throw new Error('no socket yet');
      return socket;
    },
  };
}

/** A global scope stand-in with navigator.onLine, document.visibilityState and their events. */
export class FakeEnvironment extends EventTarget {
  readonly navigator = { onLine: true };
  readonly document = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  #count = 0;

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    this.#count += 1;
    super.addEventListener(type, listener);
  }

  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    this.#count -= 1;
    super.removeEventListener(type, listener);
  }

  /** Window listeners added and not removed. */
  get listeners(): number {
    return this.#count;
  }

  goOffline(): void {
    this.navigator.onLine = false;
    this.dispatchEvent(new Event('offline'));
  }

  goOnline(): void {
    this.navigator.onLine = true;
    this.dispatchEvent(new Event('online'));
  }

  setVisibility(state: 'visible' | 'hidden'): void {
    this.document.visibilityState = state;
    this.document.dispatchEvent(new Event('visibilitychange'));
  }
}

/**
 * A ReconnectingWebSocket on fake sockets and virtual time: `random` pinned at 0.5 unless `options`
 * says otherwise, no real page environment; `fake.last()` is the socket of the current attempt.
 */
export function virtualReconnectingWebSocket(options: ReconnectingWebSocketOptions = {}): {
  clock: VirtualClock;
  fake: ReturnType<typeof fakeWebSocketClass>;
  socket: ReconnectingWebSocket;
} {
  const clock = createVirtualClock();
  const fake = fakeWebSocketClass();
  const socket = new ReconnectingWebSocket('ws://example.test/', undefined, {
    WebSocket: fake.WebSocket,
    scheduler: clock.scheduler,
    random: () => 0.5,
    environment: new FakeEnvironment(),
    ...options,
  });
  return { clock, fake, socket };
}
