/**
 * ReconnectingEventSource's resumable-stream contract against a real SSE server on 127.0.0.1
 * (test/support/sse-server.ts), with the real global `fetch` and fast options: a server that cannot
 * resume from the `Last-Event-ID` sent (409 / 410, or the app's `cannotResume`) makes `resync$` emit
 * and the source reconnect from the beginning on the backoff schedule; the same answer to a request
 * without a cursor stops for good; `isAfter` drops what a server replays again; an empty `id:` resets
 * the cursor; `close()` completes `resync$`; an `isAfter` that throws stops the source.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import {
  type CannotResumeError,
  type ConnectionSnapshot,
  isCannotResumeError,
  isPermanentError,
  retryAfterDelayOf,
} from '../../../src/index.js';
import {
  isEventStreamResponseError,
  ReconnectingEventSource,
  type ReconnectingEventSourceOptions,
} from '../../../src/adapters/sse/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST_SSE, messageEventOf } from '../../support/sse-client.js';
import {
  answer,
  type SseExchange,
  type SseHandler,
  type SseServer,
  startSseServer,
  streamThenEnd,
} from '../../support/sse-server.js';

const cleanup = cleanupAfterEach();

const STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-store' } as const;

/** Event IDs that are numbers in order, as most servers' are. */
const numeric = (id: string, last: string): boolean => Number(id) > Number(last);

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

async function server(): Promise<SseServer> {
  const s = await startSseServer();
  cleanup.push(() => s.close());
  return s;
}

/** The message of an error, or a description of what was not one (so that an assertion on it fails clearly). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : `(not an Error: ${typeof error})`;
}

/**
 * A source on `url` with the fast options (and `options`), recording what it emits — and, in one
 * `timeline`, the order of resyncs, `error`, `open` and messages; closed after the test.
 */
function source(url: string, options: ReconnectingEventSourceOptions = {}) {
  const es = new ReconnectingEventSource(url, { ...FAST_SSE, ...options });
  const snapshots: ConnectionSnapshot[] = [];
  const timeline: string[] = [];
  const resyncs: CannotResumeError<string>[] = [];
  /** At each resync: the source's readyState and lastEventId. */
  const atResync: { readyState: number; lastEventId: string }[] = [];
  const messages: MessageEvent<string>[] = [];
  const data: string[] = [];
  let resyncCompleted = false;
  let opens = 0;
  let errors = 0;
  const subscription = es.state$.subscribe((snapshot) => {
    snapshots.push(snapshot);
  });
  subscription.add(
    es.resync$.subscribe({
      next: (error) => {
        resyncs.push(error);
        atResync.push({ readyState: es.readyState, lastEventId: es.lastEventId });
        timeline.push(`resync ${error.cursor}`);
      },
      complete: () => {
        resyncCompleted = true;
      },
    }),
  );
  es.addEventListener('message', (event) => {
    const message = messageEventOf(event);
    messages.push(message);
    data.push(message.data);
    timeline.push(`message ${message.lastEventId} ${message.data}`);
  });
  es.addEventListener('open', () => {
    opens += 1;
    timeline.push('open');
  });
  es.addEventListener('error', () => {
    errors += 1;
    timeline.push('error');
  });
  cleanup.push(() => {
    es.close();
    subscription.unsubscribe();
  });
  return {
    es,
    snapshots,
    timeline,
    resyncs,
    atResync,
    messages,
    data,
    resyncCompleted: () => resyncCompleted,
    opens: () => opens,
    errors: () => errors,
    last: () => snapshots.at(-1),
  };
}

type Source = ReturnType<typeof source>;

/** Milliseconds between request `i - 1` and request `i` as the server saw them. */
function gap(s: SseServer, i: number): number {
  const requests = s.requests();
  const before = requests[i - 1];
  const after = requests[i];
  if (before === undefined || after === undefined) throw new Error(`no request ${String(i)}`);
  return after.at - before.at;
}

