/**
 * The adapter's rules on virtual time, with a scriptable WebSocket: backoff, the attempt cut, the
 * outbound queue, server-directed backoff, close codes, browser awareness and clean close.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isConnectTimeoutError, isPermanentError, isRetryAfterError, permanent } from '../../../src/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';
import {
  type ErrorEventLike,
  type ReconnectingWebSocketOptions,
  ReconnectingWebSocket,
  type UrlProvider,
  type WebSocketSnapshot,
  isWebSocketCloseError,
} from '../../../src/adapters/websocket/index.js';
import { FAKE_URL, fakeClient } from '../../support/websocket/fake-client.js';
import { FakeEnvironment, fakeWebSocketClass } from '../../support/websocket/fake-websocket.js';
import { virtualTimeOptions } from '../../support/websocket/virtual-time-options.js';

const URL = FAKE_URL;
const open: ReconnectingWebSocket[] = [];

function setup(options: ReconnectingWebSocketOptions = {}, protocols?: string | string[]) {
  return fakeClient(open, options, protocols);
}

/** A client whose first connection opens, then the server closes it cleanly with `code` and `reason`. */
function closedByServer(code: number, reason: string, options: ReconnectingWebSocketOptions = {}) {
  const h = setup(options);
  h.last().open();
  h.last().finish(code, reason, true);
  return h;
}

/** Fails every new socket at once, as a server that refuses connections. */
function refuseAll(h: ReturnType<typeof setup>, until: number): void {
  while (h.clock.now() < until) {
    const socket = h.fake.sockets.at(-1);
    if (socket?.readyState === 0) socket.fail();
    const s = h.socket.snapshot;
    if (s.state === 'SHUTDOWN') return;
    const next = s.state === 'TRANSIENT_FAILURE' ? s.nextAttemptAt : until;
    h.clock.advanceTo(Math.min(until, Math.max(next, h.clock.now())));
    if (s.state !== 'TRANSIENT_FAILURE') return;
  }
}

afterEach(() => {
  for (const socket of open.splice(0)) if (socket.snapshot.state !== 'SHUTDOWN') socket.close();
});

describe('backoff', () => {
  it('follows gRPC by default: 1 s, x1.6 (jitter at its midpoint), measured from each attempt start', () => {
    const h = setup();
    refuseAll(h, 10_000);
    expect(h.starts).toEqual([0, 1000, 2600, 5160, 9256]);
    expect(h.socket.retryCount).toBe(5); // waiting for retry 5, as reconnecting-websocket counts
  });

  it("honours reconnecting-websocket's delay options when given", () => {
    const h = setup({
      minReconnectionDelay: 500,
      reconnectionDelayGrowFactor: 2,
      maxReconnectionDelay: 2000,
      reconnectionDelayJitter: 0,
    });
    refuseAll(h, 8000);
    expect(h.starts).toEqual([0, 500, 1500, 3500, 5500, 7500]);
  });

  it('cuts an attempt that never opens at connectionTimeout and reports ConnectTimeoutError', () => {
    const h = setup({ connectionTimeout: 3000 });
    h.clock.advanceTo(2999);
    expect(h.fake.sockets).toHaveLength(1);
    h.clock.advanceTo(3000);
    expect(h.fake.sockets[0]?.closedWith).toBeDefined();
    const failure = h.snapshots.find((s) => s.state === 'TRANSIENT_FAILURE');
    expect(isConnectTimeoutError(failure?.lastError)).toBe(true);
    expect(h.fake.sockets).toHaveLength(2); // the wait (1 s) had passed: the next attempt starts at once
    h.fake.sockets[0]?.finish();
    expect(h.fake.sockets[0]?.listenerCount()).toBe(0);
  });

  it('a server that accepts and closes at once keeps the backoff growing (minUptime guard)', () => {
    const h = setup();
    for (let i = 0; i < 4; i += 1) {
      h.last().open();
      h.clock.advanceBy(10);
      h.last().finish(1000, '', true);
      const s = h.socket.snapshot;
      if (s.state === 'TRANSIENT_FAILURE') h.clock.advanceTo(s.nextAttemptAt);
    }
    // Each wait (1 s, x1.6) counts from the end of the 10 ms the connection lasted.
    expect(h.starts).toEqual([0, 1010, 2620, 5190, 9296]);
    expect(h.snapshots.filter((s) => s.state === 'READY').map((s) => s.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('a connection that stayed up minUptime resets the backoff; its loss is retry 1 after one first wait, as in the peers', () => {
    const h = setup({ minUptime: 5000 });
    refuseAll(h, 2600);
    h.last().open();
    expect(h.socket.readyState).toBe(ReconnectingWebSocket.OPEN);
    expect(h.socket.retryCount).toBe(2);
    h.clock.advanceBy(5000);
    expect(h.socket.retryCount).toBe(0); // up minUptime: the count is reset
    h.clock.advanceBy(1000);
    h.last().finish(1001, 'going away', true);
    const lostAt = h.clock.now();
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1, nextAttemptAt: lostAt + 1000 });
    expect(h.socket.retryCount).toBe(1);
    h.clock.advanceBy(1000);
    expect(h.socket.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 2 });
    expect(h.socket.retryCount).toBe(1);
    h.last().fail(); // the next wait is the second step: 1.6 s
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: lostAt + 1000 + 1600 });
  });

  it('backoffAfterLoss: false reconnects at once after a stable connection, as gRPC does', () => {
    const h = setup({ minUptime: 5000, backoffAfterLoss: false });
    refuseAll(h, 2600);
    h.last().open();
    h.clock.advanceBy(6000);
    h.last().finish(1001, 'going away', true);
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0 });
    h.clock.advanceBy(0);
    expect(h.socket.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
    expect(h.socket.retryCount).toBe(0);
  });

  it('passes protocols, and url/protocol/extensions come from the latest socket', () => {
    const h = setup({}, ['v1', 'v2']);
    expect(h.socket.url).toBe(URL);
    expect(h.last().protocols).toEqual(['v1', 'v2']);
    h.last().protocol = 'v2';
    expect(h.socket.protocol).toBe('v2');
  });

  it('resolves a url provider for every attempt, also an async one', async () => {
    const clock = createVirtualClock();
    const fake = fakeWebSocketClass();
    let n = 0;
    const socket = new ReconnectingWebSocket(
      () => Promise.resolve(`ws://example.test/${String((n += 1))}`),
      undefined,
      {
        WebSocket: fake.WebSocket,
        scheduler: clock.scheduler,
        environment: new FakeEnvironment(),
      },
    );
    open.push(socket);
    await Promise.resolve();
    expect(fake.last().url).toBe('ws://example.test/1');
    fake.last().fail();
    clock.advanceBy(1000);
    await Promise.resolve();
    expect(fake.last().url).toBe('ws://example.test/2');
  });
});

