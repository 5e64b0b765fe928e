/**
 * happyEyeballs against real servers on 127.0.0.1: a grpc-js server (through `http2Connector`) and a
 * `ws` server, each reached through three addresses — one refusing, one black-holed (fault proxy), one
 * good. Connections are counted on the server side (the proxies' accept counters). Assertions are on
 * order, counts and lower bounds; the only upper bound is half the 20 s connect timeout that a
 * black-holed address would otherwise cost, far from any machine's speed.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { performance } from 'node:perf_hooks';
import { Observable } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { ConnectionManager, type Connector, happyEyeballs } from '../../src/index.js';
import { http2Connector } from '../../src/adapters/grpc/index.js';
import { type Fault, type FaultProxy, startFaultProxy } from '../../src/testing/node.js';

const cleanups: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function grpcServer(): Promise<number> {
  const server = new Server();
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.tryShutdown(resolve);
        server.forceShutdown();
      }),
  );
  return port;
}

async function wsServer(): Promise<number> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(resolve);
      }),
  );
  return (server.address() as { port: number }).port;
}

async function proxy(port: number, fault: Fault): Promise<FaultProxy> {
  const p = await startFaultProxy({ port }, fault);
  cleanups.push(() => p.close());
  return p;
}

/** The README's WebSocket connector, on `ws`. */
function wsConnector(url: string): Connector<WebSocket> {
  return () =>
    new Observable<WebSocket>((subscriber) => {
      const ws = new WebSocket(url);
      ws.on('open', () => {
        subscriber.next(ws);
      });
      ws.on('error', (error) => {
        subscriber.error(error);
      });
      ws.on('close', (code) => {
        if (code === 1000) subscriber.complete();
        else subscriber.error(new Error(`closed: ${String(code)}`));
      });
      return () => {
        ws.terminate();
      };
    });
}

interface Race {
  readonly elapsed: number;
  readonly proxies: Record<'refusing' | 'blackholed' | 'good', FaultProxy>;
}

/**
 * Connects through three addresses in `order`, with the manager's default 20 s connect timeout,
 * and returns how long READY took (wall clock) and the proxies.
 */
async function race<C>(
  target: number,
  order: readonly ('refusing' | 'blackholed' | 'good')[],
  connectorFor: (port: number) => Connector<C>,
  close: (connection: C) => void,
): Promise<Race> {
  const proxies = {
    refusing: await proxy(target, { kind: 'refuse' }),
    blackholed: await proxy(target, { kind: 'blackhole' }),
    good: await proxy(target, { kind: 'pass' }),
  };
  // Attempts in flight per address: subscribed and not yet torn down (the teardown closes the socket).
  const live = { refusing: 0, blackholed: 0, good: 0 };
  const counted = (name: keyof typeof live): Connector<C> => {
    const inner = connectorFor(proxies[name].port);
    return (context) =>
      new Observable<C>((subscriber) => {
        live[name] += 1;
        const subscription = inner(context).subscribe(subscriber);
        return () => {
          live[name] -= 1;
          subscription.unsubscribe();
        };
      });
  };
  const connector = happyEyeballs(order.map((name) => ({ label: name, connector: counted(name) })));
  const manager = new ConnectionManager({ connector });
  cleanups.push(() => {
    manager.shutdown();
    return undefined;
  });
  const started = performance.now();
  manager.connect();
  await manager.waitForStateChange('CONNECTING', { timeout: 15_000 });
  const elapsed = performance.now() - started;
  const snapshot = manager.snapshot;
  expect(snapshot.state).toBe('READY');
  if (snapshot.state === 'READY') expect(snapshot.connection).toBeDefined();
  // The losers are closed at once: only the winner's socket is left.
  expect(live).toEqual({ refusing: 0, blackholed: 0, good: 1 });
  manager.shutdown();
  if (snapshot.state === 'READY') close(snapshot.connection);
  return { elapsed, proxies };
}

const figures: string[] = [];
afterAll(() => {
  if (figures.length > 0) console.log(`happyEyeballs, attemptDelay 250 ms:\n  ${figures.join('\n  ')}`);
});

describe.each([
  {
    name: 'gRPC (grpc-js server, http2Connector)',
    server: grpcServer,
    connectorFor: (port: number) => http2Connector(`http://127.0.0.1:${String(port)}`),
    close: (session: { destroy(): void }) => {
      session.destroy();
    },
  },
  {
    name: 'WebSocket (ws server)',
    server: wsServer,
    connectorFor: (port: number) => wsConnector(`ws://127.0.0.1:${String(port)}/`),
    close: (socket: WebSocket) => {
      socket.terminate();
    },
  },
])('happyEyeballs with $name', ({ name, server, connectorFor, close }) => {
  it('refusing, black-holed, good: the good address wins one stagger after the black hole started', async () => {
    const target = await server();
    const { elapsed, proxies } = await race(
      target,
      ['refusing', 'blackholed', 'good'],
      connectorFor as never,
      close as never,
    );
    figures.push(`${name}, refusing → black hole → good: READY after ${elapsed.toFixed(0)} ms`);
    // The refusal starts the black hole at once; the good address starts one stagger later.
    expect(elapsed).toBeGreaterThanOrEqual(250 - 5);
    expect(elapsed).toBeLessThan(10_000); // a black hole left alone costs the 20 s connect timeout
    expect(proxies.refusing.accepted).toBe(0);
    expect(proxies.blackholed.accepted).toBe(1);
    expect(proxies.good.accepted).toBe(1);
  });

  it('a black-holed first address delays the connection by the stagger only', async () => {
    const target = await server();
    const { elapsed, proxies } = await race(target, ['blackholed', 'good'], connectorFor as never, close as never);
    figures.push(`${name}, black hole → good: READY after ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeGreaterThanOrEqual(250 - 5);
    expect(elapsed).toBeLessThan(10_000);
    expect(proxies.blackholed.accepted).toBe(1);
    expect(proxies.good.accepted).toBe(1);
  });

  it('a refusing first address costs no stagger: the next starts when the refusal arrives', async () => {
    const target = await server();
    const { elapsed, proxies } = await race(target, ['refusing', 'good'], connectorFor as never, close as never);
    figures.push(`${name}, refusing → good: READY after ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(10_000);
    expect(proxies.good.accepted).toBe(1);
    expect(proxies.blackholed.accepted).toBe(0);
  });
});
