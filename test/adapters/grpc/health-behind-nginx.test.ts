/**
 * Health checking (gRFC A17) behind a real nginx (`grpc_pass`) in front of a grpc-js backend running
 * the official `grpc-health-check` service: the client's connection is to nginx, so only the Watch
 * stream, which nginx passes through to the backend, can tell the client that the backend is gone.
 * Counted at both ends: health checking changes the states, never the connections to nginx.
 */
import type { ClientHttp2Session } from 'node:http2';
import { describe, expect, it } from 'vitest';
import { http2Connector, ManagedChannel } from '../../../src/adapters/grpc/index.js';
import { status } from '@grpc/grpc-js';
import { ConnectionManager, type ConnectionSnapshot, connectionStatus, isNotServingError } from '../../../src/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';
import { startHealthBackend } from '../../support/grpc/health-backend.js';
import { record, until } from '../../support/grpc/record.js';
import { createTestClient, echo } from '../../support/grpc/service.js';
import { skipWithoutNginx, startNginxProxy } from '../../support/nginx-proxy.js';

const cleanup = cleanupAfterEach();

const OUTAGE_MS = 2_000;
// How the client reports nginx's 502 page: grpc-js 1.10 (the CI run with REDIALER_GRPC_JS) reads it
// as a message frame and says RESOURCE_EXHAUSTED; newer grpc-js maps the HTTP status to UNAVAILABLE.
const BAD_GATEWAY = process.env['REDIALER_GRPC_JS'] === 'grpc-js-1-10' ? status.RESOURCE_EXHAUSTED : status.UNAVAILABLE;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const notServing = (s: ConnectionSnapshot): boolean => s.state === 'TRANSIENT_FAILURE' && s.connected === true;

async function backendBehindNginx(readTimeout?: number) {
  const backend = await startHealthBackend();
  cleanup.push(() => backend.close());
  const proxy = await startNginxProxy({
    backendPort: backend.port,
    ...(readTimeout === undefined ? {} : { readTimeout }),
  });
  cleanup.push(() => proxy.close());
  return { backend, proxy, address: `127.0.0.1:${String(proxy.port)}` };
}

describe.skipIf(skipWithoutNginx('health checking behind nginx'))('health checking behind nginx', () => {
  it(
    'ManagedChannel: the backend dies, the state leaves READY on the same connection, and comes back',
    { timeout: 20_000 },
    async () => {
      const { backend, proxy, address } = await backendBehindNginx();
      const channel = new ManagedChannel(address, insecure, { ...FAST, healthCheck: { serviceName: '' } });
      const client = createTestClient(address, insecure, { channelOverride: channel });
      cleanup.push(() => {
        client.close();
      });
      const log = record(channel.state$);
      cleanup.push(log.stop);

      await expect(echo(client, 'first')).resolves.toEqual({ text: 'first' });
      expect(channel.manager.snapshot.state).toBe('READY');

      const killedAt = Date.now();
      await backend.kill();
      const down = await until(channel.state$, notServing, 5_000);
      expect(isNotServingError(down.lastError)).toBe(true);
      // A call without waitForReady fails at once, saying why.
      const failed: unknown = await echo(client, 'during').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((failed as { details?: string } | undefined)?.details).toMatch(/^Not serving: /);
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - killedAt)));

      const restartedAt = Date.now();
      await backend.restart();
      const up = await until(channel.state$, (s) => s.state === 'READY', 5_000);
      await expect(echo(client, 'after')).resolves.toEqual({ text: 'after' });

      // READY -> TRANSIENT_FAILURE (connected) -> READY: no CONNECTING, no new connection to nginx.
      expect(log.starts()).toHaveLength(1);
      expect(log.states().slice(log.states().indexOf('READY'))).toEqual(['READY', 'TRANSIENT_FAILURE', 'READY']);
      expect(await proxy.accepted()).toBe(1);
      console.info(
        `ManagedChannel behind nginx with health checking: left READY ${String(down.since - killedAt)} ms after the backend died, ` +
          `READY ${String(up.since - restartedAt)} ms after it returned (Watch retried on the channel's backoff, 100 ms ×1.6); ` +
          `connections at the proxy ${String(await proxy.accepted())}, at the backend ${String(backend.connections())}; ` +
          `lastError while down: ${(down.lastError as Error).message}`,
      );
    },
  );

  it('http2Connector: the same through a ConnectionManager, on one session', { timeout: 20_000 }, async () => {
    const { backend, proxy, address } = await backendBehindNginx();
    const manager = new ConnectionManager<ClientHttp2Session>({
      ...FAST,
      connector: http2Connector(`http://${address}`, { healthCheck: { serviceName: '' } }),
    });
    cleanup.push(() => {
      manager.shutdown();
    });
    const log = record(manager.state$);
    cleanup.push(log.stop);
    manager.connect();
    const ready = await until(manager.state$, (s) => s.state === 'READY', 5_000);

    const killedAt = Date.now();
    await backend.kill();
    const down = await until(manager.state$, notServing, 5_000);
    if (down.state !== 'TRANSIENT_FAILURE') throw new Error('unreachable');
    expect(down.connection).toBe(ready.state === 'READY' ? ready.connection : undefined);
    expect(down.nextAttemptAt).toBe(Infinity);
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - killedAt)));
    const restartedAt = Date.now();
    await backend.restart();
    const up = await until(manager.state$, (s) => s.state === 'READY', 5_000);

    expect(log.starts()).toHaveLength(1);
    expect(await proxy.accepted()).toBe(1);
    console.info(
      `http2Connector behind nginx with health checking: left READY ${String(down.since - killedAt)} ms after the backend died, ` +
        `READY ${String(up.since - restartedAt)} ms after it returned; connections at the proxy ${String(await proxy.accepted())}`,
    );
  });

  it(
    'nginx ends the idle Watch stream (grpc_read_timeout 1 s): re-opened, the state stays READY, one connection',
    { timeout: 20_000 },
    async () => {
      const { backend, proxy, address } = await backendBehindNginx(1);
      const channel = new ManagedChannel(address, insecure, { ...FAST, healthCheck: { serviceName: '' } });
      cleanup.push(() => {
        channel.close();
      });
      const log = record(channel.state$);
      cleanup.push(log.stop);
      channel.manager.connect();
      await until(channel.state$, (s) => s.state === 'READY', 5_000);
      const backendBefore = backend.connections();
      await sleep(3_500);
      expect(log.states().slice(log.states().indexOf('READY'))).toEqual(['READY']);
      expect(await proxy.accepted()).toBe(1);
      // nginx opens a backend connection per stream: each re-opened Watch is one.
      expect(backend.connections() - backendBefore).toBeGreaterThanOrEqual(2);
      console.info(
        `Watch cut by nginx every 1 s for 3.5 s: states ${JSON.stringify(log.states())}, ` +
          `Watch streams re-opened ${String(backend.connections() - backendBefore)}, connections at the proxy ${String(await proxy.accepted())}`,
      );
    },
  );

  it(
    'the backend reports NOT_SERVING, then SERVING: through nginx, on the same connection',
    { timeout: 20_000 },
    async () => {
      const { backend, proxy, address } = await backendBehindNginx();
      const channel = new ManagedChannel(address, insecure, { ...FAST, healthCheck: { serviceName: 'echo.Echo' } });
      cleanup.push(() => {
        channel.close();
      });
      backend.setStatus('echo.Echo', 'SERVING');
      channel.manager.connect();
      await until(channel.state$, (s) => s.state === 'READY', 5_000);
      const flippedAt = Date.now();
      backend.setStatus('echo.Echo', 'NOT_SERVING');
      const down = await until(channel.state$, notServing, 5_000);
      expect(down.lastError).toMatchObject({ status: 'NOT_SERVING', service: 'echo.Echo' });
      expect((down.lastError as Error).message).toBe('the server reports NOT_SERVING for "echo.Echo"');
      const backAt = Date.now();
      backend.setStatus('echo.Echo', 'SERVING');
      const up = await until(channel.state$, (s) => s.state === 'READY', 5_000);
      expect(await proxy.accepted()).toBe(1);
      console.info(
        `grpc-health-check behind nginx: NOT_SERVING seen after ${String(down.since - flippedAt)} ms, SERVING after ${String(up.since - backAt)} ms`,
      );
    },
  );
});

