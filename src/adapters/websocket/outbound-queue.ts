/**
 * The bounded queue of messages sent while the socket is not open. Bounded by count and by bytes;
 * a message that does not fit is refused (never an older one evicted), so what is queued keeps its
 * order and each message has exactly one outcome: sent on open, refused at once, or dropped by close.
 * @module
 */
import type { Message } from './websocket-types.js';

/** One queued message and its size. */
export interface QueuedMessage {
  readonly data: Message;
  /** Bytes: UTF-8 length of a string, `size` of a Blob, `byteLength` otherwise. */
  readonly bytes: number;
}

/** The size of `data` in bytes, as it will go on the wire (a string in UTF-8). */
export function messageBytes(data: Message): number {
  if (typeof data === 'string') return utf8Length(data);
  if (typeof Blob !== 'undefined' && data instanceof Blob) return data.size;
  return (data as ArrayBufferLike | ArrayBufferView).byteLength;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** A FIFO of messages with a limit on their count and on their total bytes. */
export class OutboundQueue {
  readonly #items: QueuedMessage[] = [];
  #bytes = 0;

  constructor(
    /** Most messages held at once. */
    readonly maxMessages: number,
    /** Most bytes held at once. */
    readonly maxBytes: number,
  ) {}

  /** Messages held. */
  get length(): number {
    return this.#items.length;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends `data` if it fits within both limits; returns whether it was queued. */
  offer(data: Message): boolean {
    const bytes = messageBytes(data);
    if (this.#items.length + 1 > this.maxMessages || this.#bytes + bytes > this.maxBytes) return false;
    this.#items.push({ data, bytes });
    this.#bytes += bytes;
    return true;
  }

  /** The oldest message, without removing it. */
  peek(): QueuedMessage | undefined {
    return this.#items[0];
  }

  /** Removes and returns the oldest message. */
  shift(): QueuedMessage | undefined {
    const item = this.#items.shift();
    if (item !== undefined) this.#bytes -= item.bytes;
    return item;
  }

  /** Removes and returns every message, oldest first. */
  clear(): QueuedMessage[] {
    const items = this.#items.splice(0);
    this.#bytes = 0;
    return items;
  }
}
