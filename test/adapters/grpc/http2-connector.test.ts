import { readFileSync } from 'node:fs';
import {
  createSecureServer,
  createServer as createHttp2Server,
  type Http2Server,
  type Http2SecureServer,
  type ServerHttp2Session,
} from 'node:http2';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import {
  ConnectionManager,
  constantBackoff,
  isConnectionClosedError,
  isConnectTimeoutError,
} from '../../../src/index.js';
import { http2Connector, isGoawayError, isKeepaliveTimeoutError } from '../../../src/adapters/grpc/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';
import { heldSettings } from '../../support/grpc/held-settings.js';
import { record, until } from '../../support/grpc/record.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { listenOnLoopback, portOf } from '../../support/loopback.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const cleanup = cleanupAfterEach();

async function listen<S extends NetServer | Http2Server | Http2SecureServer>(
  server: S,
  sockets: Set<Socket>,
): Promise<S> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await listenOnLoopback(server, sockets, cleanup);
  return server;
}

/** An HTTP/2 server that keeps its sessions so a test can send GOAWAY. */
async function h2Server(): Promise<{ url: string; sessions: ServerHttp2Session[]; sockets: Set<Socket> }> {
  const sessions: ServerHttp2Session[] = [];
  const sockets = new Set<Socket>();
  const server = createHttp2Server();
  server.on('session', (session) => sessions.push(session));
  await listen(server, sockets);
  return { url: `http://127.0.0.1:${String(portOf(server))}`, sessions, sockets };
}

/** A TCP server that accepts and then does `onSocket`. */
async function tcpServer(
  onSocket: (socket: Socket) => void,
): Promise<{ url: string; sockets: Set<Socket>; accepted: () => number }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    socket.on('error', () => undefined);
    // Read (and drop) what the client sends, so that its FIN is seen.
    socket.resume();
    onSocket(socket);
  });
  await listen(server, sockets);
  return { url: `http://127.0.0.1:${String(portOf(server))}`, sockets, accepted: () => accepted };
}

// An empty HTTP/2 SETTINGS frame: length 0, type 0x4, no flags, stream 0.
const SETTINGS_FRAME = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

function manager(url: string, options: Parameters<typeof http2Connector>[1] = {}, minConnectTimeout = 300) {
  const m = new ConnectionManager({
    connector: http2Connector(url, options),
    backoff: constantBackoff(50),
    minConnectTimeout,
    minUptime: 0,
  });
  cleanup.push(() => {
    m.shutdown();
  });
  return m;
}

/** An {@link h2Server} and a {@link manager} connected to it: resolves once READY, with the live session. */
async function readyOnH2Server(options?: Parameters<typeof http2Connector>[1]) {
  const server = await h2Server();
  const m = manager(server.url, options);
  m.connect();
  const ready = await until(m.state$, (s) => s.state === 'READY');
  if (ready.state !== 'READY') throw new Error('unreachable');
  return { server, m, session: ready.connection };
}

