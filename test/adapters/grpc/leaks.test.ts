/**
 * Leak checks for the gRPC adapters on real sockets and timers: after close()/shutdown() of a
 * ManagedChannel, a ResilientStream and an http2Connector manager — READY, mid-attempt or waiting to
 * retry — no timer or TCP handle created since the start remains (`process.getActiveResourcesInfo()`).
 * And, in child processes, an unref'd ManagedChannel lets Node exit by itself while it keeps retrying.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ConnectionManager, grpcBackoff } from '../../../src/index.js';
import { http2Connector, ManagedChannel, ResilientStream } from '../../../src/adapters/grpc/index.js';
import { until } from '../../support/grpc/record.js';
import { type CountRequest, createTestClient, echo, startTestServer, type Tick } from '../../support/grpc/service.js';
import { excessOver, leakCheck, settled } from '../../support/active-resources.js';
import { refusedPort } from '../../support/refused-port.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { fixture, itExitsWhileRetrying, requireDist, runNode } from '../../support/child-process.js';

const insecure = credentials.createInsecure();
const FAST = {
  backoff: grpcBackoff({ initialBackoff: 50, maxBackoff: 200 }),
  minConnectTimeout: 300,
  minUptime: 0,
  random: () => 0.5,
};

const cleanup = cleanupAfterEach();

describe('adapters leave no handle behind', () => {
  it('ManagedChannel: READY with a call done, mid-attempt (no SETTINGS) and waiting to retry (refused), then close()', async () => {
    const server = await startTestServer();
    const { silentPort, refusedPort: refused, before } = await leakCheck(cleanup, () => server.close());

    const ready = new ManagedChannel(server.address, insecure, FAST);
    const client = createTestClient(server.address, insecure, { channelOverride: ready });
    await expect(echo(client, 'x')).resolves.toEqual({ text: 'x' });
    const attempting = new ManagedChannel(`127.0.0.1:${String(silentPort)}`, insecure, FAST);
    attempting.manager.connect();
    const waiting = new ManagedChannel(`127.0.0.1:${String(refused)}`, insecure, FAST);
    waiting.manager.connect();
    await until(waiting.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(attempting.manager.snapshot.state).toBe('CONNECTING');

    client.close(); // closes its ManagedChannel
    attempting.close();
    waiting.close();
    expect(await excessOver(before)).toEqual({});
  });

  it('ResilientStream over a ManagedChannel: close() mid-stream cancels the call and leaves nothing', async () => {
    let serverTimer: ReturnType<typeof setInterval> | undefined;
    const server = await startTestServer({
      count: (call) => {
        let seq = call.request.from;
        serverTimer = setInterval(() => call.write({ seq: seq++ }), 5);
        call.on('cancelled', () => {
          clearInterval(serverTimer);
        });
      },
    });
    cleanup.push(() => server.close());
    const before = await settled();
    const channel = new ManagedChannel(server.address, insecure, FAST);
    const client = createTestClient(server.address, insecure, { channelOverride: channel });
    const stream = new ResilientStream<CountRequest, Tick>({
      ...FAST,
      open: (request) => client.count(request, new Metadata({ waitForReady: true })),
      request: (last) => ({ from: last === undefined ? 0 : last.seq + 1 }),
    });
    const seen: number[] = [];
    let firstMessage: () => void = () => undefined;
    const flowing = new Promise<void>((r) => {
      firstMessage = r;
    });
    const completed = new Promise<void>((r) => {
      stream.messages$.subscribe({
        next: (t) => {
          seen.push(t.seq);
          firstMessage();
        },
        complete: r,
      });
    });
    stream.start();
    await flowing;
    stream.close();
    await completed;
    client.close();
    expect(seen.length).toBeGreaterThan(0);
    expect(await excessOver(before)).toEqual({});
    clearInterval(serverTimer);
  });

  it('http2Connector manager: READY with keepalive PINGs armed, then shutdown()', async () => {
    const server = await startTestServer();
    const { silentPort, before } = await leakCheck(cleanup, () => server.close());
    const ready = new ConnectionManager({
      connector: http2Connector(`http://${server.address}`, {
        keepaliveTime: 50,
        keepaliveWithoutCalls: true,
        minKeepaliveTime: 10,
      }),
      ...FAST,
    });
    const attempting = new ConnectionManager({
      connector: http2Connector(`http://127.0.0.1:${String(silentPort)}`),
      ...FAST,
    });
    ready.connect();
    attempting.connect();
    await until(ready.state$, (s) => s.state === 'READY');
    await new Promise((r) => setTimeout(r, 120)); // a keepalive PING or two
    expect(ready.snapshot.state).toBe('READY');
    ready.shutdown();
    attempting.shutdown();
    expect(await excessOver(before)).toEqual({});
  });
});

describe("unref'd adapters let Node exit by itself (child processes, against dist/)", () => {
  itExitsWhileRetrying('ManagedChannel with unref: true', 'unref-grpc-exit.mjs');

  it("a ManagedChannel waiting out its backoff holds no socket of the attempt that failed (the attempt's error stays)", async () => {
    requireDist('dist/adapters/grpc/index.js');
    const port = await refusedPort();
    const { stdout } = await runNode(['--expose-gc', fixture('failed-attempt-retention.mjs'), String(port)], 15_000);
    expect(stdout).toBe('collected TRANSIENT_FAILURE ECONNREFUSED');
  });

  it('the check can fail: the same ManagedChannel without unref keeps Node alive until killed', async () => {
    const port = await refusedPort();
    const outcome = await runNode([fixture('unref-grpc-exit.mjs'), String(port), 'keep-ref'], 1500).then(
      () => 'exited',
      (error: unknown) => ((error as { killed?: boolean }).killed === true ? 'killed' : String(error)),
    );
    expect(outcome).toBe('killed');
  });
});
