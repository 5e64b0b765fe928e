/**
 * ReconnectingEventSource against a real SSE server on 127.0.0.1 (test/support/sse-server.ts), with
 * the real global `fetch` and fast options: delivery across server kills (replay fills each gap,
 * once and in order), Last-Event-ID, per-attempt headers, the server's `retry:` and Retry-After as
 * floors, which statuses are retried and which stop for good, the idle timeout, close(), and named
 * events. Server times are `performance.now()`, taken when each request arrives.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import type { ConnectionSnapshot } from '../../../src/index.js';
import {
  isIdleTimeoutError,
  ReconnectingEventSource,
  type ReconnectingEventSourceOptions,
} from '../../../src/adapters/sse/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST_SSE, messageEventOf } from '../../support/sse-client.js';
import {
  answer,
  quietStream,
  type SseHandler,
  type SseServer,
  startSseServer,
  streamThenEnd,
} from '../../support/sse-server.js';

const cleanup = cleanupAfterEach();

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

async function server(): Promise<SseServer> {
  const s = await startSseServer();
  cleanup.push(() => s.close());
  return s;
}

/** A source on `url` with the fast options (and `options`), recording what it emits; closed after the test. */
function source(url: string, options: ReconnectingEventSourceOptions = {}) {
  const es = new ReconnectingEventSource(url, { ...FAST_SSE, ...options });
  const snapshots: ConnectionSnapshot[] = [];
  const subscription = es.state$.subscribe((snapshot) => {
    snapshots.push(snapshot);
  });
  const messages: MessageEvent<string>[] = [];
  const data: string[] = [];
  let opens = 0;
  let errors = 0;
  es.addEventListener('message', (event) => {
    const message = messageEventOf(event);
    messages.push(message);
    data.push(message.data);
  });
  es.addEventListener('open', () => {
    opens += 1;
  });
  es.addEventListener('error', () => {
    errors += 1;
  });
  cleanup.push(() => {
    es.close();
    subscription.unsubscribe();
  });
  return {
    es,
    snapshots,
    messages,
    data,
    opens: () => opens,
    errors: () => errors,
    last: () => snapshots.at(-1),
  };
}

/** The message of an error, or a description of what was not one (so that an assertion on it fails clearly). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : `(not an Error: ${typeof error})`;
}

/** Milliseconds between request `i - 1` and request `i` as the server saw them. */
function gap(s: SseServer, i: number): number {
  const requests = s.requests();
  const before = requests[i - 1];
  const after = requests[i];
  if (before === undefined || after === undefined) throw new Error(`no request ${String(i)}`);
  return after.at - before.at;
}

async function whenOpen(c: ReturnType<typeof source>, s: SseServer, requests: number, timeout = 5000): Promise<void> {
  await vi.waitFor(
    () => {
      expect(s.requests().length).toBeGreaterThanOrEqual(requests);
      expect(c.es.readyState).toBe(ReconnectingEventSource.OPEN);
    },
    { timeout, interval: 10 },
  );
}

