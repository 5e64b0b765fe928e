/**
 * A streaming parser of the `text/event-stream` format, as WHATWG HTML §9.2.6 ("Interpreting an event
 * stream") specifies it: lines end with CRLF, LF or CR (also across chunks); a leading BOM is dropped;
 * a line starting with a colon is a comment; `field: value` (one leading space dropped) or `field`
 * alone; `data` lines join with LF; `event` sets the type; `id` sets the last event ID buffer unless
 * its value contains NUL, and the blank line that ends the block makes it the cursor (the last event
 * ID string), also for a block without data, which dispatches nothing; `retry` counts only when
 * its value is all ASCII digits; unknown fields are ignored; a blank line dispatches the event if its
 * data buffer is not empty.
 *
 * Hand-written rather than taken from `eventsource-parser` because that package drops the `id` of a
 * block without data, which the spec keeps as the cursor to resume from.
 * @module
 */

/** One dispatched event. */
export interface ParsedEvent {
  /** The event type: `message` unless an `event` field said otherwise. */
  readonly type: string;
  readonly data: string;
  /** The last event ID when it was dispatched (the cursor, also after events without an `id`). */
  readonly lastEventId: string;
  /** The block's own `id` field (its last valid one), or undefined when it had none: what tells a replayed event. */
  readonly id: string | undefined;
}

/** What the parser reports. */
export interface ParserHandlers {
  /**
   * The cursor moved without an event: a block without data ended with a new last event ID (a block
   * with data gives its `id` and the new `lastEventId` on its event).
   */
  cursor?(id: string): void;
  /** An event was dispatched (a blank line ended a block with data). */
  event(event: ParsedEvent): void;
  /** A valid `retry` field: the reconnection time the server asks for, ms. */
  retry(ms: number): void;
}

const LF = 10;
const CR = 13;

/** A parser for one response body; `feed` decoded text as it arrives, `lastEventId` across lines. */
export class EventStreamParser {
  readonly #handlers: ParserHandlers;
  /** The last event ID buffer: what the block being read has set so far. */
  #buffer: string;
  /** The last event ID string: the buffer as the last ended block left it. */
  #lastEventId: string;
  #pending = '';
  /** The previous chunk ended with CR: a LF starting the next one belongs to it. */
  #afterCr = false;
  #first = true;
  #data: string[] = [];
  #type = '';
  /** The block's own `id` field so far. */
  #id: string | undefined;

  constructor(handlers: ParserHandlers, lastEventId = '') {
    this.#handlers = handlers;
    this.#buffer = lastEventId;
    this.#lastEventId = lastEventId;
  }

  /** The cursor: the last event ID as of the last ended block, what a reconnect sends as `Last-Event-ID`. */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Feeds decoded text; dispatches every event completed by it. */
  feed(text: string): void {
    let chunk = text;
    if (this.#first && chunk.length > 0) {
      this.#first = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    let start = 0;
    if (this.#afterCr && chunk.charCodeAt(0) === LF) start = 1;
    this.#afterCr = false;
    for (let i = start; i < chunk.length; i++) {
      const code = chunk.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      const line = this.#pending + chunk.slice(start, i);
      this.#pending = '';
      if (code === CR) {
        if (i + 1 === chunk.length) this.#afterCr = true;
        else if (chunk.charCodeAt(i + 1) === LF) i += 1;
      }
      start = i + 1;
      this.#line(line);
    }
    this.#pending += chunk.slice(start);
  }

  /** The stream ended: an incomplete event (and an `id` of it) is discarded, as the spec says. */
  end(): void {
    this.#pending = '';
    this.#buffer = this.#lastEventId;
    this.#data = [];
    this.#type = '';
    this.#id = undefined;
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // ':' a comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        return;
      case 'event':
        this.#type = value;
        return;
      case 'id':
        if (!value.includes('\0')) {
          this.#buffer = value;
          this.#id = value;
        }
        return;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.#handlers.retry(Number(value));
        return;
      default:
        return;
    }
  }

  #dispatch(): void {
    const data = this.#data;
    const type = this.#type;
    const id = this.#id;
    this.#data = [];
    this.#type = '';
    this.#id = undefined;
    const moved = this.#buffer !== this.#lastEventId;
    this.#lastEventId = this.#buffer;
    if (data.length === 0) {
      if (moved) this.#handlers.cursor?.(this.#lastEventId);
      return;
    }
    this.#handlers.event({
      type: type === '' ? 'message' : type,
      data: data.join('\n'),
      lastEventId: this.#lastEventId,
      id,
    });
  }
}
