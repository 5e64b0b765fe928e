/**
 * Each fault of the fault proxy between a real ReconnectingWebSocket (on the runtime's own
 * WebSocket, or `ws` on Node 20) and a real `ws`
 * server on 127.0.0.1, and a real flapping server measured against the backoff schedule. Backoffs and
 * timeouts are short; every assertion is on order, counts and lower bounds, never on speed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientWebSocket, clientWebSocketName, hasProtocolPing } from '../../support/websocket/client-websocket.js';
import { isConnectTimeoutError } from '../../../src/index.js';
import {
  type DropEvent,
  type ReconnectingWebSocketOptions,
  ReconnectingWebSocket,
  type SendStatus,
  type WebSocketLike,
  type WebSocketSnapshot,
  isHeartbeatTimeoutError,
  isWebSocketCloseError,
} from '../../../src/adapters/websocket/index.js';
import { onSchedule, waitsAfterAttempts } from '../../support/grpc/record.js';
import { type FaultProxy, startFaultProxy } from '../../../src/testing/fault-proxy.js';
import { type TestServer, startServer } from '../../support/websocket/ws-server.js';

/** No jitter (random pinned at 0.5 with jitter 0): every wait is nominal, 100, 200, 400 … ms. */
const FAST: ReconnectingWebSocketOptions = {
  WebSocket: ClientWebSocket,
  minReconnectionDelay: 100,
  maxReconnectionDelay: 1600,
  reconnectionDelayGrowFactor: 2,
  reconnectionDelayJitter: 0,
  connectionTimeout: 2000,
  minUptime: 200,
  random: () => 0.5,
};

const cleanups: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(onConnection?: Parameters<typeof startServer>[1]): Promise<TestServer> {
  const s = await startServer(0, onConnection);
  cleanups.push(() => s.stop());
  return s;
}

async function proxyTo(s: TestServer, fault: Parameters<typeof startFaultProxy>[1]): Promise<FaultProxy> {
  const p = await startFaultProxy({ port: s.port }, fault);
  cleanups.push(() => p.close());
  return p;
}

function client(port: number, options: ReconnectingWebSocketOptions = {}) {
  const socket = new ReconnectingWebSocket(`ws://127.0.0.1:${String(port)}/`, undefined, { ...FAST, ...options });
  const snapshots: WebSocketSnapshot[] = [];
  socket.state$.subscribe((s) => snapshots.push(s));
  const drops: DropEvent[] = [];
  socket.addEventListener('drop', (e) => drops.push(e));
  const statuses = new Map<string, SendStatus>();
  const send = (m: string): SendStatus => {
    const status = socket.sendWithStatus(m);
    statuses.set(m, status);
    return status;
  };
  cleanups.push(() => {
    if (socket.snapshot.state !== 'SHUTDOWN') socket.close();
    return undefined;
  });
  const states = () => snapshots.map((s) => s.state);
  const ready = (n = 1) =>
    vi.waitFor(
      () => {
        expect(snapshots.filter((s) => s.state === 'READY').length).toBeGreaterThanOrEqual(n);
      },
      { timeout: 5000 },
    );
  return { socket, snapshots, drops, statuses, send, states, ready };
}

/** Every message sent is delivered exactly once, in order, or reported dropped — never both. */
function expectAccounted(sent: readonly string[], delivered: readonly string[], drops: readonly DropEvent[]): void {
  const dropped = drops.map((d) => d.data as string);
  expect(new Set(delivered).size).toBe(delivered.length); // no duplicates
  expect(delivered.filter((m) => dropped.includes(m))).toEqual([]); // never both
  expect(delivered).toEqual(sent.filter((m) => delivered.includes(m))); // in order
  expect([...delivered, ...dropped].sort()).toEqual([...sent].sort()); // each has an outcome
}

const wsUnits = (n: number) => Array.from({ length: n }, (_, i) => `m${String(i).padStart(3, '0')}`);