async function whenOpens(c: Source, s: SseServer, opens: number, timeout = 3000): Promise<void> {
  await vi.waitFor(
    () => {
      expect(c.opens()).toBe(opens);
      expect(s.requests()).toHaveLength(opens);
      expect(c.es.readyState).toBe(ReconnectingEventSource.OPEN);
    },
    { timeout, interval: 10 },
  );
}

async function whenClosed(c: Source, timeout = 3000): Promise<void> {
  await vi.waitFor(
    () => {
      expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
    },
    { timeout, interval: 10 },
  );
}

/**
 * A server whose log was compacted below `horizon`: a `Last-Event-ID` under it is answered `refusal`
 * (it can no longer replay from there); any other request gets the default stream.
 */
function compactedBelow(horizon: number, refusal: SseHandler): SseHandler {
  return (exchange) => {
    const { lastEventId } = exchange.request;
    if (lastEventId !== undefined && Number(lastEventId) < horizon) refusal(exchange);
    else exchange.stream();
  };
}

/** A handler that refuses every request that sent a `Last-Event-ID` with `refusal`, and streams the others. */
function refuseAnyCursor(refusal: SseHandler): SseHandler {
  return (exchange) => {
    if (exchange.request.lastEventId === undefined) exchange.stream();
    else refusal(exchange);
  };
}

/** A handler that answers with the stream headers and `bytes`, and holds the response open. */
function streamThenHold(bytes: string): SseHandler {
  return ({ res }) => {
    res.writeHead(200, STREAM_HEADERS);
    res.write(bytes);
  };
}

/** The refused cursor, and the server's answer (an EventStreamResponseError) in `cause`. */
function expectRefusal(error: unknown, s: SseServer, cursor: string, status: number): void {
  expect(isCannotResumeError(error)).toBe(true);
  if (!isCannotResumeError(error)) return;
  expect(error.cursor).toBe(cursor);
  const cause = error.cause;
  expect(isEventStreamResponseError(cause)).toBe(true);
  if (!isEventStreamResponseError(cause)) return;
  expect(cause.status).toBe(status);
  expect(cause.method).toBe('GET');
  expect(cause.url).toBe(s.url);
  expect(cause.retried).toBe(true);
}

/** Stopped for good: CLOSED, SHUTDOWN with a permanent failure, no resync, `resync$` complete, nothing held open. */
async function expectStopped(c: Source, s: SseServer, status: number): Promise<void> {
  await whenClosed(c);
  await sleep(400); // longer than the first backoffs (100, 160 ms): a retry would have come
  expect(s.requests()).toHaveLength(1);
  expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
  expect(c.resyncs).toHaveLength(0);
  expect(c.resyncCompleted()).toBe(true);
  expect(c.errors()).toBeGreaterThanOrEqual(1);
  const last = c.last();
  expect(last?.state).toBe('SHUTDOWN');
  expect(last?.state === 'SHUTDOWN' ? last.reason : undefined).toBe('permanent-failure');
  expect(messageOf(last?.lastError)).toMatch(new RegExp(`\\b${String(status)}\\b`));
  await vi.waitFor(() => {
    expect(s.open()).toBe(0);
  });
}