describe('http2Connector: established on the server SETTINGS frame', () => {
  it('plaintext: READY with a live session once SETTINGS arrives', async () => {
    const { session } = await readyOnH2Server();
    expect(session.destroyed).toBe(false);
    expect(session.remoteSettings).toBeDefined();
  });

  it('TLS: READY against a secure server with its CA', async () => {
    const sockets = new Set<Socket>();
    const server = await listen(
      createSecureServer({ key: fixture('localhost-key.pem'), cert: fixture('localhost-cert.pem') }),
      sockets,
    );
    const m = manager(`https://localhost:${String(portOf(server))}`, {
      connectOptions: { ca: fixture('localhost-cert.pem') },
    });
    m.connect();
    const ready = await until(m.state$, (s) => s.state === 'READY');
    if (ready.state !== 'READY') throw new Error('unreachable');
    expect(ready.connection.encrypted).toBe(true);
  });

  it('errors that say why: a TLS failure and a refused port are the cause, and in the message', async () => {
    const sockets = new Set<Socket>();
    const server = await listen(
      createSecureServer({ key: fixture('localhost-key.pem'), cert: fixture('localhost-cert.pem') }),
      sockets,
    );
    // The attempts may take as long as they need: on a loaded machine a TLS handshake can outlast 300 ms, and
    // the failure would then be the cut, not the cause this test reads.
    const patient = 20_000;
    // No CA for the self-signed certificate.
    const untrusted = manager(`https://localhost:${String(portOf(server))}`, {}, patient);
    untrusted.connect();
    const tls = await until(untrusted.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(isConnectionClosedError(tls.lastError)).toBe(true);
    expect((tls.lastError as Error).message).toMatch(/^could not connect to localhost:\d+: self.signed certificate/);
    expect(((tls.lastError as Error).cause as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const refusedPort = portOf(closed);
    await new Promise((r) => closed.close(r));
    const refused = manager(`http://127.0.0.1:${String(refusedPort)}`, {}, patient);
    refused.connect();
    const failed = await until(refused.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect((failed.lastError as Error).message).toMatch(/^could not connect to 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    expect(((failed.lastError as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('a TLS attempt cut before its handshake ends quietly: the TLS socket is destroyed, not reset', async () => {
    // A TCP server that never answers the TLS ClientHello: each attempt is cut at its deadline.
    const tcp = await tcpServer(() => undefined);
    const unhandled: unknown[] = [];
    const m = new ConnectionManager({
      connector: http2Connector(tcp.url.replace('http://', 'https://')),
      minConnectTimeout: 200,
      minUptime: 0,
      backoff: constantBackoff(100),
      onUnhandledError: (error) => unhandled.push(error),
    });
    cleanup.push(() => {
      m.shutdown();
    });
    m.connect();
    const cut = await until(m.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(isConnectTimeoutError(cut.lastError)).toBe(true);
    // Resetting a TLS socket throws ERR_INVALID_HANDLE_TYPE from the teardown; nothing may reach here.
    expect(unhandled).toEqual([]);
    // The attempts go on every 300 ms, so a new one may be open at any moment: stop them, then every
    // connection the server saw ends (a bounded wait: a loaded machine can take well over a second).
    m.shutdown();
    await vi.waitFor(
      () => {
        expect([...tcp.sockets].every((socket) => socket.destroyed)).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(unhandled).toEqual([]);
  });

  it('READY comes with SETTINGS, not with the TCP connection: a peer that sends SETTINGS late is READY only then', async () => {
    const peer = heldSettings(SETTINGS_FRAME);
    const tcp = await tcpServer(peer.onSocket);
    const m = new ConnectionManager({ connector: http2Connector(tcp.url), minConnectTimeout: 5000, minUptime: 0 });
    cleanup.push(() => {
      m.shutdown();
    });
    const log = record(m.state$);
    m.connect();
    await peer.expectReadyOnlyOnceSent(m.state$, log.states, 50);
  });

  it('a raw TCP listener that never sends SETTINGS: every attempt is cut at its deadline, READY never comes, sockets are closed', async () => {
    const tcp = await tcpServer(() => undefined);
    const m = manager(tcp.url);
    const log = record(m.state$);
    m.connect();
    const cut = await until(m.state$, (s) => s.state === 'TRANSIENT_FAILURE' && s.attempt >= 2);
    expect(isConnectTimeoutError(cut.lastError)).toBe(true);
    expect(log.states()).not.toContain('READY');
    expect(tcp.accepted()).toBeGreaterThanOrEqual(2);
    await vi.waitFor(() => {
      expect(tcp.sockets.size).toBeLessThanOrEqual(1);
    });
  });

  it('a server that accepts and closes at once: the attempt fails before READY', async () => {
    const tcp = await tcpServer((socket) => socket.destroy());
    const m = manager(tcp.url);
    const log = record(m.state$);
    m.connect();
    const failed = await until(m.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(failed.lastError).toBeInstanceOf(Error);
    expect(log.states()).not.toContain('READY');
  });

  it('GOAWAY ends the connection with a GoawayError and the manager reconnects', async () => {
    const { server, m } = await readyOnH2Server();
    server.sessions[0]?.goaway(0);
    const lost = await until(m.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(isGoawayError(lost.lastError)).toBe(true);
    await until(m.state$, (s) => s.state === 'READY');
    expect(server.sessions.length).toBe(2);
  });

  it('a socket closed by the server ends the connection', async () => {
    const { server, m } = await readyOnH2Server();
    for (const socket of server.sockets) socket.destroy();
    const lost = await until(m.state$, (s) => s.state !== 'READY');
    expect(lost.lastError).toBeInstanceOf(Error);
  });

  it('an unanswered keepalive PING ends the connection with a KeepaliveTimeoutError', async () => {
    // This peer sends SETTINGS and then ignores everything, PINGs included.
    const tcp = await tcpServer((socket) => {
      socket.write(SETTINGS_FRAME);
    });
    const m = manager(tcp.url, {
      keepaliveTime: 50,
      keepaliveTimeout: 100,
      keepaliveWithoutCalls: true,
      minKeepaliveTime: 10,
    });
    m.connect();
    await until(m.state$, (s) => s.state === 'READY');
    const lost = await until(m.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(isKeepaliveTimeoutError(lost.lastError)).toBe(true);
  });

  it('answered keepalive PINGs keep the connection READY', async () => {
    const server = await h2Server();
    const m = manager(server.url, {
      keepaliveTime: 20,
      keepaliveTimeout: 5000,
      keepaliveWithoutCalls: true,
      minKeepaliveTime: 10,
    });
    const log = record(m.state$);
    m.connect();
    await until(m.state$, (s) => s.state === 'READY');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
  });

  it('shutdown destroys the session and leaves no socket open', async () => {
    const { server, m, session } = await readyOnH2Server();
    m.shutdown();
    expect(session.destroyed).toBe(true);
    await vi.waitFor(() => {
      expect(server.sockets.size).toBe(0);
    });
    expect(isConnectionClosedError(new Error())).toBe(false);
  });

  it('rejects a bad authority or option, naming it', () => {
    expect(() => http2Connector('not a url')).toThrow(/absolute http: or https: URL/);
    expect(() => http2Connector('ws://127.0.0.1:1')).toThrow(/http: or https:/);
    expect(() => http2Connector('http://127.0.0.1:1', { keepaliveTimeout: 0 })).toThrow(/keepaliveTimeout/);
    expect(() => http2Connector('http://127.0.0.1:1', { keepaliveTime: Number.NaN })).toThrow(/keepaliveTime/);
    expect(() => http2Connector('http://127.0.0.1:1', { keepaliveWithoutCalls: 1 as never })).toThrow(
      /"keepaliveWithoutCalls" must be a boolean/,
    );
    expect(() => http2Connector('http://127.0.0.1:1', { minKeepaliveTime: -5 })).toThrow(/"minKeepaliveTime".*got -5/);
    expect(() => http2Connector('http://127.0.0.1:1', { log: 'console' as never })).toThrow(/"log" must be a function/);
  });

  it('keepalive (gRFC A8): 1000 ms is raised to the 10 s floor, and PINGs go out only while a stream is open', async () => {
    const pings: number[] = [];
    const clock = createVirtualClock();
    const { server, session } = await readyOnH2Server({ keepaliveTime: 1000, scheduler: clock.scheduler });
    server.sessions[0]!.on('ping', () => pings.push(clock.now()));
    // No stream open: no PING however long the connection stays idle.
    clock.advanceBy(60_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(pings).toEqual([]);
    // A stream opens: the first PING is due 10 s later (not 1 s).
    const stream = session.request({ ':path': '/held' });
    clock.advanceBy(9_999);
    await new Promise((r) => setTimeout(r, 50));
    expect(pings).toEqual([]);
    clock.advanceBy(1);
    await vi.waitFor(() => {
      expect(pings).toEqual([70_000]);
    });
    // The stream ends: the next PING, due at 80 s, is not sent.
    stream.close();
    await new Promise((r) => setTimeout(r, 50));
    clock.advanceBy(30_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(pings).toEqual([70_000]);
  });
});
