/** The fault-injecting proxy itself, against a real echo server on 127.0.0.1. */
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../src/testing/node.js';

let echo: Server;
const serverSockets = new Set<Socket>();
let proxy: FaultProxy | undefined;
const clients = new Set<Socket>();

beforeEach(async () => {
  echo = createServer((s) => {
    serverSockets.add(s);
    s.on('close', () => serverSockets.delete(s));
    s.write('hello;');
    s.pipe(s);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  for (const c of clients) c.destroy();
  clients.clear();
  await proxy?.close();
  proxy = undefined;
  for (const s of serverSockets) s.destroy();
  await new Promise((resolve) => echo.close(resolve));
});

const echoPort = () => (echo.address() as AddressInfo).port;

/** Connects through the proxy; resolves with what was received and how the socket ended. */
function exchange(port: number, send: string, waitMs = 300): Promise<{ data: string; end: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    clients.add(socket);
    let data = '';
    let end = 'open';
    socket.on('connect', () => socket.write(send));
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('error', (error: NodeJS.ErrnoException) => (end = error.code ?? 'error'));
    socket.on('end', () => (end = end === 'open' ? 'end' : end));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ data, end });
    }, waitMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, end: end === 'open' ? 'closed' : end });
    });
  });
}

describe('fault proxy', () => {
  it('passes traffic through', async () => {
    proxy = await startFaultProxy({ port: echoPort() });
    expect(await exchange(proxy.port, 'ping')).toEqual({ data: 'hello;ping', end: 'open' });
  });

  it('refuses, then listens again on the same port', async () => {
    proxy = await startFaultProxy({ port: echoPort() });
    const port = proxy.port;
    await proxy.setFault({ kind: 'refuse' });
    expect((await exchange(port, 'x')).end).toBe('ECONNREFUSED');
    await proxy.setFault({ kind: 'pass' });
    expect(proxy.port).toBe(port);
    expect((await exchange(port, 'y')).data).toBe('hello;y');
  });

  it('refuses new connections at once while an open one keeps working', async () => {
    proxy = await startFaultProxy({ port: echoPort() });
    const open = connect(proxy.port, '127.0.0.1');
    clients.add(open);
    let received = '';
    open.on('data', (chunk) => (received += chunk.toString()));
    await new Promise((resolve) => open.once('data', resolve)); // 'hello;'
    await proxy.setFault({ kind: 'refuse' }); // resolves although `open` is still open
    expect((await exchange(proxy.port, 'x')).end).toBe('ECONNREFUSED');
    open.write('still');
    for (let i = 0; i < 100 && !received.includes('still'); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toBe('hello;still');
  });

  it('black-holes: accepts and never answers', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'blackhole' });
    expect(await exchange(proxy.port, 'x', 200)).toEqual({ data: '', end: 'open' });
    expect(proxy.accepted).toBe(1);
  });

  it('adds latency in both directions', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'latency', ms: 150 });
    expect((await exchange(proxy.port, 'x', 100)).data).toBe('');
    expect((await exchange(proxy.port, 'x', 600)).data).toBe('hello;x');
  });

  it('resets mid-stream after N bytes from the server', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'reset-after-bytes', bytes: 3 });
    expect(await exchange(proxy.port, 'x')).toEqual({ data: 'hel', end: 'ECONNRESET' });
  });

  it('accepts, then closes after N ms', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'close-after', ms: 50 });
    expect(await exchange(proxy.port, 'x', 1000)).toEqual({ data: '', end: 'end' });
  });

  it('stalls after the handshake: the first server bytes pass, then nothing', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'stall-after-handshake' });
    expect(await exchange(proxy.port, 'more', 300)).toEqual({ data: 'hello;', end: 'open' });
  });

  it('close() leaves no socket or server handle behind', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'latency', ms: 5000 });
    await exchange(proxy.port, 'x', 50);
    await proxy.close();
    proxy = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    const after = process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;
    expect(after).toBeLessThanOrEqual(before);
  });
});
