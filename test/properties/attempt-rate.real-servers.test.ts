/**
 * The worst legal configuration against real loopback servers that keep failing, counted on the
 * server side: a ConnectionManager with a 0 ms backoff, minConnectTimeout 0 and minUptime 0 against
 * a TCP server that accepts and closes every connection, and retry() with constantBackoff(0) and no
 * attempt limit against an HTTP server answering 503 with Retry-After: 0. Before the floor on attempt
 * starts, both ran hundreds of attempts per second; now the count in any window of W ms is at most
 * 5 + W / 100. Only an upper bound is asserted, so a slow machine cannot fail it.
 */
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, type Socket, connect, createServer } from 'node:net';
import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConnectionManager, constantBackoff, grpcBackoff } from '../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, maxStartsIn } from '../../src/core/index.js';
import { HttpResponseError, retry } from '../../src/toolkits/retry/index.js';

const RUN_MS = 2000;

/** Milliseconds since `start` on the monotonic clock. */
const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

describe('the worst legal configuration against real servers that keep failing', () => {
  it('ConnectionManager with grpcBackoff({ initialBackoff: 0 }): the server sees at most 5 + W/100 connections', async () => {
    let accepted = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      accepted += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // An attempt is established only once the server sends something, which this one never does.
    const manager = new ConnectionManager<Socket>({
      connector: () =>
        new Observable<Socket>((subscriber) => {
          const socket = connect(port, '127.0.0.1');
          sockets.add(socket);
          socket.on('data', () => {
            subscriber.next(socket);
          });
          socket.on('error', (error) => {
            subscriber.error(error);
          });
          socket.on('close', () => {
            sockets.delete(socket);
            subscriber.error(new Error('closed by the server'));
          });
          return () => socket.destroy();
        }),
      backoff: grpcBackoff({ initialBackoff: 0 }),
      minConnectTimeout: 0,
      minUptime: 0,
    });
    const start = process.hrtime.bigint();
    manager.connect();
    await new Promise((resolve) => setTimeout(resolve, RUN_MS));
    manager.shutdown();
    const elapsed = since(start);
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    // 2 ms for the wall clock's 1 ms steps, by which the scheduler reads time.
    const bound = maxStartsIn(DEFAULT_ATTEMPT_SPACING, elapsed + 2);
    console.log(
      `ConnectionManager, 0 ms backoff: ${String(accepted)} connections in ${elapsed.toFixed(0)} ms (${(accepted / (elapsed / 1000)).toFixed(1)}/s); bound ${String(bound)}`,
    );
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(bound);
    // shutdown() destroyed the last socket; its 'close' event follows within a few turns.
    for (let i = 0; i < 500 && sockets.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sockets.size).toBe(0);
  });

  it('retry() with constantBackoff(0), maxAttempts Infinity, against 503 + Retry-After: 0: at most 5 + W/100 requests', async () => {
    let requests = 0;
    const server = createHttpServer((_req, res) => {
      requests += 1;
      res.writeHead(503, { 'retry-after': '0', connection: 'close' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const controller = new AbortController();
    const start = process.hrtime.bigint();
    const call = retry(
      async ({ signal }) => {
        const response = await fetch(`http://127.0.0.1:${String(port)}/`, { signal });
        await response.body?.cancel();
        throw new HttpResponseError(response);
      },
      { backoff: constantBackoff(0), maxAttempts: Infinity, signal: controller.signal },
    ).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, RUN_MS));
    controller.abort(new Error('done'));
    await call;
    const elapsed = since(start);
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    // 2 ms for the wall clock's 1 ms steps, by which the scheduler reads time.
    const bound = maxStartsIn(DEFAULT_ATTEMPT_SPACING, elapsed + 2);
    console.log(
      `retry(), 503 + Retry-After: 0: ${String(requests)} requests in ${elapsed.toFixed(0)} ms (${(requests / (elapsed / 1000)).toFixed(1)}/s); bound ${String(bound)}`,
    );
    expect(requests).toBeGreaterThan(0);
    expect(requests).toBeLessThanOrEqual(bound);
  });
});