describe('a refusal to resume (409 / 410 to a request with Last-Event-ID)', () => {
  it('emits resync$ once, forgets the cursor, and reconnects without Last-Event-ID on the backoff: every event once, in order', async () => {
    const s = await server();
    for (const data of ['a', 'b', 'c', 'd', 'e']) s.publish(data); // ids 1..5
    s.respond(compactedBelow(4, answer(410, { 'content-type': 'text/plain' }, 'compacted')));
    const c = source(s.url, { lastEventId: '2' });
    await vi.waitFor(
      () => {
        expect(c.data).toHaveLength(5);
      },
      { timeout: 3000, interval: 10 },
    );
    await sleep(200); // no further request, no late duplicate

    expect(c.resyncs).toHaveLength(1);
    expectRefusal(c.resyncs[0], s, '2', 410);
    // At the resync the cursor is already forgotten; the attempt is a failed one (CONNECTING, an error event).
    expect(c.atResync).toEqual([{ readyState: ReconnectingEventSource.CONNECTING, lastEventId: '' }]);
    expect(c.timeline).toEqual([
      'resync 2',
      'error',
      'open',
      'message 1 a',
      'message 2 b',
      'message 3 c',
      'message 4 d',
      'message 5 e',
    ]);
    expect(s.requests().map((r) => r.lastEventId)).toEqual(['2', undefined]);
    expect(c.es.lastEventId).toBe('5');
    expect(c.es.readyState).toBe(ReconnectingEventSource.OPEN);
    // The failed attempt's error is the CannotResumeError itself; the next request came on the backoff (100 ms).
    const failure = c.snapshots.find((snapshot) => snapshot.state === 'TRANSIENT_FAILURE');
    expect(failure?.lastError).toBe(c.resyncs[0]);
    // Scheduled on the backoff from the attempt's start: 100 ms (random 0.5: the jitter's middle).
    const attempt = c.snapshots.find((snapshot) => snapshot.state === 'CONNECTING');
    const scheduled =
      failure?.state === 'TRANSIENT_FAILURE' && attempt !== undefined ? failure.nextAttemptAt - attempt.since : NaN;
    const waited = gap(s, 1);
    console.info(
      `SSE 410 to Last-Event-ID 2: resync, the next attempt scheduled +${String(scheduled)} ms from the first, ` +
        `the request without a cursor ${waited.toFixed(1)} ms after the first`,
    );
    expect(scheduled).toBeGreaterThanOrEqual(80);
    expect(scheduled).toBeLessThanOrEqual(120);
    expect(waited).toBeLessThan(1000);
  });

  it('treats a 409 the same way', async () => {
    const s = await server();
    s.publish('a');
    s.publish('b');
    s.respond(refuseAnyCursor(answer(409, { 'content-type': 'text/plain' }, 'conflict')));
    const c = source(s.url, { lastEventId: '1' });
    await vi.waitFor(() => {
      expect(c.data).toEqual(['a', 'b']);
    });
    expect(c.resyncs).toHaveLength(1);
    expectRefusal(c.resyncs[0], s, '1', 409);
    expect(s.requests().map((r) => r.lastEventId)).toEqual(['1', undefined]);
    expect(c.timeline.slice(0, 3)).toEqual(['resync 1', 'error', 'open']);
  });

  it.each<[string, (response: Response) => boolean, number, SseHandler]>([
    ['a 412', (response) => response.status === 412, 412, answer(412)],
    [
      'a header on a 400',
      (response) => response.headers.get('x-resume') === 'gone',
      400,
      answer(400, { 'x-resume': 'gone' }),
    ],
  ])('honours a custom cannotResume that recognises %s', async (_, recognises, status, refusal) => {
    const s = await server();
    s.publish('a');
    s.respond(refuseAnyCursor(refusal));
    const asked: number[] = [];
    const c = source(s.url, {
      lastEventId: '7',
      cannotResume: (response) => {
        asked.push(response.status);
        return recognises(response);
      },
    });
    await vi.waitFor(() => {
      expect(c.data).toEqual(['a']);
    });
    expect(asked).toEqual([status]); // once, for the answer to the request with a cursor
    expect(c.resyncs).toHaveLength(1);
    expectRefusal(c.resyncs[0], s, '7', status);
    expect(s.requests().map((r) => r.lastEventId)).toEqual(['7', undefined]);
    expect(c.es.readyState).toBe(ReconnectingEventSource.OPEN);
  });

  it('does not take a 412 as a refusal by default: it stops for good', async () => {
    const s = await server();
    s.respond(refuseAnyCursor(answer(412)));
    const c = source(s.url, { lastEventId: '7' });
    await expectStopped(c, s, 412);
  });

  it('a custom cannotResume replaces the default: a 410 it does not recognise stops for good', async () => {
    const s = await server();
    s.respond(refuseAnyCursor(answer(410)));
    const c = source(s.url, { lastEventId: '7', cannotResume: (response) => response.status === 412 });
    await expectStopped(c, s, 410);
  });

  it('asks cannotResume only when the request sent a Last-Event-ID', async () => {
    const s = await server();
    s.respond(answer(412));
    let asked = 0;
    const c = source(s.url, {
      cannotResume: () => {
        asked += 1;
        return true;
      },
    });
    await expectStopped(c, s, 412);
    expect(asked).toBe(0);
  });
});