describe('outbound queue', () => {
  it('queues while not open and flushes in order on open, before any send from onopen', () => {
    const h = setup();
    expect(h.socket.sendWithStatus('a')).toBe('queued');
    expect(h.socket.sendWithStatus('b')).toBe('queued');
    expect(h.socket.bufferedAmount).toBe(2);
    h.socket.onopen = () => {
      expect(h.socket.sendWithStatus('c')).toBe('sent');
    };
    h.last().open();
    expect(h.last().sent).toEqual(['a', 'b', 'c']);
    expect(h.socket.sendWithStatus('d')).toBe('sent');
    expect(h.socket.bufferedAmount).toBe(0);
  });

  it('a send from a state$ subscriber on READY still goes after the queue', () => {
    const h = setup();
    h.socket.send('first');
    h.socket.state$.subscribe((s) => {
      if (s.state === 'READY') h.socket.send('from-state$');
    });
    h.last().open();
    expect(h.last().sent).toEqual(['first', 'from-state$']);
  });

  it('keeps queued messages across failed attempts and delivers them on the next open', () => {
    const h = setup();
    h.socket.send('x');
    h.last().fail();
    h.socket.send('y');
    h.clock.advanceBy(1000);
    h.last().open();
    expect(h.fake.sockets[0]?.sent).toEqual([]);
    expect(h.last().sent).toEqual(['x', 'y']);
  });

  it.each([
    ['count', { maxEnqueuedMessages: 2 }, ['a', 'b', 'c'], ['queued', 'queued', 'rejected']],
    // 'é€' is 5 bytes in UTF-8: 2 + 5 > 5, so it is refused, and 'c' (1 byte) still fits.
    ['bytes (UTF-8)', { maxEnqueuedBytes: 5 }, ['ab', 'é€', 'c'], ['queued', 'rejected', 'queued']],
  ] as const)(
    'refuses what exceeds the %s bound, with a drop event, and keeps the order of the rest',
    (_label, options, messages, expected) => {
      const h = setup(options);
      const statuses = messages.map((m) => h.socket.sendWithStatus(m));
      expect(statuses).toEqual(expected);
      const rejected = messages.filter((_m, i) => statuses[i] === 'rejected');
      expect(rejected.length).toBeGreaterThan(0);
      expect(h.drops.map((d) => [d.data, d.reason])).toEqual(rejected.map((m) => [m, 'queue-full']));
      h.last().open();
      expect(h.last().sent).toEqual(messages.filter((_m, i) => statuses[i] === 'queued'));
    },
  );

  it('counts Blob, ArrayBuffer and typed arrays by their byte length', () => {
    const h = setup({ maxEnqueuedBytes: 10 });
    expect(h.socket.sendWithStatus(new Uint8Array(4))).toBe('queued');
    expect(h.socket.sendWithStatus(new ArrayBuffer(4))).toBe('queued');
    expect(h.socket.sendWithStatus(new Blob(['abc']))).toBe('rejected');
    expect(h.socket.bufferedAmount).toBe(8);
  });

  it('queues a send while the open socket is closing, and sends it after the reconnect', () => {
    const h = setup();
    h.last().open();
    h.last().readyState = 2; // the server's close frame arrived; the close event has not yet
    expect(h.socket.sendWithStatus('late')).toBe('queued');
    h.last().finish(1006, '', false);
    h.clock.advanceBy(1000);
    h.last().open();
    expect(h.last().sent).toEqual(['late']);
  });
});

