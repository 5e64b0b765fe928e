/**
 * redialer/server against real servers on 127.0.0.1: a `ws` server drained with 1012 and per-client
 * hints, admission control of a `ws` server's upgrades and of plain HTTP, and GOAWAY with a hint on
 * HTTP/2. The clients are redialer ReconnectingWebSockets (with `ws` as the WebSocket class) and
 * node:http2 sessions. Connections are counted on the server; no assertion is on speed.
 */
import { once } from 'node:events';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import { type Http2Session, connect as connectHttp2, createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { type ServerOptions, WebSocketServer } from 'ws';
import { ConnectionManager, isRetryAfterError } from '../../../src/index.js';
import { http2Connector } from '../../../src/adapters/grpc/index.js';
import { type Admission, admission, drain, drainHttp2 } from '../../../src/toolkits/server/index.js';
import { ReconnectingWebSocket } from '../../../src/adapters/websocket/index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Resolves once `check` holds, polling every 20 ms; fails after `ms`. */
async function eventually(check: () => boolean, ms = 20_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function listen(server: NetServer): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.close(resolve);
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** A `ws` server with `options`, closed after the test. */
function wsServer(options: ServerOptions): WebSocketServer {
  const wss = new WebSocketServer(options);
  cleanups.push(
    () =>
      new Promise((resolve) => {
        wss.close(resolve);
      }),
  );
  return wss;
}

/** An HTTP server whose upgrades go through `gate` into a `ws` server of their own (closed after the test). */
function gatedWsServer(gate: Admission): { http: Server; wss: WebSocketServer } {
  const http = createServer();
  const wss = wsServer({ noServer: true });
  http.on('upgrade', gate.upgrade(wss));
  return { http, wss };
}

function clients(url: string, n: number): ReconnectingWebSocket[] {
  const sockets = Array.from(
    { length: n },
    (_, i) =>
      // Each client says who it is (?client=i), so that a server can tell first arrivals from retries.
      new ReconnectingWebSocket(`${url}/?client=${String(i)}`, undefined, {
        WebSocket,
        serverHints: 'exact',
        minReconnectionDelay: 100,
        maxReconnectionDelay: 30_000,
        connectionTimeout: 5000,
        pauseWhileOffline: false,
        retryOnVisible: false,
      }),
  );
  cleanups.push(() => {
    for (const s of sockets) s.close();
  });
  return sockets;
}

describe('drain() on a real ws server', () => {
  it('closes every client with 1012 and its own hint; clients with exact hints return no sooner, all of them', async () => {
    const http = createServer();
    const wss = wsServer({ server: http });
    const connectedAt: number[] = [];
    const reasons: string[] = [];
    wss.on('connection', (ws) => {
      connectedAt.push(Date.now());
      ws.on('close', (code, reason) => {
        if (code === 1012) reasons.push(reason.toString());
      });
    });
    const port = await listen(http);
    const sockets = clients(`ws://127.0.0.1:${String(port)}`, 30);
    await eventually(() => sockets.every((s) => s.readyState === s.OPEN), 20_000, 'all open');
    const first = connectedAt.length;
    expect(first).toBe(30);

    const drainedAt = Date.now();
    const report = await drain(wss, { expectedDowntime: 400, capacity: 100 });
    expect(report.clients).toBe(30);
    expect(report.terminated).toBe(0);
    // expectedDowntime + U(0, 1.1 × 30 / 100 s)
    expect(report.hints.min).toBeGreaterThanOrEqual(400);
    expect(report.hints.max).toBeLessThanOrEqual(400 + 330);
    await eventually(() => reasons.length === 30, 10_000, 'all close reasons');
    for (const reason of reasons) expect(reason).toMatch(/^retry-after=\d+ms$/);

    await eventually(() => connectedAt.length === 60, 20_000, 'all back');
    // Nobody came back before the shortest hint.
    expect(Math.min(...connectedAt.slice(first)) - drainedAt).toBeGreaterThanOrEqual(report.hints.min - 5);
  });

  it('rejects bad options by name', async () => {
    const wss = new WebSocketServer({ noServer: true });
    await expect(drain(wss, { expectedDowntime: -1, capacity: 10 })).rejects.toThrow(/option "expectedDowntime"/);
    await expect(drain(wss, { expectedDowntime: 10, capacity: 0 })).rejects.toThrow(/option "capacity"/);
    await expect(drain({} as never, { expectedDowntime: 10, capacity: 10 })).rejects.toThrow(
      /needs a ws WebSocketServer/,
    );
  });
});

describe('admission() on a real ws server', () => {
  it('admits at most `capacity` per second; every refused client gets its slot and all get in', async () => {
    const capacity = 5;
    const gate = admission({ capacity });
    const { http, wss } = gatedWsServer(gate);
    const admittedPerSecond = new Map<number, number>();
    const refusals: string[] = [];
    // When each client first knocked (before the gate sees it): clients that arrive within the same
    // seconds beyond capacity must be refused at first, however slowly a loaded machine starts them.
    const firstKnock = new Map<string, number>();
    http.prependListener('upgrade', (req: IncomingMessage) => {
      const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('client') ?? '';
      if (!firstKnock.has(id)) firstKnock.set(id, Date.now());
    });
    wss.on('connection', () => {
      const second = Math.floor(Date.now() / 1000);
      admittedPerSecond.set(second, (admittedPerSecond.get(second) ?? 0) + 1);
    });
    const port = await listen(http);
    const sockets = clients(`ws://127.0.0.1:${String(port)}`, 20);
    for (const s of sockets) {
      s.addEventListener('close', (event) => {
        if (event.code === 1013) refusals.push(event.reason);
      });
    }
    await eventually(() => sockets.every((s) => s.readyState === s.OPEN), 30_000, 'all admitted');
    expect(gate.counts.admitted).toBe(20);
    // At most `capacity` first arrivals can be let in per second they span (two partial seconds
    // included); every other first arrival was refused at least once.
    const knocks = [...firstKnock.values()];
    const seconds = Math.floor(Math.max(...knocks) / 1000) - Math.floor(Math.min(...knocks) / 1000) + 1;
    expect(firstKnock.size).toBe(20);
    expect(gate.counts.refused).toBeGreaterThanOrEqual(20 - capacity * seconds);
    expect(gate.counts.refused).toBeGreaterThan(0);
    expect(Math.max(...admittedPerSecond.values())).toBeLessThanOrEqual(capacity);
    for (const reason of refusals) expect(reason).toMatch(/^retry-after=\d+ms$/);
  });

  it('answers plain HTTP over capacity with 503 and Retry-After', async () => {
    const gate = admission({ capacity: 2, now: () => 10_500 });
    const http = createServer((req, res) => {
      if (gate.http(req, res)) res.end('ok');
    });
    const port = await listen(http);
    const answers = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await fetch(`http://127.0.0.1:${String(port)}/`);
      answers.push([response.status, response.headers.get('retry-after')]);
      await response.arrayBuffer();
    }
    // Slots 11 000 and 11 500 ms: 0.5 s and 1 s from 10 500, rounded up to whole seconds.
    expect(answers).toEqual([
      [200, null],
      [200, null],
      [503, '1'],
      [503, '1'],
    ]);
  });

  it('can refuse upgrades with 503 instead', async () => {
    const gate = admission({ capacity: 1, refuseUpgrade: 'status-503', now: () => 0 });
    const { http } = gatedWsServer(gate);
    const port = await listen(http);
    const ok = new WebSocket(`ws://127.0.0.1:${String(port)}`);
    await once(ok, 'open');
    ok.close();
    const refused = new WebSocket(`ws://127.0.0.1:${String(port)}`);
    refused.on('error', () => undefined); // ws reports the cut after the 503 as an error
    const [, response] = (await once(refused, 'unexpected-response')) as [
      unknown,
      { statusCode: number; headers: Record<string, string> },
    ];
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    refused.terminate();
  });

  it('rejects a bad capacity by name', () => {
    expect(() => admission({ capacity: 0 })).toThrow(/option "capacity"/);
    expect(() => admission({ capacity: 5, refuseUpgrade: 'drop' as never })).toThrow(/option "refuseUpgrade"/);
  });
});

/** An HTTP/2 server on 127.0.0.1 (ephemeral port) and its live sessions; closed after the test. */
async function http2ServerWithSessions(): Promise<{
  server: ReturnType<typeof createHttp2Server>;
  sessions: Set<Http2Session>;
}> {
  const server = createHttp2Server();
  const sessions = new Set<Http2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  await listen(server);
  cleanups.push(() => {
    for (const s of sessions) s.destroy();
  });
  return { server, sessions };
}

describe('drainHttp2() on a real HTTP/2 server', () => {
  it('sends GOAWAY NO_ERROR with a retry hint in its debug data', async () => {
    const { server, sessions } = await http2ServerWithSessions();
    const client = connectHttp2(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    cleanups.push(() => {
      client.destroy();
    });
    await once(client, 'remoteSettings');
    await eventually(() => sessions.size === 1, 5000, 'the session');
    const goaway = once(client, 'goaway') as Promise<[number, number, Buffer]>;
    const report = drainHttp2(sessions, { expectedDowntime: 1000, capacity: 10, random: () => 0.5 });
    const [code, , data] = await goaway;
    expect(report.clients).toBe(1);
    expect(code).toBe(0);
    expect(data.toString()).toBe('retry-after=1055ms');
  });

  it("redialer's http2Connector reads the hint: the manager waits for it (serverHints exact: exactly)", async () => {
    const { server, sessions } = await http2ServerWithSessions();
    const manager = new ConnectionManager({
      connector: http2Connector(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`),
      serverHints: 'exact',
      minUptime: 0,
    });
    cleanups.push(() => {
      manager.shutdown();
    });
    manager.connect();
    await eventually(() => manager.snapshot.state === 'READY' && sessions.size === 1, 10_000, 'READY');
    drainHttp2(sessions, { expectedDowntime: 60_000, capacity: 10, random: () => 0 });
    await eventually(() => manager.snapshot.state === 'TRANSIENT_FAILURE', 10_000, 'the GOAWAY');
    const snapshot = manager.snapshot as { lastError: unknown; nextAttemptAt: number; since: number };
    expect(isRetryAfterError(snapshot.lastError)).toBe(true);
    expect(snapshot.nextAttemptAt - snapshot.since).toBe(60_000);
  });
});