describe('409 / 410 without a cursor', () => {
  it.each([409, 410])(
    'a %i to a request without Last-Event-ID stops for good: CLOSED, one request, no resync',
    async (status) => {
      const s = await server();
      s.respond(answer(status, { 'content-type': 'text/plain' }, 'gone')); // every request: a retry would be counted
      const c = source(s.url);
      await expectStopped(c, s, status);
      expect(s.requests()[0]?.lastEventId).toBeUndefined();
    },
  );

  it('a 410 to the reconnect without a cursor (after a refusal) stops for good: two requests, one resync', async () => {
    const s = await server();
    s.respond(answer(410, { 'content-type': 'text/plain' }, 'gone'));
    const c = source(s.url, { lastEventId: '3' });
    await vi.waitFor(
      () => {
        expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
        expect(s.requests()).toHaveLength(2);
      },
      { timeout: 3000, interval: 10 },
    );
    await sleep(400);
    expect(s.requests().map((r) => r.lastEventId)).toEqual(['3', undefined]);
    expect(c.resyncs).toHaveLength(1);
    expectRefusal(c.resyncs[0], s, '3', 410);
    expect(c.resyncCompleted()).toBe(true);
    expect(c.last()?.state).toBe('SHUTDOWN');
  });
});

describe('Retry-After on a refusal', () => {
  it('is honoured as a floor: the request without a cursor comes at least 1000 ms later', async () => {
    const s = await server();
    s.publish('a');
    s.respond(refuseAnyCursor(answer(410, { 'retry-after': '1', 'content-type': 'text/plain' }, 'compacted')));
    const c = source(s.url, { lastEventId: '1' });
    await vi.waitFor(
      () => {
        expect(s.requests()).toHaveLength(2);
        expect(c.es.readyState).toBe(ReconnectingEventSource.OPEN);
      },
      { timeout: 5000, interval: 10 },
    );
    expect(c.opens()).toBe(1);
    const waited = gap(s, 1);
    console.info(`SSE 410 + Retry-After: 1: the request without a cursor ${waited.toFixed(1)} ms after the first`);
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThanOrEqual(3000);
    expect(s.requests().map((r) => r.lastEventId)).toEqual(['1', undefined]);
    expect(c.resyncs).toHaveLength(1);
    expectRefusal(c.resyncs[0], s, '1', 410);
    const failure = c.snapshots.find((snapshot) => snapshot.state === 'TRANSIENT_FAILURE');
    expect(retryAfterDelayOf(failure?.lastError)).toBe(1000);
    await vi.waitFor(() => {
      expect(c.data).toEqual(['a']);
    });
  });
});

/** One entry of an {@link inclusiveReplayServer}'s log: an event, with an ID or without. */
interface Entry {
  readonly id: string | undefined;
  readonly data: string;
}

/**
 * A server that replays inclusively: on a request with `Last-Event-ID`, it sends again the event
 * with that ID and the `back` events with an ID before it (and the events without one between
 * them), then the rest of its log, then live events. `sent` is everything it wrote, in order, over
 * every response.
 */
function inclusiveReplayServer(s: SseServer, back: number) {
  const log: Entry[] = [];
  const sent: string[] = [];
  const live = new Set<ServerResponse>();
  let nextId = 1;
  const write = (res: ServerResponse, entries: readonly Entry[]): void => {
    if (entries.length === 0 || res.writableEnded || res.destroyed) return;
    res.write(entries.map((e) => `${e.id === undefined ? '' : `id: ${e.id}\n`}data: ${e.data}\n\n`).join(''));
    for (const e of entries) sent.push(e.data);
  };
  s.respond(({ res, request }: SseExchange) => {
    res.writeHead(200, STREAM_HEADERS);
    res.flushHeaders();
    const at = request.lastEventId === undefined ? -1 : log.findIndex((e) => e.id === request.lastEventId);
    let from = Math.max(at, 0);
    for (let older = 0; from > 0 && older < back;) {
      from -= 1;
      if (log[from]?.id !== undefined) older += 1;
    }
    write(res, log.slice(from));
    live.add(res);
    res.once('close', () => {
      live.delete(res);
    });
  });
  return {
    log,
    sent,
    /** Appends an event with the next ID. */
    event(): string {
      const id = String(nextId);
      nextId += 1;
      const entry = { id, data: `event ${id}` };
      log.push(entry);
      for (const res of live) write(res, [entry]);
      return id;
    },
    /** Appends an event without an ID. */
    note(): void {
      const entry = { id: undefined, data: `note ${String(log.length)}` };
      log.push(entry);
      for (const res of live) write(res, [entry]);
    },
  };
}

