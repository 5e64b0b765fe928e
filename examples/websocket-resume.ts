/**
 * A feed that picks up where it left off after every reconnect: a WebSocket protocol with sequence
 * numbers on redialer's `ResumeCursor`, the resumable-stream contract that `ResilientStream` (gRPC)
 * and `ReconnectingEventSource` (SSE) are built on. Each item reaches the app once, in order; if the
 * server no longer keeps the items after the client's position, the app is told to start over and
 * the feed restarts from the beginning.
 *
 * The protocol, JSON text frames:
 *   client: { "type": "resume", "after": <seq> | null }  at each open (null: from the beginning)
 *   server: { "type": "item", "seq": <n>, "data": … }     in seq order, then live; it may replay a few
 *                                                        at or before `after`
 *           { "type": "cannot-resume" }                   `after` is older than what it keeps; it then
 *                                                        waits for the next `resume`
 */
import WebSocket from 'ws';
import { type CannotResumeError, ResumeCursor } from 'redialer';
import { ReconnectingWebSocket } from 'redialer/websocket';

type ServerFrame = { type: 'item'; seq: number; data: unknown } | { type: 'cannot-resume' };

export interface FeedHandlers {
  /** Each item once, in seq order. */
  readonly onItem: (seq: number, data: unknown) => void;
  /** The items since `error.cursor` are gone: drop what was built from the items so far; they start again. */
  readonly onResync: (error: CannotResumeError<number>) => void;
}

/** A running feed: `close()` closes the socket and stops reconnecting. */
export interface ResumableFeed {
  readonly socket: ReconnectingWebSocket;
  close(): void;
}

/** Follows the feed at `url`, resuming after the last item delivered at every reconnect. */
export function openResumableFeed(url: string, { onItem, onResync }: FeedHandlers): ResumableFeed {
  // The position is the seq of the last item delivered; an item not after it is a replay, dropped.
  const cursor = new ResumeCursor<number>({ isAfter: (seq, last) => seq > last });
  cursor.resync$.subscribe(onResync);

  // Node 22+ has a global WebSocket; on Node 20 pass the class from `ws`.
  const socket = new ReconnectingWebSocket(url, [], { WebSocket });
  let from: number | undefined; // where the current open resumed from

  const resume = (): void => {
    from = cursor.open();
    socket.send(JSON.stringify({ type: 'resume', after: from ?? null }));
  };
  socket.onopen = resume; // every connection starts by asking for what the app does not have yet

  socket.onmessage = (event) => {
    const frame = JSON.parse(String(event.data)) as ServerFrame;
    if (frame.type === 'item') {
      if (cursor.accept(frame.seq)) onItem(frame.seq, frame.data);
      return;
    }
    // Refused: the cursor forgets the position and tells the app (resync$, so onResync). The socket
    // is fine, so ask again from the beginning on it: closing it would only add a reconnect and its
    // backoff wait. refuse() returns undefined if this open was from the beginning already: that is
    // the server's own fault, and asking again would loop; the next connection asks again.
    if (cursor.refuse(from, frame) !== undefined) resume();
  };

  return {
    socket,
    close: () => {
      socket.close();
      cursor.complete();
    },
  };
}