describe('ReconnectingEventSource on a real SSE server', () => {
  it(
    'delivers every event exactly once and in order across 10 server kills, one request per server life',
    {
      timeout: 15_000,
    },
    async () => {
      const KILLS = 10;
      const TOTAL = 300;
      const s = await server();
      const c = source(s.url);
      await whenOpen(c, s, 1);

      const published: string[] = [];
      let down = false;
      let publishedWhileDown = 0;
      const publishing = (async () => {
        for (let i = 0; i < TOTAL; i++) {
          const data = `event ${String(i)}`;
          s.publish(data);
          published.push(data);
          if (down) publishedWhileDown += 1;
          await sleep(20);
        }
      })();

      const started = performance.now();
      const reconnectMs: number[] = [];
      await sleep(100);
      for (let k = 1; k <= KILLS; k++) {
        down = true;
        await s.kill();
        await sleep(150);
        await s.restart();
        down = false;
        const restarted = performance.now();
        await whenOpen(c, s, k + 1);
        reconnectMs.push(Math.round(performance.now() - restarted));
        await sleep(150);
      }
      const killsMs = Math.round(performance.now() - started);
      await publishing;
      await vi.waitFor(
        () => {
          expect(c.data.length).toBeGreaterThanOrEqual(TOTAL);
        },
        { timeout: 5000, interval: 10 },
      );
      await sleep(100); // a late duplicate would arrive by now

      const received = c.data;
      const receivedSet = new Set(received);
      const lost = published.filter((data) => !receivedSet.has(data)).length;
      const duplicated = received.length - receivedSet.size;
      console.info(
        `SSE across ${String(KILLS)} kills: published ${String(published.length)} (${String(publishedWhileDown)} while the server was down), ` +
          `delivered ${String(received.length)}, lost ${String(lost)}, duplicated ${String(duplicated)}; ` +
          `requests accepted ${String(s.requests().length)}, opens ${String(c.opens())}, errors ${String(c.errors())}; ` +
          `reconnected after restart in [${reconnectMs.join(', ')}] ms; kills took ${String(killsMs)} ms`,
      );
      expect(lost).toBe(0);
      expect(duplicated).toBe(0);
      expect(received).toEqual(published);
      // Exact: the server only counts requests it accepted (attempts refused while it was down never
      // reach it), and the loop waits for each reconnect before the next kill, so each server life
      // holds exactly one connection; a second request in one life would be a spurious reconnect.
      expect(s.requests().length).toBe(KILLS + 1);
      expect(c.opens()).toBe(KILLS + 1);
      expect(c.errors()).toBeGreaterThanOrEqual(KILLS);
      // Every reconnect resumed from the last event received before the kill.
      for (const request of s.requests().slice(1)) expect(request.lastEventId).toMatch(/^\d+$/);
    },
  );

  describe('Last-Event-ID', () => {
    it('sends Accept: text/event-stream, and on a reconnect Last-Event-ID equal to the last id received', async () => {
      const s = await server();
      s.publish('a');
      s.publish('b');
      const c = source(s.url);
      await vi.waitFor(() => {
        expect(c.data).toEqual(['a', 'b']);
      });
      const first = s.requests()[0];
      expect(first?.headers.accept).toBe('text/event-stream');
      expect(first?.lastEventId).toBeUndefined();
      expect(first?.method).toBe('GET');
      s.publish('c');
      await vi.waitFor(() => {
        expect(c.data).toEqual(['a', 'b', 'c']);
      });
      expect(c.es.lastEventId).toBe('3');
      expect(c.messages.map((m) => m.lastEventId)).toEqual(['1', '2', '3']);

      await s.kill();
      s.publish('d'); // while down: the reconnect's replay brings it
      await s.restart();
      await vi.waitFor(() => {
        expect(c.data).toEqual(['a', 'b', 'c', 'd']);
      });
      expect(s.requests()).toHaveLength(2);
      expect(s.requests()[1]?.lastEventId).toBe('3');
      expect(s.requests()[1]?.headers.accept).toBe('text/event-stream');
      expect(c.es.lastEventId).toBe('4');
    });

    it('sends the lastEventId option on the first request', async () => {
      const s = await server();
      s.publish('a');
      s.publish('b');
      s.publish('c');
      const c = source(s.url, { lastEventId: '2' });
      expect(c.es.lastEventId).toBe('2');
      await vi.waitFor(() => {
        expect(c.data).toEqual(['c']);
      });
      expect(s.requests()[0]?.lastEventId).toBe('2');
      expect(c.es.lastEventId).toBe('3');
    });
  });

  it.each([
    ['a function', (token: () => string) => () => ({ authorization: token() })],
    ['an async function', (token: () => string) => () => Promise.resolve({ authorization: token() })],
  ])('calls headers given as %s before every attempt: a fresh token per request', async (_, makeHeaders) => {
    const s = await server();
    s.respond(streamThenEnd(': bye\n\n'), 2); // two streams that end at once, then one that stays open
    let calls = 0;
    const c = source(s.url, {
      headers: makeHeaders(() => {
        calls += 1;
        return `Bearer token-${String(calls)}`;
      }),
    });
    await whenOpen(c, s, 3);
    await sleep(200); // no further attempt follows
    expect(s.requests()).toHaveLength(3);
    expect(calls).toBe(s.requests().length);
    expect(s.requests().map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
      'Bearer token-3',
    ]);
    expect(s.requests().every((r) => r.headers.accept === 'text/event-stream')).toBe(true);
  });

  it("takes the server's retry: as a floor under the backoff: the next request is 1.5 to 2.5 s later", async () => {
    const s = await server();
    s.respond(streamThenEnd('retry: 1500\n\n'), 1);
    const c = source(s.url);
    await whenOpen(c, s, 2, 4000);
    const waited = gap(s, 1);
    console.info(`SSE retry: 1500 then the body ended: next request ${waited.toFixed(1)} ms after the first`);
    expect(waited).toBeGreaterThanOrEqual(1500);
    expect(waited).toBeLessThanOrEqual(2500);
    expect(c.errors()).toBe(1);
  });

  describe('statuses', () => {
    it.each([503, 429])('waits for Retry-After: 1 after a %i (at least 1000 ms), then connects', async (status) => {
      const s = await server();
      s.respond(answer(status, { 'retry-after': '1', 'content-type': 'text/plain' }, 'busy'), 1);
      const c = source(s.url);
      await whenOpen(c, s, 2, 5000);
      const waited = gap(s, 1);
      console.info(`SSE ${String(status)} + Retry-After: 1: next request ${waited.toFixed(1)} ms after the first`);
      expect(waited).toBeGreaterThanOrEqual(1000);
      expect(waited).toBeLessThanOrEqual(3000);
      expect(s.requests()).toHaveLength(2);
      expect(c.errors()).toBe(1);
      const failure = c.snapshots.find((snapshot) => snapshot.state === 'TRANSIENT_FAILURE');
      expect(messageOf(failure?.lastError)).toContain(`GET ${s.url}`);
      expect(messageOf(failure?.lastError)).toContain(String(status));
    });

    it.each([500, 502, 408])('retries a %i on the backoff', async (status) => {
      const s = await server();
      s.respond(answer(status, { 'content-type': 'text/plain' }, 'oops'), 1);
      const c = source(s.url);
      await whenOpen(c, s, 2, 3000);
      expect(s.requests()).toHaveLength(2);
      expect(gap(s, 1)).toBeLessThan(1000); // the backoff's 100 ms, not a long wait
      expect(c.errors()).toBe(1);
      const failure = c.snapshots.find((snapshot) => snapshot.state === 'TRANSIENT_FAILURE');
      expect(messageOf(failure?.lastError)).toContain(`GET ${s.url}`);
      expect(messageOf(failure?.lastError)).toContain(String(status));
    });

    const stops: [string, number, SseHandler][] = [
      ['204', 204, answer(204)],
      ['404', 404, answer(404, { 'content-type': 'text/plain' }, 'not found')],
      ['401', 401, answer(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }, 'who?')],
      ['200 text/html', 200, answer(200, { 'content-type': 'text/html' }, '<!doctype html><p>a login page</p>')],
    ];
    it.each(stops)(
      'stops for good on a %s: one request, CLOSED, SHUTDOWN, an error event',
      async (_, status, handler) => {
        const s = await server();
        s.respond(handler); // every request, so that a retry would be answered (and counted) too
        const c = source(s.url);
        let onerror = 0;
        c.es.onerror = () => {
          onerror += 1;
        };
        await vi.waitFor(
          () => {
            expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
          },
          { timeout: 3000, interval: 10 },
        );
        await sleep(400); // longer than the first backoffs (100, 160 ms): a retry would have come
        expect(s.requests()).toHaveLength(1);
        expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
        expect(c.errors()).toBeGreaterThanOrEqual(1);
        expect(onerror).toBe(c.errors());
        await vi.waitFor(() => {
          expect(s.open()).toBe(0);
        });
        const last = c.last();
        expect(last?.state).toBe('SHUTDOWN');
        expect(last?.lastError).toBeInstanceOf(Error);
        const message = messageOf(last?.lastError);
        expect(message).toContain('GET');
        expect(message).toContain(s.url);
        expect(message).toMatch(new RegExp(`\\b${String(status)}\\b`));
      },
    );
  });

  describe('idleTimeout', () => {
    it('ends an attempt that sends nothing for idleTimeout, and reconnects', async () => {
      const s = await server();
      s.respond(quietStream(), 1); // headers, then silence
      const c = source(s.url, { idleTimeout: 300 });
      await whenOpen(c, s, 2, 3000);
      const waited = gap(s, 1);
      console.info(
        `SSE idleTimeout 300 on a silent stream: reconnected ${waited.toFixed(1)} ms after the first request`,
      );
      expect(waited).toBeGreaterThanOrEqual(300);
      expect(waited).toBeLessThan(1500);
      expect(c.snapshots.some((snapshot) => isIdleTimeoutError(snapshot.lastError))).toBe(true);
      await vi.waitFor(() => {
        expect(s.open()).toBe(1); // the silent response was let go
      });
    });

    it('keeps a stream that sends only comments every 100 ms', async () => {
      const s = await server();
      s.respond(quietStream(100));
      const c = source(s.url, { idleTimeout: 300 });
      await whenOpen(c, s, 1);
      await sleep(1000);
      expect(s.requests()).toHaveLength(1);
      expect(c.es.readyState).toBe(ReconnectingEventSource.OPEN);
      expect(c.errors()).toBe(0);
      expect(s.open()).toBe(1);
    });
  });

  it('close() while OPEN lets the response go, makes no further request, and ends in SHUTDOWN', async () => {
    const s = await server();
    const c = source(s.url);
    await whenOpen(c, s, 1);
    expect(s.open()).toBe(1);
    c.es.close();
    expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
    await vi.waitFor(
      () => {
        expect(s.open()).toBe(0);
      },
      { timeout: 2000, interval: 10 },
    );
    await sleep(300);
    expect(s.requests()).toHaveLength(1);
    expect(c.last()?.state).toBe('SHUTDOWN');
    expect(c.es.readyState).toBe(ReconnectingEventSource.CLOSED);
  });

  it('delivers a named event to its listener, not to onmessage', async () => {
    const s = await server();
    const c = source(s.url);
    const ticks: MessageEvent<string>[] = [];
    const onmessage: string[] = [];
    c.es.addEventListener('tick', (event) => {
      ticks.push(messageEventOf(event));
    });
    c.es.onmessage = (event) => {
      onmessage.push(event.data);
    };
    await whenOpen(c, s, 1);
    s.publish('first', 'tick');
    s.publish('second');
    await vi.waitFor(() => {
      expect(onmessage).toEqual(['second']);
    });
    expect(ticks.map((t) => t.data)).toEqual(['first']);
    expect(ticks[0]?.lastEventId).toBe('1');
    expect(c.data).toEqual(['second']);
    expect(c.messages[0]?.lastEventId).toBe('2');
  });
});