describe('close() and clean-up', () => {
  it('keeps queued messages across close() for reconnect(), as the peers do; a send after close() warns once', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const h = setup();
      h.socket.send('a');
      h.socket.close();
      expect(h.drops).toEqual([]);
      expect(h.socket.sendWithStatus('b')).toBe('queued');
      expect(h.socket.send('c')).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/send\(\) was called after close\(\).*reconnect\(\)/);
      expect(h.socket.queuedMessages).toBe(3);
      h.socket.reconnect();
      h.last().open();
      expect(h.last().sent).toEqual(['a', 'b', 'c']);
      // A later close() warns again on its first send.
      h.socket.close();
      h.socket.send('d');
      expect(warn).toHaveBeenCalledTimes(2);
      expect(h.socket.drainQueuedMessages()).toEqual(['d']);
      expect(h.socket.queuedMessages).toBe(0);
    } finally {
      warn.mockRestore();
    }
  });

  it('with dropOnClose: settles every queued message with a drop event, rejects later sends, leaves no timer or listener', () => {
    const h = setup({ dropOnClose: true });
    h.socket.send('a');
    h.socket.send('b');
    const closes: number[] = [];
    h.socket.onclose = (e) => closes.push(e.code);
    h.socket.close(4000, 'bye');
    expect(h.drops.map((d) => [d.data, d.reason])).toEqual([
      ['a', 'closed'],
      ['b', 'closed'],
    ]);
    expect(h.socket.sendWithStatus('c')).toBe('rejected');
    expect(h.drops.at(-1)).toMatchObject({ data: 'c', reason: 'closed' });
    expect(h.last().closedWith).toEqual({ code: 4000, reason: 'bye' });
    // Still connecting: abandoned at once, reported as WebSocket reports a failed connection (1006).
    expect(h.socket.readyState).toBe(ReconnectingWebSocket.CLOSED);
    expect(closes).toEqual([1006]);
    h.last().finish();
    expect(closes).toEqual([1006]);
    expect(h.last().listenerCount()).toBe(0);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.environment.listeners).toBe(0);
    expect(h.socket.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'shutdown' });
  });

  it('close() during a wait clears the backoff timer (no later attempt)', () => {
    const h = setup();
    h.last().fail();
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    h.socket.close();
    expect(h.clock.pendingTimers()).toBe(0);
    h.clock.advanceBy(600_000);
    expect(h.fake.sockets).toHaveLength(1);
  });

  it('close() of an open socket dispatches its close event within close(), with its code and reason, and is CLOSED', () => {
    const h = setup();
    h.last().open();
    const closes: string[] = [];
    h.socket.onclose = (e) =>
      closes.push(`${String(e.code)} '${e.reason}' ${String(e.wasClean)} rs=${String(h.socket.readyState)}`);
    h.socket.close(4000, 'bye');
    expect(closes).toEqual(["4000 'bye' true rs=3"]);
    expect(h.socket.readyState).toBe(ReconnectingWebSocket.CLOSED);
    expect(h.last().closedWith).toEqual({ code: 4000, reason: 'bye' });
    // The socket's own close event, when its handshake ends, is not dispatched again.
    h.last().finish(4000, 'bye', true);
    expect(closes).toHaveLength(1);
    expect(h.last().listenerCount()).toBe(0);
  });

  it('rejects a close code a WebSocket would refuse, naming it', () => {
    const h = setup();
    expect(() => {
      h.socket.close(1006);
    }).toThrow(/1006/);
    expect(h.socket.snapshot.state).toBe('CONNECTING');
  });
});

describe('server-directed backoff (1012, 1013)', () => {
  it('waits for the delay hint in the close reason, with upward jitter, in TRANSIENT_FAILURE', () => {
    const h = setup();
    h.last().open();
    h.clock.advanceBy(100);
    h.last().finish(1013, 'overloaded; retry-after=30', true);
    const resumeAt = 100 + 30_000 * 1.1; // random 0.5 of 20 % upward jitter
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: resumeAt });
    expect(isRetryAfterError(h.socket.snapshot.lastError)).toBe(true);
    expect(h.socket.readyState).toBe(ReconnectingWebSocket.CONNECTING);
    h.clock.advanceTo(resumeAt - 1);
    expect(h.fake.sockets).toHaveLength(1);
    h.clock.advanceTo(resumeAt);
    expect(h.fake.sockets).toHaveLength(2);
    expect(h.socket.snapshot).toMatchObject({ state: 'CONNECTING' });
  });

  it('clamps the hint to the policy bounds', () => {
    const h = closedByServer(1012, 'retry-after=3600', { maxReconnectionDelay: 10_000 });
    const s = h.socket.snapshot;
    expect(s.state).toBe('TRANSIENT_FAILURE');
    if (s.state !== 'TRANSIENT_FAILURE') return;
    expect(s.nextAttemptAt).toBeLessThanOrEqual(10_000);
    expect(s.nextAttemptAt).toBeGreaterThanOrEqual(10_000 * 0.8);
  });

  it('without a hint waits at least one initial delay, even after a long connection', () => {
    const h = setup();
    h.last().open();
    h.clock.advanceBy(60_000);
    h.last().finish(1012, '', true);
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 60_000 + 1100 });
    h.clock.advanceBy(1099);
    expect(h.fake.sockets).toHaveLength(1);
    h.clock.advanceBy(1);
    expect(h.fake.sockets).toHaveLength(2);
  });

  it('resetBackoff() ("Retry now") overrides a server-directed wait', () => {
    const h = closedByServer(1013, 'retry-after=30');
    h.socket.resetBackoff();
    expect(h.fake.sockets).toHaveLength(2);
  });

  it('close() during a server-directed wait clears its timer', () => {
    const h = closedByServer(1013, 'retry-after=5');
    h.socket.close();
    expect(h.clock.pendingTimers()).toBe(0);
  });
});

