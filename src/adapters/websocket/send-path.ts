/**
 * The send path of a {@link ReconnectingWebSocket}: a message goes to the open socket when nothing
 * is queued before it, else into the bounded {@link OutboundQueue} for the next open; whatever can
 * never be sent gets a `drop` event, and a queued message that goes out a `flush` event. Each
 * message has exactly one outcome.
 * @module
 */
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import { OutboundQueue, type QueuedMessage } from './outbound-queue.js';
import { type Message, ReadyState, type WebSocketEventLike, type WebSocketLike } from './websocket-types.js';

/**
 * What `sendWithStatus()` did with a message: `sent` (handed to the open socket), `queued` (held
 * until the next open, also across close() until reconnect() or `drainQueuedMessages()`; with
 * `dropOnClose`, dropped with a `drop` event when the client closes), `rejected` (not queued: a
 * `drop` event has been dispatched with the reason).
 */
export type SendStatus = 'sent' | 'queued' | 'rejected';

/** Why a message will never be sent. */
export type DropReason =
  /** Sent while not open and the queue was full (by count or by bytes). */
  | 'queue-full'
  /** With `dropOnClose`: queued when the client closed or gave up, or sent after that. */
  | 'closed';

/** Dispatched once for each message that will never be sent. */
export interface DropEvent extends WebSocketEventLike {
  readonly type: 'drop';
  /** The message, as passed to `send()`. */
  readonly data: Message;
  readonly reason: DropReason;
}

/**
 * Dispatched once for each message that was queued (`sendWithStatus()` said `'queued'`) when it goes
 * out: handed to an open socket, in the order it was sent. A message sent at once (`'sent'`) gets none.
 */
export interface FlushEvent extends WebSocketEventLike {
  readonly type: 'flush';
  /** The message, as passed to `send()`. */
  readonly data: Message;
}

/** The options the send path reads. */
export interface SendPathOptions {
  readonly maxEnqueuedMessages: number;
  readonly maxEnqueuedBytes: number;
  readonly dropOnClose: boolean;
}

/** The queue, the choice between socket and queue, and the `drop` event of each message refused. */
export class SendPath {
  /** The messages held for the next open. */
  readonly queue: OutboundQueue;
  readonly #dropOnClose: boolean;
  readonly #drop: (event: DropEvent) => void;
  readonly #flushed: (event: FlushEvent) => void;
  #warnedClosedSend = false;

  /** `drop` dispatches the `drop` event. */
  constructor(
    options: SendPathOptions,
    drop: (event: DropEvent) => void,
    flushed: (event: FlushEvent) => void = () => undefined,
  ) {
    this.queue = new OutboundQueue(options.maxEnqueuedMessages, options.maxEnqueuedBytes);
    this.#dropOnClose = options.dropOnClose;
    this.#drop = drop;
    this.#flushed = flushed;
  }

  /**
   * Sends `message` on `socket` if it is open, not held (offline) and nothing is queued, else queues
   * it or drops it.
   */
  send(message: Message, snapshot: ConnectionSnapshot, socket: WebSocketLike | undefined): SendStatus {
    if (snapshot.state === 'SHUTDOWN') {
      if (this.#dropOnClose) return this.#reject(message, 'closed');
      // After close() (not after giving up, where a reconnect() is the expected next step).
      if (snapshot.reason === 'shutdown') this.#warnClosedSend();
    }
    // Offline with the socket still open (READY, paused): it may be dead; hold the message until resume().
    const held = snapshot.state === 'READY' && snapshot.paused === true;
    if (!held && socket?.readyState === ReadyState.OPEN && this.queue.length === 0) {
      socket.send(message);
      return 'sent';
    }
    return this.queue.offer(message) ? 'queued' : this.#reject(message, 'queue-full');
  }

  /** Sends the queued messages on `socket`, oldest first, while it stays open. */
  flush(socket: WebSocketLike): void {
    for (
      let item = this.queue.peek();
      item !== undefined && socket.readyState === ReadyState.OPEN;
      item = this.queue.peek()
    ) {
      socket.send(item.data);
      this.queue.shift();
      this.#flushed({ type: 'flush', data: item.data });
    }
  }

  /**
   * With `dropOnClose`, takes the queued messages out when `snapshot` is SHUTDOWN (before it is
   * published, so that a subscriber that restarts the client queues for the new session);
   * {@link dropClosed} then dispatches their `drop` events.
   */
  takeOnShutdown(snapshot: ConnectionSnapshot): readonly QueuedMessage[] {
    return snapshot.state === 'SHUTDOWN' && this.#dropOnClose ? this.queue.clear() : [];
  }

  /** Dispatches a `closed` drop for each of `items`. */
  dropClosed(items: readonly QueuedMessage[]): void {
    for (const item of items) this.#reject(item.data, 'closed');
  }

  /** A new session (reconnect()): the warning of a send after close() may be given again. */
  rearm(): void {
    this.#warnedClosedSend = false;
  }

  #reject(data: Message, reason: DropReason): 'rejected' {
    this.#drop({ type: 'drop', data, reason });
    return 'rejected';
  }

  /**
   * A message sent after close() waits for reconnect() (as in partysocket); if the client is not used
   * again it is never sent, which usually means a stale reference. Said once per close().
   */
  #warnClosedSend(): void {
    if (this.#warnedClosedSend) return;
    this.#warnedClosedSend = true;
    console.warn(
      'redialer/websocket: send() was called after close(): the message is queued and goes out only if reconnect() is called (drainQueuedMessages() takes it back; option dropOnClose refuses it instead)',
    );
  }
}