describe('isAfter drops what the server replays again', () => {
  const KILLS = 3;

  /**
   * KILLS + 1 server lives: in each, live events (ending with one without an ID, delivered before
   * the kill), then a kill, events published while the server is down, and a restart; the reconnect
   * gets the replay (older events again, notes among them) and the events it missed.
   */
  async function acrossKills(options: ReconnectingEventSourceOptions) {
    const s = await server();
    const replaying = inclusiveReplayServer(s, 2);
    const c = source(s.url, options);
    const expected = (): number => (options.isAfter === undefined ? replaying.sent.length : replaying.log.length);
    const cursors: string[] = [];
    for (let life = 0; life <= KILLS; life++) {
      await whenOpens(c, s, life + 1);
      replaying.event();
      replaying.note();
      const lastId = replaying.event();
      replaying.note();
      await vi.waitFor(
        () => {
          expect(c.data).toHaveLength(expected());
        },
        { timeout: 3000, interval: 10 },
      );
      expect(c.es.lastEventId).toBe(lastId);
      cursors.push(c.es.lastEventId);
      if (life === KILLS) break;
      await s.kill();
      await vi.waitFor(
        () => {
          expect(c.es.readyState).toBe(ReconnectingEventSource.CONNECTING);
        },
        { timeout: 3000, interval: 10 },
      );
      // While down (not delivered yet): first an event with an ID, so that what follows it is new.
      replaying.event();
      replaying.note();
      replaying.event();
      await s.restart();
    }
    await sleep(100); // a late duplicate would arrive by now
    expect(s.requests().map((r) => r.lastEventId)).toEqual([undefined, ...cursors.slice(0, KILLS)]);
    expect(s.requests()).toHaveLength(KILLS + 1);
    expect(c.opens()).toBe(KILLS + 1);
    expect(c.errors()).toBeGreaterThanOrEqual(KILLS);
    expect(s.connections()).toBe(1);
    // The server did replay: it sent more than its log.
    expect(replaying.sent.length).toBeGreaterThan(replaying.log.length);
    return { s, c, replaying };
  }

  it(
    `with isAfter, every event (with an ID or without) is delivered once and in order across ${String(KILLS)} kills`,
    { timeout: 10_000 },
    async () => {
      const { c, replaying } = await acrossKills({ isAfter: numeric });
      const published = replaying.log.map((e) => e.data);
      console.info(
        `SSE inclusive replay across ${String(KILLS)} kills with isAfter: log ${String(published.length)}, ` +
          `sent ${String(replaying.sent.length)}, delivered ${String(c.data.length)}`,
      );
      expect(c.data).toEqual(published);
      expect(new Set(c.data).size).toBe(c.data.length);
    },
  );

  it(
    `without isAfter, the replayed events are delivered again (${String(KILLS)} kills)`,
    { timeout: 10_000 },
    async () => {
      const { c, replaying } = await acrossKills({});
      expect(c.data).toEqual(replaying.sent);
      const duplicated = c.data.length - new Set(c.data).size;
      console.info(
        `SSE inclusive replay across ${String(KILLS)} kills without isAfter: ${String(duplicated)} duplicates`,
      );
      expect(duplicated).toBe(replaying.sent.length - replaying.log.length);
      expect(duplicated).toBeGreaterThan(0);
    },
  );

  it('drops an event not after the cursor and the events without an ID that follow it, up to a new one', async () => {
    const s = await server();
    s.respond(
      streamThenHold(
        'id: 2\ndata: a\n\ndata: a-note\n\nid: 3\ndata: b\n\ndata: b-note\n\nid: 4\ndata: c\n\ndata: c-note\n\n',
      ),
    );
    const c = source(s.url, { lastEventId: '3', isAfter: numeric });
    await vi.waitFor(() => {
      expect(c.data).toEqual(['c', 'c-note']);
    });
    expect(c.messages.map((m) => m.lastEventId)).toEqual(['4', '4']);
    expect(c.es.lastEventId).toBe('4');
  });

  it('without isAfter, the same stream is delivered whole (IDs are opaque)', async () => {
    const s = await server();
    s.respond(
      streamThenHold(
        'id: 2\ndata: a\n\ndata: a-note\n\nid: 3\ndata: b\n\ndata: b-note\n\nid: 4\ndata: c\n\ndata: c-note\n\n',
      ),
    );
    const c = source(s.url, { lastEventId: '3' });
    await vi.waitFor(() => {
      expect(c.data).toEqual(['a', 'a-note', 'b', 'b-note', 'c', 'c-note']);
    });
    expect(c.messages.map((m) => m.lastEventId)).toEqual(['2', '2', '3', '3', '4', '4']);
  });

  it('a reconnect starts not replaying, and a dropped event leaves the cursor where it was', async () => {
    const s = await server();
    s.respond((exchange) => {
      if (exchange.index === 0)
        streamThenEnd('id: 4\ndata: old\n\n')(exchange); // a replay, then the end
      else streamThenHold('data: fresh\n\nid: 6\ndata: six\n\n')(exchange);
    });
    const c = source(s.url, { lastEventId: '5', isAfter: numeric });
    await vi.waitFor(
      () => {
        expect(c.data).toEqual(['fresh', 'six']);
      },
      { timeout: 3000, interval: 10 },
    );
    expect(s.requests().map((r) => r.lastEventId)).toEqual(['5', '5']);
    expect(c.messages.map((m) => m.lastEventId)).toEqual(['5', '6']);
    expect(c.es.lastEventId).toBe('6');
  });

  it('an isAfter that throws stops the source: CLOSED, SHUTDOWN with the error, no retry', async () => {
    const s = await server();
    for (const data of ['a', 'b', 'c', 'd', 'e']) s.publish(data);
    const boom = new Error('isAfter exploded');
    let calls = 0;
    const c = source(s.url, {
      lastEventId: '2',
      isAfter: () => {
        calls += 1;
        throw boom;
      },
    });
    await whenClosed(c);
    await sleep(400); // a retry would have come
    expect(s.requests()).toHaveLength(1);
    expect(calls).toBe(1); // the first replayed event ("3"); nothing after it
    expect(c.data).toEqual([]);
    expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
    expect(c.errors()).toBeGreaterThanOrEqual(1);
    expect(c.resyncs).toHaveLength(0);
    expect(c.resyncCompleted()).toBe(true);
    const last = c.last();
    expect(last?.state).toBe('SHUTDOWN');
    expect(last?.state === 'SHUTDOWN' ? last.reason : undefined).toBe('permanent-failure');
    const lastError = last?.lastError;
    expect(isPermanentError(lastError)).toBe(true);
    expect(isPermanentError(lastError) ? lastError.cause : undefined).toBe(boom);
    expect(messageOf(lastError)).toContain('isAfter exploded');
    expect(c.es.manager.snapshot.lastError).toBe(lastError);
    await vi.waitFor(() => {
      expect(s.open()).toBe(0);
    });
  });
});