describe('close codes that stop, and shouldReconnect', () => {
  it.each([1008, 4401, 4403])('default permanent code %i stops with a PermanentError', (code) => {
    const h = closedByServer(code, 'no');
    const s = h.socket.snapshot;
    expect(s).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(isPermanentError(s.lastError)).toBe(true);
    expect(isWebSocketCloseError((s.lastError as Error).cause)).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.environment.listeners).toBe(0);
  });

  it('permanentCloseCodes replaces the default list', () => {
    const h = closedByServer(4401, '', { permanentCloseCodes: [4000] });
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    h.clock.advanceBy(1000);
    h.last().open();
    h.last().finish(4000, '', true);
    expect(h.socket.snapshot.state).toBe('SHUTDOWN');
  });

  it('shouldReconnect decides the other codes, with the close event', () => {
    const seen: number[] = [];
    const h = setup({
      shouldReconnect: (e) => {
        seen.push(e.code);
        return e.code !== 4999;
      },
    });
    h.last().open();
    h.last().finish(1011, '', true);
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    h.clock.advanceBy(1000);
    h.last().open();
    h.last().finish(4999, '', true);
    expect(h.socket.snapshot.state).toBe('SHUTDOWN');
    expect(seen).toEqual([1011, 4999]);
  });

  it('maxRetries: gives up after that many retries, keeping what was queued for reconnect()', () => {
    const h = setup({ maxRetries: 2 });
    h.socket.send('kept');
    refuseAll(h, 60_000);
    expect(h.fake.sockets).toHaveLength(3);
    expect(h.socket.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect((h.socket.snapshot.lastError as Error).message).toMatch(/maxRetries/);
    expect(h.drops).toEqual([]);
    expect(h.clock.pendingTimers()).toBe(0);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(h.socket.sendWithStatus('also kept')).toBe('queued');
      expect(warn).not.toHaveBeenCalled(); // the warning is for a send after close()
    } finally {
      warn.mockRestore();
    }
    expect(h.socket.drainQueuedMessages()).toEqual(['kept', 'also kept']);
  });

  it('maxRetries with dropOnClose: gives up after that many retries, dropping what was queued', () => {
    const h = setup({ maxRetries: 2, dropOnClose: true });
    h.socket.send('never');
    refuseAll(h, 60_000);
    expect(h.socket.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(h.drops).toMatchObject([{ data: 'never', reason: 'closed' }]);
    expect(h.clock.pendingTimers()).toBe(0);
  });
});

