/**
 * ReconnectingEventSource through the fault proxy (redialer/testing/node) in front of a real SSE
 * server on 127.0.0.1: connections reset in the middle of an event, slow bytes (latency each way),
 * and a path that stalls after the response headers. Every event is delivered once and in order, no
 * part of a cut event is dispatched, and the idle timeout finds the stall.
 */
import { describe, expect, it, vi } from 'vitest';
import { grpcBackoff } from '../../../src/index.js';
import { isIdleTimeoutError, ReconnectingEventSource } from '../../../src/adapters/sse/index.js';
import { startFaultProxy, type FaultProxy } from '../../../src/testing/node.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { type SseServer, startSseServer } from '../../support/sse-server.js';

const cleanup = cleanupAfterEach();

const FAST = {
  backoff: grpcBackoff({ initialBackoff: 50, maxBackoff: 400 }),
  minUptime: 0,
  minConnectTimeout: 2000,
  random: () => 0.5,
};

async function behindProxy(): Promise<{ server: SseServer; proxy: FaultProxy; url: string }> {
  const server = await startSseServer();
  cleanup.push(() => server.close());
  const proxy = await startFaultProxy({ port: server.port });
  cleanup.push(() => proxy.close());
  return { server, proxy, url: `http://127.0.0.1:${String(proxy.port)}/events` };
}

function collect(url: string, options: ConstructorParameters<typeof ReconnectingEventSource>[1] = {}) {
  const source = new ReconnectingEventSource(url, { ...FAST, ...options });
  cleanup.push(() => {
    source.close();
  });
  const data: string[] = [];
  const errors: unknown[] = [];
  source.onmessage = (event) => {
    data.push(event.data);
  };
  source.state$.subscribe((s) => {
    if (s.state === 'TRANSIENT_FAILURE') errors.push(s.lastError);
  });
  return { source, data, errors };
}

const published = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `event-${String(i + 1)}-${'x'.repeat(i % 7)}`);

describe('ReconnectingEventSource through the fault proxy', () => {
  it('connections reset in the middle of an event: each event once, in order, none cut short', async () => {
    const { server, proxy, url } = await behindProxy();
    const all = published(80);
    for (const text of all) server.publish(text);
    // 700 bytes of each response: its headers and some events, then RST inside the next one.
    await proxy.setFault({ kind: 'reset-after-bytes', bytes: 700 });
    const { data } = collect(url);
    await vi.waitFor(
      () => {
        expect(data.length).toBeGreaterThanOrEqual(all.length);
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(data).toEqual(all);
    const requests = server.requests();
    // Each new connection resumed right after the last event delivered before the cut.
    expect(requests.length).toBeGreaterThan(2);
    for (const request of requests.slice(1)) expect(request.lastEventId).toMatch(/^\d+$/);
    console.info(
      `SSE through reset-after-bytes 700: ${String(all.length)} events delivered once in order over ${String(requests.length)} connections`,
    );
  }, 20_000);

  it('slow bytes (50 ms each way): everything arrives, in order, on one connection', async () => {
    const { server, proxy, url } = await behindProxy();
    await proxy.setFault({ kind: 'latency', ms: 50 });
    const { data, source } = collect(url);
    await vi.waitFor(
      () => {
        expect(source.readyState).toBe(source.OPEN);
      },
      { timeout: 5000 },
    );
    const all = published(30);
    for (const text of all) server.publish(text);
    await vi.waitFor(
      () => {
        expect(data).toHaveLength(all.length);
      },
      { timeout: 5000, interval: 20 },
    );
    expect(data).toEqual(all);
    expect(server.requests()).toHaveLength(1);
  });

  it('a path that stalls after the headers: idleTimeout ends the attempt, and the stream resumes once it passes', async () => {
    const { server, proxy, url } = await behindProxy();
    server.publish('before');
    await proxy.setFault({ kind: 'stall-after-handshake' });
    const { data, errors } = collect(url, { idleTimeout: 400 });
    await vi.waitFor(
      () => {
        expect(errors.some(isIdleTimeoutError)).toBe(true);
      },
      { timeout: 5000, interval: 20 },
    );
    await proxy.setFault({ kind: 'pass' });
    server.publish('after');
    await vi.waitFor(
      () => {
        expect(data).toEqual(['before', 'after']);
      },
      { timeout: 5000, interval: 20 },
    );
  });
});