describe('an empty id: field', () => {
  it.each([
    ['on an event', 'id: 7\ndata: before\n\nid:\ndata: x\n\n', ['before', 'x'], ['7', '']],
    ['on a block without data', 'id: 7\ndata: before\n\nid:\n\n', ['before'], ['7']],
  ])(
    '%s resets the cursor: lastEventId is "" and the reconnect sends no Last-Event-ID',
    async (_, bytes, data, ids) => {
      const s = await server();
      s.respond(streamThenEnd(bytes), 1);
      const c = source(s.url, { lastEventId: '3' });
      await whenOpens(c, s, 2);
      expect(c.data).toEqual(data);
      expect(c.messages.map((m) => m.lastEventId)).toEqual(ids);
      expect(c.es.lastEventId).toBe('');
      expect(s.requests().map((r) => r.lastEventId)).toEqual(['3', undefined]);
    },
  );

  it('with isAfter, an event after the reset is new whatever its ID', async () => {
    const s = await server();
    s.respond(streamThenHold('id: 7\ndata: a\n\nid:\ndata: x\n\nid: 1\ndata: b\n\n'));
    const c = source(s.url, { isAfter: numeric });
    await vi.waitFor(() => {
      expect(c.data).toEqual(['a', 'x', 'b']);
    });
    expect(c.messages.map((m) => m.lastEventId)).toEqual(['7', '', '1']);
    expect(c.es.lastEventId).toBe('1');
  });
});