describe('browser awareness', () => {
  it('does not attempt while offline; shows IDLE with pause offline; attempts at once on online', () => {
    const h = setup();
    h.last().fail();
    h.environment.goOffline();
    h.clock.advanceBy(1000); // the attempt due now is parked
    expect(h.fake.sockets).toHaveLength(1);
    expect(h.socket.snapshot).toMatchObject({ state: 'IDLE', paused: true });
    expect(h.snapshots.filter((s) => s.state === 'CONNECTING')).toHaveLength(1); // a parked attempt is never shown as CONNECTING
    h.clock.advanceBy(600_000);
    expect(h.fake.sockets).toHaveLength(1);
    h.environment.goOnline();
    expect(h.fake.sockets).toHaveLength(2);
    expect(h.socket.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
  });

  it('starting offline parks the first attempt', () => {
    const clock = createVirtualClock();
    const fake = fakeWebSocketClass();
    const environment = new FakeEnvironment();
    environment.navigator.onLine = false;
    const socket = new ReconnectingWebSocket(URL, undefined, {
      WebSocket: fake.WebSocket,
      scheduler: clock.scheduler,
      environment,
    });
    open.push(socket);
    expect(fake.sockets).toHaveLength(0);
    expect(socket.snapshot).toMatchObject({ state: 'IDLE', paused: true });
    environment.goOnline();
    expect(fake.sockets).toHaveLength(1);
  });

  it('online during a backoff wait attempts at once', () => {
    const h = setup();
    refuseAll(h, 5160);
    h.last().fail();
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    h.environment.goOnline();
    expect(h.fake.sockets).toHaveLength(5);
  });

  it('a hidden tab shown again during a long wait attempts at once; during a short wait it does not', () => {
    const h = setup();
    refuseAll(h, 1000);
    h.last().fail(); // wait of 1.6 s: short
    h.environment.setVisibility('hidden');
    h.environment.setVisibility('visible');
    expect(h.fake.sockets).toHaveLength(2);
    refuseAll(h, 15_810);
    h.last().fail(); // attempt 6 failed: the wait until attempt 7 is over 10 s
    const before = h.fake.sockets.length;
    h.environment.setVisibility('visible');
    expect(h.fake.sockets).toHaveLength(before + 1);
  });

  it('pauseWhileOffline: false keeps attempting while offline', () => {
    const h = setup({ pauseWhileOffline: false });
    h.environment.goOffline();
    h.last().fail();
    h.clock.advanceBy(1000);
    expect(h.fake.sockets).toHaveLength(2);
  });
});

describe('state$', () => {
  it('replays the current snapshot, once, to a late subscriber, then every change', () => {
    const h = setup();
    h.last().fail();
    h.clock.advanceBy(1000);
    h.last().open();
    const seen: WebSocketSnapshot[] = [];
    h.socket.state$.subscribe((s) => seen.push(s));
    expect(seen).toEqual([h.socket.snapshot]);
    expect(seen[0]).toBe(h.socket.snapshot);
    h.socket.close();
    expect(seen.map((s) => s.state)).toEqual(['READY', 'SHUTDOWN']);
  });

  it('is read-only: holding it gives no way to push a snapshot to its subscribers', () => {
    const h = setup();
    const forged = { ...h.socket.snapshot, state: 'READY' };
    const leaked = (h.socket.state$ as unknown as { source?: { next?: (value: unknown) => void } }).source;
    leaked?.next?.(forged);
    expect('next' in h.socket.state$).toBe(false);
    expect(h.snapshots).not.toContain(forged);
    const late: WebSocketSnapshot[] = [];
    h.socket.state$.subscribe((s) => late.push(s));
    expect(late).toEqual([h.socket.snapshot]);
  });

  it('every subscriber sees the snapshots in order and ends on the current one, when one restarts the socket from its callback', () => {
    const h = setup();
    const first: string[] = [];
    const second: string[] = [];
    h.socket.send('before');
    h.socket.state$.subscribe((s) => {
      first.push(s.state);
      if (s.state === 'SHUTDOWN' && first.length === 2) {
        h.socket.reconnect();
        h.socket.send('after');
      }
    });
    h.socket.state$.subscribe((s) => second.push(s.state));
    h.socket.close();
    expect(h.socket.snapshot.state).toBe('CONNECTING');
    expect(first).toEqual(['CONNECTING', 'SHUTDOWN', 'IDLE', 'CONNECTING']);
    expect(second).toEqual(first);
    expect(h.snapshots.map((s) => s.state)).toEqual(first);
    // The message queued before close() stays queued for the new session, ahead of the one sent for it.
    expect(h.drops).toEqual([]);
    h.last().open();
    expect(h.last().sent).toEqual(['before', 'after']);
  });
});

describe('reconnect-websocket surface', () => {
  it('reconnect() closes the open socket with the code and connects again at once with a fresh backoff', () => {
    const h = setup();
    refuseAll(h, 2600);
    h.last().open();
    const first = h.last();
    h.socket.reconnect(4000, 'switch');
    expect(first.closedWith).toEqual({ code: 4000, reason: 'switch' });
    expect(h.fake.sockets).toHaveLength(4);
    expect(h.socket.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 1 });
  });

  it("reconnect()'s code and reason apply to the socket it closes, not to later ones", () => {
    const h = setup({ connectionTimeout: 3000 });
    h.last().open();
    h.socket.reconnect(4000, 'switch');
    h.clock.advanceBy(3000); // the new attempt is cut
    expect(h.fake.sockets[0]?.closedWith).toEqual({ code: 4000, reason: 'switch' });
    expect(h.fake.sockets[1]?.closedWith).toEqual({ code: undefined, reason: undefined });
  });

  it('reconnect() after close() starts again', () => {
    const h = setup();
    h.socket.close();
    h.socket.reconnect();
    expect(h.fake.sockets).toHaveLength(2);
    expect(h.socket.sendWithStatus('again')).toBe('queued');
    h.last().open();
    expect(h.last().sent).toEqual(['again']);
  });

  it('startClosed: CLOSED and no socket until reconnect()', () => {
    const h = setup({ startClosed: true });
    expect(h.fake.sockets).toHaveLength(0);
    expect(h.socket.readyState).toBe(ReconnectingWebSocket.CLOSED);
    expect(h.socket.sendWithStatus('early')).toBe('queued');
    h.socket.reconnect();
    h.last().open();
    expect(h.last().sent).toEqual(['early']);
  });

  it('delivers events to on… handlers and listeners (functions and handleEvent objects), and removes them', () => {
    const h = setup();
    const got: string[] = [];
    h.socket.onmessage = (e) => got.push(`on:${String(e.data)}`);
    const fn = (e: { data: unknown }) => got.push(`fn:${String(e.data)}`);
    const obj = { handleEvent: (e: { data: unknown }) => got.push(`obj:${String(e.data)}`) };
    h.socket.addEventListener('message', fn);
    h.socket.addEventListener('message', obj);
    h.last().open();
    h.last().receive('1');
    h.socket.removeEventListener('message', fn);
    h.last().receive('2');
    expect(got).toEqual(['on:1', 'fn:1', 'obj:1', 'on:2', 'obj:2']);
  });

  it('fires error then close for a refused attempt, and close once for every socket', () => {
    const h = setup();
    const got: string[] = [];
    h.socket.onerror = () => got.push('error');
    h.socket.onclose = (e) => got.push(`close:${String(e.code)}`);
    h.last().fail();
    h.clock.advanceBy(1000);
    h.last().open();
    h.last().finish(1001, '', true);
    expect(got).toEqual(['error', 'close:1006', 'close:1001']);
  });

  it('applies binaryType to the current and later sockets', () => {
    const h = setup();
    h.socket.binaryType = 'arraybuffer';
    expect(h.last().binaryType).toBe('arraybuffer');
    h.last().fail();
    h.clock.advanceBy(1000);
    expect(h.last().binaryType).toBe('arraybuffer');
  });

  it('has the ready-state constants on the class and on instances', () => {
    const h = setup();
    expect([
      ReconnectingWebSocket.CONNECTING,
      ReconnectingWebSocket.OPEN,
      ReconnectingWebSocket.CLOSING,
      ReconnectingWebSocket.CLOSED,
    ]).toEqual([0, 1, 2, 3]);
    expect(h.socket.OPEN).toBe(1);
  });

  it('a throwing listener does not break the client; its error is reported, not swallowed', async () => {
    const h = setup();
    const boom = new Error('listener failed');
    h.socket.onopen = () => {
      throw boom;
    };
    const reported = new Promise<unknown>((resolve) => {
      const original = globalThis.queueMicrotask;
      globalThis.queueMicrotask = (task) => {
        globalThis.queueMicrotask = original;
        try {
          task();
        } catch (error) {
          resolve(error);
        }
      };
    });
    h.last().open();
    expect(h.socket.snapshot.state).toBe('READY');
    await expect(reported).resolves.toBe(boom);
  });
});