describe(`WebSocket through the fault proxy, on ${clientWebSocketName}`, () => {
  it('refuse: attempts fail at once on the backoff schedule, the server never sees them; READY once the port listens again', async () => {
    const s = await server();
    const proxy = await proxyTo(s, { kind: 'refuse' });
    const c = client(proxy.port);
    await vi.waitFor(
      () => {
        expect(c.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 4 });
      },
      { timeout: 5000 },
    );
    const failure = c.socket.snapshot.lastError;
    expect(isWebSocketCloseError(failure) && failure.code).toBe(1006);
    expect(onSchedule(waitsAfterAttempts(c.snapshots), [100, 200, 400])).toEqual([100, 200, 400]);
    expect(s.connections).toBe(0);
    expect(c.send('while refused')).toBe('queued');
    await proxy.setFault({ kind: 'pass' });
    await c.ready();
    await vi.waitFor(() => {
      expect(s.received).toEqual(['while refused']);
    });
    expect(s.connections).toBe(1);
  });

  it('black hole: each attempt is cut at max(deadline, connectionTimeout), never sooner, and its TCP connection is closed', async () => {
    const s = await server();
    const proxy = await proxyTo(s, { kind: 'blackhole' });
    const made: WebSocketLike[] = [];
    const Base = ClientWebSocket as unknown as new (url: string) => WebSocketLike;
    const Recorded = class extends Base {
      constructor(url: string) {
        super(url);
        made.push(this);
      }
    };
    const c = client(proxy.port, { connectionTimeout: 300, WebSocket: Recorded });
    await vi.waitFor(
      () => {
        expect(c.socket.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 3 });
      },
      { timeout: 5000 },
    );
    const failures = c.snapshots.filter((x) => x.state === 'TRANSIENT_FAILURE');
    const starts = c.snapshots.filter((x) => x.state === 'CONNECTING');
    expect(failures.every((x) => isConnectTimeoutError(x.lastError))).toBe(true);
    // Deadlines 100, 200, 400 ms after each start: cut at max(deadline, 300 ms).
    expect(starts.map((x) => x.state === 'CONNECTING' && x.timeoutAt - x.since)).toEqual([300, 300, 400]);
    failures.forEach((f, i) => {
      expect(f.since - starts[i]!.since).toBeGreaterThanOrEqual(300);
    });
    // One TCP connection per attempt. The proxy's accept can lag behind the client's CONNECTING on a
    // loaded machine, so wait for it; and a fourth attempt may have begun meanwhile.
    await vi.waitFor(() => {
      expect(proxy.accepted).toBeGreaterThanOrEqual(3);
    });
    // Node's own WebSocket (undici) dials one more TCP connection after a handshake is aborted.
    const perAttempt = hasProtocolPing ? 1 : 2;
    expect(proxy.accepted).toBeLessThanOrEqual(perAttempt * c.snapshots.filter((x) => x.state === 'CONNECTING').length);
    // The cut sockets are closed (the proxy never reads, so it is the client side that shows it):
    // `ws` reaches CLOSED; Node's own WebSocket leaves a socket closed while connecting at CLOSING.
    const closedEnough = (w: { readyState: number }) => w.readyState === 3 || (!hasProtocolPing && w.readyState === 2);
    await vi.waitFor(() => {
      expect(made.slice(0, 2).every(closedEnough)).toBe(true);
    });
    c.socket.close();
    await vi.waitFor(() => {
      expect(made.every(closedEnough)).toBe(true);
    });
    expect(s.connections).toBe(0);
  });

  it('latency (150 ms each way): opens later but stays READY; messages both ways arrive in order', async () => {
    const s = await server((peer) => {
      peer.on('message', (data) => {
        peer.send(`echo:${Buffer.from(data as Buffer).toString()}`);
      });
    });
    const proxy = await proxyTo(s, { kind: 'latency', ms: 150 });
    const c = client(proxy.port);
    const echoes: string[] = [];
    c.socket.addEventListener('message', (e) => echoes.push(String(e.data)));
    const sent = wsUnits(10);
    for (const m of sent) c.send(m);
    await c.ready();
    const connecting = c.snapshots.find((x) => x.state === 'CONNECTING')!;
    const ready = c.snapshots.find((x) => x.state === 'READY')!;
    expect(ready.since - connecting.since).toBeGreaterThanOrEqual(300); // the upgrade's round trip
    await vi.waitFor(
      () => {
        expect(echoes).toHaveLength(10);
      },
      { timeout: 5000 },
    );
    expect(s.received).toEqual(sent);
    expect(echoes).toEqual(sent.map((m) => `echo:${m}`));
    expect(c.states()).toEqual(['CONNECTING', 'READY']);
  });

  it('reset mid-stream: reconnects; every message is delivered exactly once in order or reported dropped', async () => {
    const s = await server();
    // The 101 response (about 130 bytes) passes; the first big server message crosses 1000 bytes: RST.
    const proxy = await proxyTo(s, { kind: 'reset-after-bytes', bytes: 1000 });
    const c = client(proxy.port, { maxEnqueuedMessages: 3 });
    const sent = wsUnits(12);
    await c.ready();
    for (const m of sent.slice(0, 4)) expect(c.send(m)).toBe('sent');
    await vi.waitFor(() => {
      expect(s.received).toHaveLength(4);
    });
    // While the connection is down, the client queues up to 3 and refuses the rest with a drop event.
    const down = c.socket.state$.subscribe((x) => {
      if (x.state === 'TRANSIENT_FAILURE' && !c.statuses.has(sent[4]!)) for (const m of sent.slice(4, 9)) c.send(m);
    });
    cleanups.push(() => {
      down.unsubscribe();
      return undefined;
    });
    [...s.clients][0]?.send('x'.repeat(2000));
    await c.ready(2);
    const failure = c.snapshots.find((x) => x.state === 'TRANSIENT_FAILURE')?.lastError;
    expect(isWebSocketCloseError(failure) && failure.code).toBe(1006);
    for (const m of sent.slice(9)) expect(c.send(m)).toBe('sent');
    await vi.waitFor(() => {
      expect(s.received).toHaveLength(10);
    });
    expect([...c.statuses.values()]).toEqual([
      ...Array<string>(4).fill('sent'),
      ...Array<string>(3).fill('queued'),
      'rejected',
      'rejected',
      'sent',
      'sent',
      'sent',
    ]);
    expect(c.drops.map((d) => d.reason)).toEqual(['queue-full', 'queue-full']);
    expectAccounted(sent, s.received, c.drops);
    expect(s.connections).toBe(2);
  });

  it('reset while the client is sending: no duplicate, no reordering, never delivered and dropped; only messages handed to the dying socket can be lost', async () => {
    const s = await server();
    const proxy = await proxyTo(s, { kind: 'reset-after-bytes', bytes: 1000 });
    const c = client(proxy.port, { maxEnqueuedMessages: 5 });
    await c.ready();
    const sent: string[] = [];
    let n = 0;
    const pump = setInterval(() => {
      const m = `p${String(n++).padStart(4, '0')}`;
      sent.push(m);
      c.send(m);
    }, 2);
    cleanups.push(() => {
      clearInterval(pump);
      return undefined;
    });
    await vi.waitFor(() => {
      expect(s.received.length).toBeGreaterThanOrEqual(20);
    });
    [...s.clients][0]?.send('x'.repeat(2000));
    await c.ready(2);
    await new Promise((resolve) => setTimeout(resolve, 50)); // keep sending on the new connection
    clearInterval(pump);
    await vi.waitFor(() => {
      expect(s.received.at(-1)).toBe(sent.filter((m) => c.statuses.get(m) !== 'rejected').at(-1));
    });
    const dropped = c.drops.map((d) => d.data as string);
    expect(new Set(s.received).size).toBe(s.received.length);
    expect(s.received).toEqual(sent.filter((m) => s.received.includes(m)));
    expect(s.received.filter((m) => dropped.includes(m))).toEqual([]);
    // What is neither delivered nor reported was handed to the socket the reset killed: the WebSocket
    // API acknowledges nothing, so those are the only messages whose fate the client cannot know.
    const unaccounted = sent.filter((m) => !s.received.includes(m) && !dropped.includes(m));
    for (const m of unaccounted) expect(c.statuses.get(m)).toBe('sent');
    expect(s.connections).toBe(2);
  });

  it('accept, then close after 50 ms without forwarding: no attempt opens, the backoff keeps growing', async () => {
    const s = await server();
    const proxy = await proxyTo(s, { kind: 'close-after', ms: 50 });
    const c = client(proxy.port);
    await vi.waitFor(
      () => {
        expect(c.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 4 });
      },
      { timeout: 5000 },
    );
    expect(c.states()).not.toContain('READY');
    expect(c.snapshots.filter((x) => x.state === 'CONNECTING').map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
    expect(onSchedule(waitsAfterAttempts(c.snapshots), [100, 200, 400])).toEqual([100, 200, 400]);
    expect(proxy.accepted).toBe(4);
    expect(s.connections).toBe(0);
  });

  it('stall after the handshake with the heartbeat off: READY but silent; only the application can tell', async () => {
    const s = await server();
    const proxy = await proxyTo(s, { kind: 'stall-after-handshake' });
    // With ws the heartbeat is on by default (it would find this in 45 s); off, nothing can tell.
    const c = client(proxy.port, { heartbeat: false });
    await c.ready(); // the 101 response was the last thing to pass
    expect(c.send('into the stall')).toBe('sent');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.received).toEqual([]);
    expect(c.socket.snapshot.state).toBe('READY'); // nothing in the WebSocket API can tell
    // The message handed to the stalled socket is lost without a drop event (see the test above).
    expect(c.drops).toEqual([]);
  });

  it(`a quiet, healthy server and a heartbeat (${hasProtocolPing ? 'protocol pings' : 'an application ping'}): never closed, one connection`, async () => {
    let pings = 0;
    // The server sends nothing of its own: ws answers protocol pings by itself, and it answers 'ping'.
    const s = await server((ws) => {
      ws.on('ping', () => (pings += 1));
      ws.on('message', (data) => {
        if (Buffer.from(data as Buffer).toString() !== 'ping') return;
        pings += 1;
        ws.send('pong');
      });
    });
    // Without protocol pings a heartbeat must say what to send: one without would be refused.
    const heartbeat = hasProtocolPing
      ? { interval: 100, timeout: 100 }
      : { interval: 100, timeout: 100, ping: 'ping', isPong: (data: unknown) => data === 'pong' };
    const c = client(s.port, { heartbeat });
    await c.ready();
    await vi.waitFor(
      () => {
        expect(pings).toBeGreaterThanOrEqual(10); // over a second: five times interval + timeout
      },
      { timeout: 10_000 },
    );
    expect(c.states().filter((state) => state !== 'IDLE' && state !== 'CONNECTING')).toEqual(['READY']);
    expect(s.connections).toBe(1);
  });

  it('stall after the handshake with the heartbeat: found dead within interval + timeout, closed with 4000, reconnected', async () => {
    const interval = 400;
    const timeout = 300;
    // The server talks every 100 ms: none of it passes the stall.
    const s = await server((ws) => {
      const timer = setInterval(() => {
        ws.send('tick');
      }, 100);
      ws.on('close', () => {
        clearInterval(timer);
      });
    });
    const proxy = await proxyTo(s, { kind: 'stall-after-handshake' });
    // The server ticks every 100 ms on its own: with no protocol ping, that is what the heartbeat watches.
    const c = client(proxy.port, {
      heartbeat: { interval, timeout, ...(hasProtocolPing ? {} : { serverSends: true }) },
    });
    const closes: number[] = [];
    const messages: string[] = [];
    c.socket.addEventListener('close', (e) => closes.push(e.code));
    c.socket.addEventListener('message', (e) => messages.push(String(e.data)));
    await c.ready();
    await vi.waitFor(
      () => {
        expect(c.states()).toContain('TRANSIENT_FAILURE');
      },
      { timeout: 10_000 },
    );
    const ready = c.snapshots.find((x) => x.state === 'READY');
    const lost = c.snapshots.find((x) => x.state === 'TRANSIENT_FAILURE');
    const detection = (lost?.since ?? 0) - (ready?.since ?? 0);
    console.log(
      `stall detected ${String(detection)} ms after open (interval ${String(interval)} + timeout ${String(timeout)} ms): ${String(lost?.lastError)}`,
    );
    // Nothing ever arrived, so the connection is dead exactly interval + timeout after the open;
    // the timer may run late on a loaded machine, never early.
    expect(detection).toBeGreaterThanOrEqual(interval + timeout);
    expect(detection).toBeLessThan(interval + timeout + 2000);
    expect(isHeartbeatTimeoutError(lost?.lastError)).toBe(true);
    expect(closes[0]).toBe(4000);
    expect(messages).toEqual([]);
    // The stall lifts: the backoff brings the client back, and the server's messages arrive.
    await proxy.setFault({ kind: 'pass' });
    await vi.waitFor(
      () => {
        expect(messages.length).toBeGreaterThan(0);
      },
      { timeout: 10_000 },
    );
    expect(c.socket.snapshot.state).toBe('READY');
  });
});

