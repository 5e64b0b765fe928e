/**
 * The adapter against a real `ws` server on 127.0.0.1, on the runtime's own WebSocket (Node >= 22)
 * or `ws` (Node 20, which has none). Delays and timeouts are short; no assertion is on speed.
 */
import { once } from 'node:events';
import { firstValueFrom, filter, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientWebSocket, clientWebSocketName } from '../../support/websocket/client-websocket.js';
import { isConnectTimeoutError, isPermanentError, isRetryAfterError } from '../../../src/index.js';
import {
  type DropEvent,
  type ReconnectingWebSocketOptions,
  ReconnectingWebSocket,
  type WebSocketSnapshot,
} from '../../../src/adapters/websocket/index.js';
import { type TestServer, startBlackHole, startServer } from '../../support/websocket/ws-server.js';

const FAST: ReconnectingWebSocketOptions = {
  WebSocket: ClientWebSocket,
  minReconnectionDelay: 20,
  maxReconnectionDelay: 200,
  connectionTimeout: 2000,
  minUptime: 200,
};

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function client(url: string, options: ReconnectingWebSocketOptions = {}) {
  const socket = new ReconnectingWebSocket(url, undefined, { ...FAST, ...options });
  const snapshots: WebSocketSnapshot[] = [];
  socket.state$.subscribe((s) => snapshots.push(s));
  const drops: DropEvent[] = [];
  socket.addEventListener('drop', (e) => drops.push(e));
  cleanups.push(() => closeAndWait(socket));
  return { socket, snapshots, drops };
}

function server(port?: number, onConnection?: Parameters<typeof startServer>[1]): Promise<TestServer> {
  return startServer(port, onConnection).then((s) => {
    cleanups.push(() => s.stop());
    return s;
  });
}

/** Closes the client and, if a socket was still open or closing, waits for its close event. */
async function closeAndWait(socket: ReconnectingWebSocket): Promise<void> {
  const closed = new Promise((resolve) => {
    socket.addEventListener('close', resolve);
  });
  if (socket.snapshot.state !== 'SHUTDOWN') socket.close();
  if (socket.readyState === socket.CLOSING) await closed;
}

/** Resolves with the first snapshot that matches, failing after 5 s. */
function until(socket: ReconnectingWebSocket, match: (s: WebSocketSnapshot) => boolean): Promise<WebSocketSnapshot> {
  return firstValueFrom(socket.state$.pipe(filter(match), timeout({ first: 5000 })));
}

/** Resolves on the n-th READY snapshot. */
async function nthReady(snapshots: WebSocketSnapshot[], socket: ReconnectingWebSocket, n: number): Promise<void> {
  await until(socket, () => snapshots.filter((s) => s.state === 'READY').length >= n);
}