describe('close()', () => {
  it('while OPEN completes resync$ at once and lets the response go', async () => {
    const s = await server();
    s.publish('a');
    const c = source(s.url, { lastEventId: '1', isAfter: numeric });
    await whenOpens(c, s, 1);
    expect(s.open()).toBe(1);
    c.es.close();
    expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
    expect(c.resyncCompleted()).toBe(true);
    await vi.waitFor(
      () => {
        expect(s.open()).toBe(0);
      },
      { timeout: 2000, interval: 10 },
    );
    await sleep(300);
    expect(s.requests()).toHaveLength(1);
    expect(c.resyncs).toHaveLength(0);
  });

  it('while a request with a cursor waits for its answer completes resync$ and aborts the request', async () => {
    const s = await server();
    s.respond(() => undefined); // never answers
    const c = source(s.url, { lastEventId: '4' });
    await vi.waitFor(() => {
      expect(s.requests()).toHaveLength(1);
      expect(s.open()).toBe(1);
    });
    c.es.close();
    expect(c.resyncCompleted()).toBe(true);
    await vi.waitFor(
      () => {
        expect(s.open()).toBe(0);
      },
      { timeout: 2000, interval: 10 },
    );
    await sleep(300);
    expect(s.requests()).toHaveLength(1);
    expect(c.resyncs).toHaveLength(0);
    expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
  });

  it('in the wait after a refusal completes resync$ and makes no further request', async () => {
    const s = await server();
    s.respond(refuseAnyCursor(answer(410)));
    const c = source(s.url, { lastEventId: '4' });
    c.es.addEventListener('error', () => {
      c.es.close(); // the resync has been emitted; the reconnect without a cursor is due in 100 ms
    });
    await whenClosed(c);
    expect(c.resyncs).toHaveLength(1);
    expect(c.resyncCompleted()).toBe(true);
    await sleep(300);
    expect(s.requests()).toHaveLength(1);
    expect(s.open()).toBe(0);
    expect(c.last()?.state).toBe('SHUTDOWN');
  });

  it('from a resync$ subscriber stops at once: CLOSED, resync$ complete, no request without a cursor', async () => {
    const s = await server();
    s.respond(refuseAnyCursor(answer(410)));
    const c = source(s.url, { lastEventId: '4' });
    const seen: string[] = [];
    c.es.resync$.subscribe({
      next: (error) => {
        seen.push(`resync ${error.cursor}`);
        c.es.close(); // the app drops the source and builds a new one from a fresh snapshot
      },
      complete: () => {
        seen.push('complete');
      },
    });
    await whenClosed(c);
    expect(seen).toEqual(['resync 4', 'complete']);
    await sleep(300); // the reconnect would have come at 100 ms
    expect(s.requests()).toHaveLength(1);
    const last = c.last();
    expect(last?.state === 'SHUTDOWN' ? last.reason : undefined).toBe('shutdown');
    await vi.waitFor(() => {
      expect(s.open()).toBe(0);
    });
  });
});