describe('a real flapping server cannot push the attempt rate above the policy', () => {
  /** Attempt start times (ms after the first) of each CONNECTING snapshot. */
  const starts = (snapshots: readonly WebSocketSnapshot[]) => {
    const connecting = snapshots.filter((x) => x.state === 'CONNECTING');
    return connecting.map((x) => x.since - connecting[0]!.since);
  };
  // gRPC's schedule with 50 ms, x2, capped at 400 ms: attempt k starts no sooner than the sum of the waits before it.
  const nominal = [0, 50, 150, 350, 750, 1150, 1550, 1950];

  it('accepts the upgrade and closes at once: with the minUptime guard, attempts follow the schedule', async () => {
    const s = await server((peer) => {
      peer.close(1000, 'bye');
    });
    const c = client(s.port, { minReconnectionDelay: 50, maxReconnectionDelay: 400, minUptime: 60_000 });
    await vi.waitFor(
      () => {
        expect(c.snapshots.filter((x) => x.state === 'CONNECTING').length).toBeGreaterThanOrEqual(7);
      },
      { timeout: 5000 },
    );
    c.socket.close();
    const observed = starts(c.snapshots);
    // Each attempt starts no sooner than the policy allows (1 ms of timer rounding per attempt).
    observed.forEach((t, k) => {
      expect(t).toBeGreaterThanOrEqual(nominal[k]! - k);
    });
    // Per window: never more attempts by time t than the schedule has starts by t.
    for (const t of [500, 1000, 1500])
      expect(observed.filter((x) => x <= t).length).toBeLessThanOrEqual(nominal.filter((x) => x <= t + 8).length);
    // Every connection opened and was closed at once, yet none reset the backoff (the guard held).
    const readyAttempts = c.snapshots.filter((x) => x.state === 'READY').map((x) => x.attempt);
    expect(readyAttempts).toEqual(readyAttempts.map((_, i) => i + 1));
    expect(readyAttempts.length).toBeGreaterThanOrEqual(6);
  });
});
