/** The fault-injecting proxy itself, against a real echo server on 127.0.0.1. */
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAULT_KINDS, type FaultProxy, checkFault, startFaultProxy } from '../../src/testing/node.js';

let echo: Server;
const serverSockets = new Set<Socket>();
let proxy: FaultProxy | undefined;
const clients = new Set<Socket>();

beforeEach(async () => {
  echo = createServer((s) => {
    serverSockets.add(s);
    s.on('close', () => serverSockets.delete(s));
    // A fault that resets the client makes the proxy drop its upstream, which can reset this side.
    s.on('error', () => undefined);
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

/**
 * Connects through the proxy; resolves with what was received and how the socket ended: when it
 * closes, when `until` has been received (and nothing more came for a moment), or after `waitMs`. A
 * check that something arrives waits for it (a loaded machine may take long); only a check that
 * nothing arrives, or that the socket stays open, rests on a short window.
 */
function exchange(
  port: number,
  send: string,
  { waitMs = 5000, until }: { waitMs?: number; until?: string } = {},
): Promise<{ data: string; end: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    clients.add(socket);
    let data = '';
    let end = 'open';
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ data, end });
    };
    let timer = setTimeout(finish, waitMs);
    socket.on('connect', () => socket.write(send));
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data === until) {
        clearTimeout(timer);
        timer = setTimeout(finish, 100);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (end = error.code ?? 'error'));
    socket.on('end', () => (end = end === 'open' ? 'end' : end));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, end: end === 'open' ? 'closed' : end });
    });
  });
}

describe('fault proxy', () => {
  it('passes traffic through', async () => {
    proxy = await startFaultProxy({ port: echoPort() });
    expect(await exchange(proxy.port, 'ping', { until: 'hello;ping' })).toEqual({ data: 'hello;ping', end: 'open' });
  });

  it('refuses, then listens again on the same port', async () => {
    proxy = await startFaultProxy({ port: echoPort() });
    const port = proxy.port;
    await proxy.setFault({ kind: 'refuse' });
    expect((await exchange(port, 'x')).end).toBe('ECONNREFUSED');
    await proxy.setFault({ kind: 'pass' });
    expect(proxy.port).toBe(port);
    expect((await exchange(port, 'y', { until: 'hello;y' })).data).toBe('hello;y');
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
    for (let i = 0; i < 500 && !received.includes('still'); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toBe('hello;still');
  });

  it('black-holes: accepts and never answers', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'blackhole' });
    expect(await exchange(proxy.port, 'x', { waitMs: 200 })).toEqual({ data: '', end: 'open' });
    expect(proxy.accepted).toBe(1);
  });

  it('adds latency in both directions', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'latency', ms: 150 });
    expect((await exchange(proxy.port, 'x', { waitMs: 100 })).data).toBe('');
    expect((await exchange(proxy.port, 'x', { until: 'hello;x' })).data).toBe('hello;x');
  });

  it('resets mid-stream after N bytes from the server', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'reset-after-bytes', bytes: 3 });
    expect(await exchange(proxy.port, 'x')).toEqual({ data: 'hel', end: 'ECONNRESET' });
  });

  it('accepts, forwards nothing, then closes after N ms', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'close-after', ms: 50 });
    expect(await exchange(proxy.port, 'x')).toEqual({ data: '', end: 'end' });
  });

  it('stalls after the handshake: the first server bytes pass, then nothing', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'stall-after-handshake' });
    expect(await exchange(proxy.port, 'more', { until: 'hello;' })).toEqual({ data: 'hello;', end: 'open' });
  });

  it('close() leaves no socket or server handle behind', async () => {
    const before = process
      .getActiveResourcesInfo()
      .filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'latency', ms: 5000 });
    await exchange(proxy.port, 'x', { waitMs: 50 });
    await proxy.close();
    proxy = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    const after = process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;
    expect(after).toBeLessThanOrEqual(before);
  });

  it("a reset after 0 bytes resets at the server's first byte, delivering nothing", async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'reset-after-bytes', bytes: 0 });
    expect(await exchange(proxy.port, 'x')).toEqual({ data: '', end: 'ECONNRESET' });
  });

  it('close-after 3e9 ms does not close after 3 ms (the host would fire a timer past 2^31 - 1 ms at once); it forwards nothing meanwhile', async () => {
    proxy = await startFaultProxy({ port: echoPort() }, { kind: 'close-after', ms: 3e9 });
    expect(await exchange(proxy.port, 'x', { waitMs: 300 })).toEqual({ data: '', end: 'open' });
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await proxy.close();
    proxy = undefined;
    // The long timer goes with close().
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThan(before);
  });
});

describe('fault proxy options are validated like every other option', () => {
  it.each([
    [{ kind: 'teleport' }, RangeError, /option "fault.kind" must be one of "pass", .*got "teleport"/],
    [{}, TypeError, /option "fault.kind" is required/],
    [{ kind: 'latency', ms: NaN }, RangeError, /option "fault.ms".*got NaN/],
    [{ kind: 'latency', ms: -1 }, RangeError, /option "fault.ms".*got -1/],
    [{ kind: 'latency', ms: 2 ** 31 }, RangeError, /option "fault.ms" must be a finite number >= 0 and <= 2147483647/],
    [{ kind: 'latency' }, TypeError, /option "fault.ms".*got undefined/],
    [{ kind: 'close-after', ms: -5 }, RangeError, /option "fault.ms"/],
    [{ kind: 'reset-after-bytes', bytes: 1.5 }, RangeError, /option "fault.bytes" must be an integer/],
    [{ kind: 'reset-after-bytes', bytes: Infinity }, RangeError, /option "fault.bytes"/],
    ['pass', TypeError, /option "fault" must be an object/],
  ])('checkFault(%j) throws a %s naming the option', (fault, type, message) => {
    expect(() => checkFault(fault)).toThrow(type);
    expect(() => checkFault(fault)).toThrow(message);
  });

  it('accepts every kind with sound parameters', () => {
    const params: Record<string, object> = {
      latency: { ms: 0 },
      'close-after': { ms: Infinity },
      'reset-after-bytes': { bytes: 0 },
    };
    for (const kind of FAULT_KINDS) expect(checkFault({ kind, ...params[kind] })).toMatchObject({ kind });
  });

  it('startFaultProxy and setFault reject bad input before anything listens or changes', async () => {
    await expect(startFaultProxy({ port: 0 })).rejects.toThrow(
      /option "port" must be an integer >= 1 and <= 65535, got 0/,
    );
    await expect(startFaultProxy({ port: echoPort(), host: '' })).rejects.toThrow(/option "host"/);
    await expect(startFaultProxy({ port: echoPort() }, { kind: 'latency', ms: NaN })).rejects.toThrow(
      /option "initial.ms"/,
    );
    proxy = await startFaultProxy({ port: echoPort() });
    await expect(proxy.setFault({ kind: 'nope' } as never)).rejects.toThrow(/option "fault.kind"/);
    // The fault in force is unchanged.
    expect(await exchange(proxy.port, 'ping', { until: 'hello;ping' })).toEqual({ data: 'hello;ping', end: 'open' });
  });
});
