/**
 * A real Node `http` Server-Sent Events server on 127.0.0.1 for tests: an event log (ids "1", "2", …)
 * that `publish()` appends to, replayed on each request from after its `Last-Event-ID` (all of it
 * without one) and then streamed live; the requests it accepted and the responses it holds open;
 * `kill()` (every socket destroyed at once, and nothing listening: connections refused) and
 * `restart()` (listening again on the same port); and `respond()` to answer the next requests some
 * other way (a status, raw bytes, a stream that goes quiet) for status-code and timeout tests.
 *
 * Times (`at`) are `performance.now()` milliseconds: monotonic, and comparable with the test's own
 * `performance.now()`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { listenOnFreePort, track } from './loopback.js';

/** One request the server accepted. */
export interface SseRequest {
  /** Its `Last-Event-ID` header, if it sent one. */
  readonly lastEventId: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly method: string;
  /** When it arrived (`performance.now()`). */
  readonly at: number;
}

/** One event of the log. */
export interface SseEvent {
  readonly id: string;
  readonly data: string;
  readonly event: string | undefined;
}

/** One request, handed to a {@link SseHandler}. */
export interface SseExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly request: SseRequest;
  /** Its index in `requests()` (0 for the first request the server accepted). */
  readonly index: number;
  /** Serves this request as the server does without a handler: the replay, then live events. */
  stream(): void;
}

/** Answers a request in place of the default stream. */
export type SseHandler = (exchange: SseExchange) => void;

export interface SseServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>/events`. */
  readonly url: string;
  /** Appends an event to the log (and sends it to every live stream); returns its id. */
  publish(data: string, event?: string): string;
  /** The log so far. */
  events(): readonly SseEvent[];
  /** Every request accepted so far, in order. */
  requests(): readonly SseRequest[];
  /** Responses open now (any kind: streams, and answers not yet finished). */
  open(): number;
  /** TCP connections open now. */
  connections(): number;
  /**
   * Answers the next `times` requests (all of them by default) with `handler` instead of the
   * default stream; `undefined` goes back to the default stream.
   */
  respond(handler: SseHandler | undefined, times?: number): void;
  /** Destroys every socket at once and stops listening: connections are refused until `restart()`. */
  kill(): Promise<void>;
  /** Listens again on the same port (after `kill()`). */
  restart(): Promise<void>;
  /** Destroys every socket and stops listening, for good; idempotent. */
  close(): Promise<void>;
}

const STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-store' } as const;

/** One event in the wire format; a multi-line `data` is sent as one `data:` line each. */
export function formatEvent(event: SseEvent): string {
  const lines = [`id: ${event.id}`];
  if (event.event !== undefined) lines.push(`event: ${event.event}`);
  for (const line of event.data.split('\n')) lines.push(`data: ${line}`);
  return `${lines.join('\n')}\n\n`;
}

/** A handler that answers `status` with `headers` and `body`, then ends the response. */
export function answer(status: number, headers: Record<string, string> = {}, body = ''): SseHandler {
  return ({ res }) => {
    res.writeHead(status, headers);
    res.end(status === 204 || status === 304 ? undefined : body);
  };
}

/** A handler that sends the event-stream headers, then `bytes` (raw, as given), then ends the body. */
export function streamThenEnd(bytes: string): SseHandler {
  return ({ res }) => {
    res.writeHead(200, STREAM_HEADERS);
    res.end(bytes);
  };
}

/**
 * A handler that sends the event-stream headers, then nothing but `comment` every `everyMs` (never
 * with `everyMs` undefined), holding the response open until the client or the server closes it.
 */
export function quietStream(everyMs?: number, comment = ': ping\n\n'): SseHandler {
  return ({ res }) => {
    res.writeHead(200, STREAM_HEADERS);
    res.flushHeaders();
    if (everyMs === undefined) return;
    const timer = setInterval(() => {
      if (!res.writableEnded && !res.destroyed) res.write(comment);
    }, everyMs);
    res.once('close', () => {
      clearInterval(timer);
    });
  };
}

/** Starts an {@link SseServer} on a free port of 127.0.0.1. */
export async function startSseServer(): Promise<SseServer> {
  const log: SseEvent[] = [];
  const accepted: SseRequest[] = [];
  const sockets = new Set<Socket>();
  const responses = new Set<ServerResponse>();
  const live = new Set<ServerResponse>();
  let handler: SseHandler | undefined;
  let handlerTimes = 0;
  let listening = false;
  let closed = false;

  const server = createServer((req, res) => {
    req.resume(); // a request body (a POST's) is read and dropped
    res.socket?.setNoDelay(true);
    responses.add(res);
    res.once('close', () => {
      responses.delete(res);
      live.delete(res);
    });
    const header = req.headers['last-event-id'];
    const request: SseRequest = {
      lastEventId: typeof header === 'string' ? header : undefined,
      headers: req.headers,
      method: req.method ?? 'GET',
      at: performance.now(),
    };
    const index = accepted.push(request) - 1;
    const stream = (): void => {
      res.writeHead(200, STREAM_HEADERS);
      res.flushHeaders();
      const after = request.lastEventId === undefined ? 0 : Number(request.lastEventId);
      const from = Number.isInteger(after) && after > 0 ? after : 0;
      const replay = log.slice(from).map(formatEvent).join('');
      if (replay !== '') res.write(replay);
      live.add(res);
    };
    const current = handler;
    if (current !== undefined) {
      handlerTimes -= 1;
      if (handlerTimes <= 0) handler = undefined;
      current({ req, res, request, index, stream });
    } else {
      stream();
    }
  });
  // A held-open stream is the point; nothing here should cut it.
  server.requestTimeout = 0;
  server.on('connection', (socket) => {
    track(sockets, socket);
  });

  const port = await listenOnFreePort(server);
  listening = true;

  // Every socket destroyed, and closed (so that `connections()` and `open()` read 0 on return); then
  // the listener closed. Destroyed sockets close within a tick or two: bounded.
  const stopListening = async (): Promise<void> => {
    const closing = [...sockets].map((socket) =>
      socket.closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            socket.once('close', () => {
              resolve();
            });
          }),
    );
    for (const socket of sockets) socket.destroy();
    live.clear();
    const stopped = listening
      ? new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        })
      : Promise.resolve();
    listening = false;
    await Promise.all([...closing, stopped]);
  };

  return {
    port,
    url: `http://127.0.0.1:${String(port)}/events`,
    publish(data, event) {
      const entry: SseEvent = { id: String(log.length + 1), data, event };
      log.push(entry);
      const text = formatEvent(entry);
      for (const res of live) if (!res.writableEnded && !res.destroyed) res.write(text);
      return entry.id;
    },
    events: () => log,
    requests: () => accepted,
    open: () => responses.size,
    connections: () => sockets.size,
    respond(next, times = Infinity) {
      handler = next;
      handlerTimes = times;
    },
    kill: stopListening,
    async restart() {
      if (closed) throw new Error('SseServer: restart() after close()');
      if (listening) return;
      await new Promise<void>((resolve, reject) => {
        const failed = (error: Error): void => {
          reject(error);
        };
        server.once('error', failed);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', failed);
          resolve();
        });
      });
      listening = true;
    },
    async close() {
      closed = true;
      await stopListening();
    },
  };
}
