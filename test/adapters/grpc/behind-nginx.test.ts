/**
 * The baseline of issue 36: a ManagedChannel through a real nginx (`grpc_pass`) to a grpc-js backend
 * that dies for a while. Without health checking the client only sees its connection to nginx, which
 * stays up, so the channel stays READY while every call fails with nginx's 502. These tests document
 * today's behaviour; health checking is to change the states, not the connections.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ManagedChannel } from '../../../src/adapters/grpc/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';
import { startHealthBackend } from '../../support/grpc/health-backend.js';
import { record } from '../../support/grpc/record.js';
import { createTestClient, echo } from '../../support/grpc/service.js';
import { skipWithoutNginx, startNginxProxy } from '../../support/nginx-proxy.js';

const cleanup = cleanupAfterEach();

const EVERY_MS = 300;
const OUTAGE_MS = 2_000;

interface Outcome {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ok: boolean;
  readonly code: number | undefined;
  readonly details: string;
}

// How the client reports nginx's 502 (an HTML page): grpc-js 1.14 maps the HTTP status to UNAVAILABLE;
// grpc-js 1.10 (the CI run with REDIALER_GRPC_JS) reads the page as a gRPC message and ends the call
// with RESOURCE_EXHAUSTED ("Received message larger than max").
const OLD_GRPC_JS = process.env['REDIALER_GRPC_JS'] === 'grpc-js-1-10';
const BAD_GATEWAY = OLD_GRPC_JS
  ? { code: status.RESOURCE_EXHAUSTED, details: /larger than max/ }
  : { code: status.UNAVAILABLE, details: /502/ };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skipWithoutNginx('the gRPC adapter behind nginx'))('behind nginx, without health checking', () => {
  it(
    'the channel stays READY through a backend outage while calls fail UNAVAILABLE (502), on one connection',
    {
      timeout: 15_000,
    },
    async () => {
      const backend = await startHealthBackend();
      cleanup.push(() => backend.close());
      const proxy = await startNginxProxy({ backendPort: backend.port });
      cleanup.push(() => proxy.close());
      const address = `127.0.0.1:${String(proxy.port)}`;
      const channel = new ManagedChannel(address, insecure, FAST);
      const client = createTestClient(address, insecure, { channelOverride: channel });
      cleanup.push(() => {
        client.close();
      });
      const log = record(channel.state$);
      cleanup.push(log.stop);

      await expect(echo(client, 'first')).resolves.toEqual({ text: 'first' });
      const readyFrom = log.states().length - 1;
      expect(log.states()[readyFrom]).toBe('READY');

      const outcomes: Outcome[] = [];
      const calls: Promise<void>[] = [];
      const call = (): void => {
        const startedAt = Date.now();
        calls.push(
          echo(client, 'tick', undefined, new Date(startedAt + 1_000)).then(
            () => {
              outcomes.push({ startedAt, endedAt: Date.now(), ok: true, code: undefined, details: '' });
            },
            (error: unknown) => {
              const { code, details } = error as { code?: number; details?: string };
              outcomes.push({ startedAt, endedAt: Date.now(), ok: false, code, details: details ?? '' });
            },
          ),
        );
      };
      const ticker = setInterval(call, EVERY_MS);
      cleanup.push(() => {
        clearInterval(ticker);
      });
      call();

      await sleep(3 * EVERY_MS);
      const killedAt = Date.now();
      await backend.kill();
      const killed = Date.now();
      await sleep(OUTAGE_MS);
      const restartAt = Date.now();
      await backend.restart();
      const restarted = Date.now();
      await sleep(4 * EVERY_MS);
      clearInterval(ticker);
      await Promise.all(calls);

      const before = outcomes.filter((o) => o.endedAt < killedAt);
      const during = outcomes.filter((o) => o.startedAt > killed && o.endedAt < restartAt);
      const after = outcomes.filter((o) => o.startedAt > restarted);
      expect(before.length).toBeGreaterThanOrEqual(2);
      expect(before.every((o) => o.ok)).toBe(true);
      expect(during.length).toBeGreaterThanOrEqual(4);
      for (const o of during) {
        expect(o.code, o.details).toBe(BAD_GATEWAY.code);
        expect(o.details).toMatch(BAD_GATEWAY.details);
      }
      expect(after.length).toBeGreaterThanOrEqual(2);
      expect(after.every((o) => o.ok)).toBe(true);

      // Today's behaviour: READY from the first call to the last, through the outage.
      expect(log.states().slice(readyFrom)).toEqual(['READY']);
      expect(channel.manager.snapshot.state).toBe('READY');
      // One connection from the client to nginx; nginx opens one to the backend per call.
      expect(await proxy.accepted()).toBe(1);
      expect(backend.connections()).toBeGreaterThanOrEqual(1 + before.length + after.length);

      const firstFailure = outcomes.find((o) => !o.ok && o.startedAt >= killedAt);
      console.info(
        `behind nginx, without health checking: first failed call ${String(firstFailure === undefined ? NaN : firstFailure.endedAt - killedAt)} ms after kill (the call itself took ${String(firstFailure === undefined ? NaN : firstFailure.endedAt - firstFailure.startedAt)} ms); ` +
          `states ${JSON.stringify(log.states())}; calls ok/failed ${String(outcomes.filter((o) => o.ok).length)}/${String(outcomes.filter((o) => !o.ok).length)}; ` +
          `connections at the proxy ${String(await proxy.accepted())}, at the backend ${String(backend.connections())}`,
      );
    },
  );
});
