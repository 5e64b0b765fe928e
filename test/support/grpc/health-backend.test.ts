import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../cleanup.js';
import { insecure } from './fast-options.js';
import { type HealthBackend, startHealthBackend } from './health-backend.js';
import { HealthClient } from './health-messages.js';
import { createTestClient, echo, type TestClient } from './service.js';

const cleanup = cleanupAfterEach();

/** A channel of its own (no subchannel shared with other clients), quick to reconnect. */
const OWN_CHANNEL = {
  'grpc.use_local_subchannel_pool': 1,
  'grpc.initial_reconnect_backoff_ms': 50,
  'grpc.max_reconnect_backoff_ms': 100,
};

async function backend(): Promise<HealthBackend> {
  const b = await startHealthBackend();
  cleanup.push(() => b.close());
  return b;
}

function client(address: string): TestClient {
  const c = createTestClient(address, insecure, OWN_CHANNEL);
  cleanup.push(() => {
    c.close();
  });
  return c;
}

function healthClient(address: string): HealthClient {
  const c = new HealthClient(address);
  cleanup.push(() => {
    c.close();
  });
  return c;
}

/** Echo until one succeeds (the channel reconnecting), within `ms`. */
async function echoUntilServed(c: TestClient, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await echo(c, 'again', undefined, new Date(Date.now() + 1_000));
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('the grpc-js health backend', () => {
  it('Watch flips SERVING → NOT_SERVING → SERVING with setStatus (grpc-health-check)', async () => {
    const b = await backend();
    const health = healthClient(b.address);
    const watch = health.watch('');
    cleanup.push(() => {
      watch.cancel();
    });
    expect(await watch.received(1)).toEqual(['SERVING']);
    b.setStatus('', 'NOT_SERVING');
    expect(await watch.received(2)).toEqual(['SERVING', 'NOT_SERVING']);
    await expect(health.check('')).resolves.toBe('NOT_SERVING');
    b.setStatus('', 'SERVING');
    expect(await watch.received(3)).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
    await expect(health.check('no.such.Service')).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it('kill() makes calls fail UNAVAILABLE; restart() serves again on the same port', async () => {
    const b = await backend();
    const c = client(b.address);
    await expect(echo(c, 'before')).resolves.toEqual({ text: 'before' });
    await b.kill();
    await expect(echo(c, 'during')).rejects.toMatchObject({ code: status.UNAVAILABLE });
    expect(b.open()).toBe(0);
    await b.restart();
    const fresh = client(`127.0.0.1:${String(b.port)}`);
    await expect(echo(fresh, 'after')).resolves.toEqual({ text: 'after' });
  });

  it('connections() counts 1 for one client channel, 2 once it reconnected after kill/restart', async () => {
    const b = await backend();
    const c = client(b.address);
    for (const text of ['a', 'b', 'c']) await expect(echo(c, text)).resolves.toEqual({ text });
    expect(b.connections()).toBe(1);
    expect(b.open()).toBe(1);
    await b.kill();
    await b.restart();
    await echoUntilServed(c);
    expect(b.connections()).toBe(2);
    expect(b.open()).toBe(1);
  });
});