async function waitForMessages(s: TestServer, count: number): Promise<void> {
  for (let i = 0; i < 500 && s.received.length < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe(`against a real ws server, on ${clientWebSocketName}`, () => {
  it('reconnects after the server restarts on the same port', async () => {
    const first = await server();
    const { socket, snapshots } = client(first.url);
    await until(socket, (s) => s.state === 'READY');
    expect(socket.url).toBe(first.url);
    await first.stop(); // the connections are dropped: close 1006 on the client
    await until(socket, (s) => s.state === 'TRANSIENT_FAILURE');
    const second = await server(first.port);
    await nthReady(snapshots, socket, 2);
    expect(second.connections).toBe(1);
    expect(snapshots.map((s) => s.state)).toEqual(expect.arrayContaining(['READY', 'TRANSIENT_FAILURE', 'CONNECTING']));
    expect(socket.sendWithStatus('after restart')).toBe('sent');
    await waitForMessages(second, 1);
    expect(second.received).toEqual(['after restart']);
  });

  it('flapping server (accepts, then closes at once): the minUptime guard keeps the backoff growing', async () => {
    const s = await server(0, (c) => {
      c.close(1000, 'bye');
    });
    const { socket, snapshots } = client(s.url, {
      minUptime: 60_000,
      reconnectionDelayGrowFactor: 2,
      reconnectionDelayJitter: 0,
    });
    await nthReady(snapshots, socket, 4);
    expect(snapshots.filter((x) => x.state === 'READY').map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
    expect(socket.retryCount).toBeGreaterThanOrEqual(3);
  });

  it('without the guard (minUptime 0) the same server resets the backoff every time', async () => {
    const s = await server(0, (c) => {
      c.close(1000, 'bye');
    });
    const { socket, snapshots } = client(s.url, { minUptime: 0 });
    await nthReady(snapshots, socket, 4);
    // Each loss is the first failure of a new cycle (backoffAfterLoss), so each reconnect is attempt 2.
    expect(snapshots.filter((x) => x.state === 'READY').map((x) => x.attempt)).toEqual([1, 2, 2, 2]);
  });

  it('delivers every message exactly once and in order across a restart, or reports it dropped', async () => {
    const first = await server();
    const { socket, drops } = client(first.url, { maxEnqueuedMessages: 3 });
    const statuses = new Map<string, string>();
    const send = (m: string) => statuses.set(m, socket.sendWithStatus(m));
    for (const m of ['1', '2']) send(m); // before open: queued
    await until(socket, (s) => s.state === 'READY');
    for (const m of ['3', '4', '5']) send(m); // open: sent
    await waitForMessages(first, 5);
    await first.stop(1012, 'retry-after=0.05'); // service restart, come back in 50 ms
    await until(socket, (s) => s.state !== 'READY');
    for (const m of ['6', '7', '8', '9', '10']) send(m); // down: 3 queued, 2 refused
    const second = await server(first.port);
    await until(socket, (s) => s.state === 'READY');
    send('11');
    await waitForMessages(second, 4);

    expect([...statuses]).toEqual([
      ['1', 'queued'],
      ['2', 'queued'],
      ['3', 'sent'],
      ['4', 'sent'],
      ['5', 'sent'],
      ['6', 'queued'],
      ['7', 'queued'],
      ['8', 'queued'],
      ['9', 'rejected'],
      ['10', 'rejected'],
      ['11', 'sent'],
    ]);
    expect(first.received).toEqual(['1', '2', '3', '4', '5']);
    expect(second.received).toEqual(['6', '7', '8', '11']);
    expect(drops.map((d) => [d.data, d.reason])).toEqual([
      ['9', 'queue-full'],
      ['10', 'queue-full'],
    ]);
    // Each message exactly once: received once (in either server) or reported dropped, never both.
    const outcomes = [...first.received, ...second.received, ...drops.map((d) => d.data as string)].sort(
      (a, b) => Number(a) - Number(b),
    );
    expect(outcomes).toEqual([...statuses.keys()]);
  });

  it('cuts an attempt at connectionTimeout when the server accepts TCP but never completes the upgrade', async () => {
    const hole = await startBlackHole();
    cleanups.push(() => hole.stop());
    const { socket } = client(`ws://127.0.0.1:${String(hole.port)}/`, { connectionTimeout: 300 });
    const failed = await until(socket, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(isConnectTimeoutError(failed.lastError)).toBe(true);
    await until(socket, (s) => s.state === 'CONNECTING' && s.attempt === 2);
    for (let i = 0; i < 200 && hole.accepted.length < 2; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const closes = hole.accepted.map((s) => (s.destroyed ? Promise.resolve() : once(s, 'close')));
    socket.close();
    await Promise.all(closes); // every attempt's TCP connection was closed by the client
    expect(hole.accepted.length).toBeGreaterThanOrEqual(2);
  });

  it.each([1008, 4401, 4403])('stops reconnecting on close code %i', async (code) => {
    const s = await server(0, (c) => {
      c.close(code, 'denied');
    });
    const { socket } = client(s.url);
    const closeEvent = new Promise<{ code: number }>((resolve) => {
      socket.addEventListener('close', resolve);
    });
    const shut = await until(socket, (x) => x.state === 'SHUTDOWN');
    expect(shut).toMatchObject({ reason: 'permanent-failure' });
    expect(isPermanentError(shut.lastError)).toBe(true);
    expect((await closeEvent).code).toBe(code);
    expect(s.connections).toBe(1);
    expect(socket.readyState).toBe(socket.CLOSED);
  });

  it('honours 1013 with a delay hint: waits in TRANSIENT_FAILURE, then reconnects', async () => {
    const s = await server(0, (c, n) => {
      if (n === 1) c.close(1013, 'retry-after=0.1');
    });
    const { socket, snapshots } = client(s.url);
    const waiting = await until(socket, (x) => x.state === 'TRANSIENT_FAILURE');
    expect(isRetryAfterError(waiting.lastError)).toBe(true);
    if (waiting.state !== 'TRANSIENT_FAILURE') throw new Error('unreachable');
    expect(waiting.nextAttemptAt - waiting.since).toBeGreaterThanOrEqual(100);
    await nthReady(snapshots, socket, 2);
    expect(s.connections).toBe(2);
  });

  it('close() leaves no timer, socket or listener behind (process.getActiveResourcesInfo)', async () => {
    const s = await server();
    const before = await settledResources();
    const { socket } = client(s.url);
    await until(socket, (x) => x.state === 'READY');
    socket.send('x');
    const [serverSide] = [...s.clients];
    const serverClosed = serverSide === undefined ? Promise.resolve() : once(serverSide, 'close');
    const closed = new Promise<{ code: number }>((resolve) => {
      socket.addEventListener('close', resolve);
    });
    socket.close(1000, 'done');
    expect((await closed).code).toBe(1000);
    await serverClosed;
    expect(await excessOver(before)).toEqual({});
  });

  it('close() during a backoff wait leaves no timer behind', async () => {
    const hole = await startBlackHole();
    await hole.stop(); // nothing listens on this port any more: connections are refused
    const before = await settledResources();
    const { socket } = client(`ws://127.0.0.1:${String(hole.port)}/`, {
      minReconnectionDelay: 60_000,
      maxReconnectionDelay: 60_000,
    });
    await until(socket, (x) => x.state === 'TRANSIENT_FAILURE');
    socket.close();
    expect(socket.readyState).toBe(socket.CLOSED);
    expect(await excessOver(before)).toEqual({});
  });
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

/** The resource counts once they have stayed the same for a few ticks (handles close asynchronously). */
async function settledResources(): Promise<Record<string, number>> {
  let last = JSON.stringify(countResources());
  for (let stable = 0, i = 0; stable < 3 && i < 200; i += 1) {
    await tick();
    const now = JSON.stringify(countResources());
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return JSON.parse(last) as Record<string, number>;
}

/**
 * Waits (up to 2 s) until no kind of resource outnumbers `baseline`; returns what still does
 * (`{}` when nothing created since the baseline survives).
 */
async function excessOver(baseline: Record<string, number>): Promise<Record<string, number>> {
  const excess = (): Record<string, number> =>
    Object.fromEntries(
      Object.entries(countResources())
        .map(([kind, n]): [string, number] => [kind, n - (baseline[kind] ?? 0)])
        .filter(([, n]) => n > 0),
    );
  for (let i = 0; i < 200 && Object.keys(excess()).length > 0; i += 1) await tick();
  return excess();
}

/** Timers and TCP handles alive in this process, by kind . */
function countResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'Timeout' || kind.startsWith('TCP')) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}