describe('failures before a socket exists', () => {
  /** Lets microtasks run: a failure before a socket exists is reported as a socket's error is, a little later. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
  }

  /** A WebSocket class that refuses, as a WebSocket constructor does, any URL but a ws:// one. */
  function strictWebSocketClass(): ReturnType<typeof fakeWebSocketClass> {
    const fake = fakeWebSocketClass();
    class Strict extends fake.WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        if (!url.startsWith('ws://')) throw new SyntaxError(`invalid URL: ${url}`);
        super(url, protocols);
      }
    }
    return { ...fake, WebSocket: Strict };
  }

  /** A client on `url`, whose error and close events (and the state at each) are recorded. */
  function client(url: UrlProvider, clock = createVirtualClock()) {
    const fake = strictWebSocketClass();
    const socket = new ReconnectingWebSocket(url, undefined, virtualTimeOptions(clock, fake.WebSocket));
    open.push(socket);
    // Set after the constructor, as an application does: a failure of the first attempt still reaches it.
    const errors: ErrorEventLike[] = [];
    const events: string[] = [];
    socket.onerror = (event) => {
      errors.push(event);
      events.push(`error ${socket.snapshot.state} rc=${String(socket.retryCount)}`);
    };
    socket.onclose = (event) => {
      events.push(`close ${String(event.code)}`);
    };
    return { clock, fake, socket, errors, events };
  }

  it('a URL string the WebSocket class rejects stops at once, with an error event (retrying cannot fix it)', async () => {
    const h = client('nonsense');
    await settle();
    expect(h.socket.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect((h.socket.snapshot.lastError as Error).message).toMatch(/invalid URL: nonsense/);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]?.message).toBe('invalid URL: nonsense');
    expect(h.events).toEqual(['error SHUTDOWN rc=0']); // no close: no socket was made
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it.each<[string, () => unknown, RegExp]>([
    [
      'throws',
      () => {
        throw new Error('no token yet');
      },
      /^no token yet$/,
    ],
    [
      'throws a TypeError',
      () => {
        throw new TypeError("Cannot read properties of undefined (reading 'token')");
      },
      /reading 'token'/,
    ],
    ['rejects', () => Promise.reject(new Error('token service down')), /^token service down$/],
    ['returns undefined', () => undefined, /url provider must return a URL string, got undefined/],
    ['resolves to a number', () => Promise.resolve(42), /url provider must return a URL string, got 42/],
    ['returns a URL the WebSocket class rejects', () => 'undefined/feed', /^invalid URL: undefined\/feed$/],
  ])(
    'a url provider that %s: an error event and lastError, then a retry on the backoff',
    async (_what, answer, message) => {
      let calls = 0;
      const h = client((() => {
        calls += 1;
        return calls === 1 ? answer() : URL;
      }) as UrlProvider);
      await settle();
      expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1, nextAttemptAt: 1000 });
      const lastError = h.socket.snapshot.lastError;
      expect(lastError).toBeInstanceOf(Error);
      expect((lastError as Error).message).toMatch(message);
      expect(h.errors).toHaveLength(1);
      expect(h.errors[0]).toMatchObject({ type: 'error', message: (lastError as Error).message });
      expect(h.errors[0]?.error).toBe(lastError);
      expect(h.events).toEqual(['error TRANSIENT_FAILURE rc=1']); // no close: no socket was made
      h.clock.advanceTo(999);
      expect(calls).toBe(1);
      h.clock.advanceTo(1000);
      await settle();
      expect(calls).toBe(2);
      expect(h.fake.sockets.map((s) => s.url)).toEqual([URL]);
      expect(h.socket.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 2 });
    },
  );

  it('a url provider that fails again and again is retried on the growing backoff, an error event each time', async () => {
    const clock = createVirtualClock();
    const calls: number[] = [];
    const h = client(() => {
      calls.push(clock.now());
      throw new Error(`no token yet (${String(calls.length)})`);
    }, clock);
    for (let i = 0; i < 4; i += 1) {
      await settle();
      const s = h.socket.snapshot;
      if (s.state === 'TRANSIENT_FAILURE') h.clock.advanceTo(s.nextAttemptAt);
    }
    await settle();
    expect(calls).toEqual([0, 1000, 2600, 5160, 9256]);
    expect(h.errors.map((e) => e.message)).toEqual([1, 2, 3, 4, 5].map((n) => `no token yet (${String(n)})`));
  });

  it('a url provider that throws a PermanentError stops, with an error event', async () => {
    const signedOut = permanent(new Error('signed out'));
    const h = client(() => {
      throw signedOut;
    });
    await settle();
    expect(h.socket.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure', lastError: signedOut });
    expect(h.errors.map((e) => e.error)).toEqual([signedOut]);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('a failure abandoned by close() before it is reported dispatches nothing', async () => {
    const h = client(() => {
      throw new Error('no token yet');
    });
    h.socket.close();
    await settle();
    expect(h.socket.snapshot).toMatchObject({ state: 'SHUTDOWN' });
    expect(h.errors).toEqual([]);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('debug logs every transition with console.log, as the peers log', () => {
    const lines: unknown[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => lines.push(args.join(' '));
    try {
      const h = setup({ debug: true });
      h.last().open();
    } finally {
      console.log = original;
    }
    expect(lines).toEqual([
      expect.stringMatching(/^redialer\/websocket IDLE -> CONNECTING \(connect\)/),
      expect.stringMatching(/^redialer\/websocket CONNECTING -> READY \(established\)/),
    ]);
  });
});

describe('options', () => {
  it.each([
    [{ maxRetries: -1 }, /maxRetries/],
    [{ connectionTimeout: Number.NaN }, /connectionTimeout/],
    [{ minReconnectionDelay: 5000, maxReconnectionDelay: 1000 }, /maxReconnectionDelay/],
    [{ maxEnqueuedMessages: 1.5 }, /maxEnqueuedMessages/],
    [{ permanentCloseCodes: [99] }, /permanentCloseCodes\[0\]/],
    [{ shouldReconnect: 'yes' }, /shouldReconnect/],
    [{ WebSocket: 42 }, /WebSocket/],
    [{ reconnectSpread: -1 }, /option "reconnectSpread"/],
    [{ reconnectSpread: '500' }, /option "reconnectSpread"/],
    [{ attemptSpacing: { burst: 0 } }, /option "attemptSpacing.burst"/],
    [{ attemptSpacing: { interval: -5 } }, /option "attemptSpacing.interval"/],
    [{ attemptSpacing: 100 }, /attemptSpacing/],
    [{ onUnhandledError: 'log' }, /option "onUnhandledError"/],
  ])('rejects %o naming the option', (options, message) => {
    const fake = fakeWebSocketClass();
    expect(
      () => new ReconnectingWebSocket(URL, undefined, { WebSocket: fake.WebSocket, ...(options as object) }),
    ).toThrow(message);
  });

  it('without a WebSocket class on a runtime that has none, says how to fix it', () => {
    const global = globalThis as { WebSocket?: unknown };
    const saved = global.WebSocket;
    delete global.WebSocket;
    try {
      expect(() => new ReconnectingWebSocket(URL)).toThrow(/pass option "WebSocket"/);
    } finally {
      if (saved !== undefined) global.WebSocket = saved;
    }
  });
});

describe('herd options, as the connection manager has them', () => {
  /** Opens a connection, keeps it up past minUptime, and loses it at 10 s. */
  function loseStableConnection(h: ReturnType<typeof setup>): void {
    h.last().open();
    h.clock.advanceTo(10_000);
    h.last().finish(1001, 'going away', true);
  }

  it('reconnectSpread: the first reconnect after a lost connection waits a draw in [0, reconnectSpread]', () => {
    // Without the first wait after a loss (backoffAfterLoss), to see the spread alone.
    const spread = setup({ reconnectSpread: 2000, backoffAfterLoss: false }); // random() is 0.5: a 1000 ms draw
    loseStableConnection(spread);
    expect(spread.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 11_000 });
    spread.clock.advanceTo(10_999);
    expect(spread.starts).toEqual([0]);
    spread.clock.advanceTo(11_000);
    expect(spread.starts).toEqual([0, 11_000]);

    const plain = setup({ backoffAfterLoss: false });
    loseStableConnection(plain);
    plain.clock.advanceBy(0);
    expect(plain.starts).toEqual([0, 10_000]);

    // With it (the default), the spread comes on top of the first wait only where it is longer.
    const both = setup({ reconnectSpread: 4000 }); // a 2000 ms draw, over the 1000 ms wait
    loseStableConnection(both);
    expect(both.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 12_000 });
  });

  it('attemptSpacing: the floor under a 0 ms backoff is the one given', () => {
    const spaced = setup({ minReconnectionDelay: 0, attemptSpacing: { burst: 2, interval: 1000 } });
    refuseAll(spaced, 3500);
    expect(spaced.starts).toEqual([0, 0, 1000, 2000, 3000]);

    const floor = setup({ minReconnectionDelay: 0 });
    refuseAll(floor, 250);
    expect(floor.starts).toEqual([0, 0, 0, 0, 0, 100, 200]);
  });

  it('onUnhandledError receives what a trace callback throws', () => {
    const errors: unknown[] = [];
    const boom = new Error('trace failed');
    const h = setup({
      onUnhandledError: (error) => errors.push(error),
      trace: () => {
        throw boom;
      },
    });
    h.last().open();
    expect(errors).toEqual([boom, boom]); // IDLE -> CONNECTING, CONNECTING -> READY
    expect(h.socket.snapshot.state).toBe('READY');
  });

  it("onUnhandledError receives what the application's listeners and isPong throw", () => {
    const errors: unknown[] = [];
    const h = setup({
      onUnhandledError: (error) => errors.push(error),
      heartbeat: {
        ping: 'ping',
        isPong: () => {
          throw new Error('isPong failed');
        },
      },
    });
    h.socket.onopen = () => {
      throw new Error('onopen failed');
    };
    h.socket.addEventListener('message', () => {
      throw new Error('listener failed');
    });
    h.last().open();
    h.last().receive('hello');
    expect(errors.map((e) => (e as Error).message)).toEqual(['onopen failed', 'isPong failed', 'listener failed']);
    expect(h.socket.snapshot.state).toBe('READY');
  });
});

describe('server-directed waits and browser events', () => {
  it('going offline during a wait the server asked for and back online: the wait still holds', () => {
    const h = setup();
    h.last().open();
    h.last().finish(1013, 'retry-after=30', true);
    const { nextAttemptAt } = h.socket.snapshot as { nextAttemptAt: number };
    expect(nextAttemptAt).toBeGreaterThanOrEqual(30_000);
    h.environment.goOffline();
    h.clock.advanceBy(5000);
    h.environment.goOnline();
    expect(h.fake.sockets).toHaveLength(1);
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt });
    h.clock.advanceTo(nextAttemptAt);
    expect(h.fake.sockets).toHaveLength(2);
  });

  it('back online during a backoff longer than the server asked for: the wait is cut to the hint', () => {
    const h = setup();
    refuseAll(h, 40_000); // seven refusals: the next wait is 1.6^7 s
    h.clock.advanceTo((h.socket.snapshot as { nextAttemptAt: number }).nextAttemptAt);
    h.last().open();
    h.last().finish(1013, 'retry-after=5', true);
    const lost = h.clock.now();
    const waiting = h.socket.snapshot as { state: string; nextAttemptAt: number };
    expect(waiting.state).toBe('TRANSIENT_FAILURE');
    expect(waiting.nextAttemptAt - lost).toBeCloseTo(26_843.5, 0);
    h.environment.goOnline();
    const { nextAttemptAt } = h.socket.snapshot as { nextAttemptAt: number };
    expect(nextAttemptAt - lost).toBeGreaterThanOrEqual(5000);
    expect(nextAttemptAt - lost).toBeLessThanOrEqual(6000);
    const before = h.fake.sockets.length;
    h.clock.advanceTo(nextAttemptAt);
    expect(h.fake.sockets).toHaveLength(before + 1);
  });

  it('coming back online does not cut short a wait the server asked for', () => {
    const h = closedByServer(1013, 'retry-after=30');
    h.environment.goOnline();
    h.environment.setVisibility('hidden');
    h.environment.setVisibility('visible');
    expect(h.fake.sockets).toHaveLength(1);
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    h.socket.close();
  });
});