describe.skipIf(skipWithoutNginx('the degraded signal behind nginx'))('degradedAfter behind nginx', () => {
  it(
    'calls failing 502 on a READY connection make the status unavailable; the first success ends it',
    { timeout: 20_000 },
    async () => {
      const { backend, proxy, address } = await backendBehindNginx();
      const channel = new ManagedChannel(address, insecure, { ...FAST, degradedAfter: 3 });
      const client = createTestClient(address, insecure, { channelOverride: channel });
      cleanup.push(() => {
        client.close();
      });
      const phases: string[] = [];
      const subscription = connectionStatus(channel.state$, { degraded: channel.degraded$, graceMs: 0 }).subscribe(
        (status) => phases.push(status.phase),
      );
      cleanup.push(() => {
        subscription.unsubscribe();
      });
      const reasons: unknown[] = [];
      const watching = channel.degraded$.subscribe((reason) => reasons.push(reason));
      cleanup.push(() => {
        watching.unsubscribe();
      });
      const settle = (text: string): Promise<unknown> =>
        echo(client, text).then(
          () => 'ok',
          (error: unknown) => (error as { code?: number }).code,
        );

      expect(await settle('first')).toBe('ok');
      await backend.kill();
      expect(await settle('a')).toBe(BAD_GATEWAY);
      expect(await settle('b')).toBe(BAD_GATEWAY);
      expect(phases.at(-1)).toBe('connected');
      expect(await settle('c')).toBe(BAD_GATEWAY);
      expect(phases.at(-1)).toBe('unavailable');
      expect(isNotServingError(reasons.at(-1))).toBe(true);
      expect((reasons.at(-1) as Error).message).toMatch(
        /3 calls in a row on a READY connection failed, the last with "(.*502.*|Received message larger than max.*)"/,
      );
      await backend.restart();
      expect(await settle('back')).toBe('ok');
      expect(phases.at(-1)).toBe('connected');
      expect(reasons.at(-1)).toBeUndefined();
      // The state itself never left READY: only the signal moved, on one connection to nginx.
      expect(channel.manager.snapshot.state).toBe('READY');
      expect(await proxy.accepted()).toBe(1);
      expect(phases.filter((phase, i) => phase !== phases[i - 1])).toEqual([
        'connecting',
        'connected',
        'unavailable',
        'connected',
      ]);
    },
  );

  it('degradedAfter must be a whole number of at least 1', () => {
    for (const bad of [0, 1.5, -1, '3', Number.NaN]) {
      expect(() => new ManagedChannel('127.0.0.1:1', insecure, { degradedAfter: bad as number })).toThrow(
        /option "degradedAfter" must be a whole number of calls, at least 1, got/,
      );
    }
  });
});
