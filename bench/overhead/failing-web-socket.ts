/** A stub WebSocket whose every connection fails at once (a 'close' event on the next microtask). */
type Listener = (event: { code: number; reason: string; wasClean: boolean }) => void;

export class FailingWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  /** Connections attempted by all instances. */
  static attempts = 0;
  readyState = 0;
  binaryType = 'blob';
  readonly #close: Listener[] = [];

  constructor(readonly url: string) {
    FailingWebSocket.attempts += 1;
    queueMicrotask(() => {
      this.readyState = 3;
      for (const listener of [...this.#close]) listener({ code: 1006, reason: '', wasClean: false });
    });
  }

  addEventListener(type: string, listener: Listener): void {
    if (type === 'close') this.#close.push(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    if (type !== 'close') return;
    const i = this.#close.indexOf(listener);
    if (i >= 0) this.#close.splice(i, 1);
  }

  close(): void {
    this.readyState = 3;
  }
}
