import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from './cleanup.js';
import { canConnect } from './loopback.js';
import { skipWithoutNginx, startNginxProxy } from './nginx-proxy.js';
import { refusedPort } from './refused-port.js';

const cleanup = cleanupAfterEach();

describe.skipIf(skipWithoutNginx('the nginx proxy support'))('startNginxProxy', () => {
  it('counts the client connections nginx accepts, none of its own', { timeout: 10_000 }, async () => {
    const proxy = await startNginxProxy({ backendPort: await refusedPort() });
    cleanup.push(() => proxy.close());
    expect(await proxy.accepted()).toBe(0);
    expect(await proxy.active()).toBe(0);
    expect(await canConnect(proxy.port)).toBe(true);
    expect(await canConnect(proxy.port)).toBe(true);
    // nginx counts a connection when its worker accepts it: poll briefly rather than guess a delay.
    await expect.poll(() => proxy.accepted(), { timeout: 2_000 }).toBe(2);
    expect(await proxy.accepted()).toBe(2);
  });

  it('close() stops nginx: its port refuses, and a second close() is a no-op', { timeout: 10_000 }, async () => {
    const proxy = await startNginxProxy({ backendPort: await refusedPort(), upstreamKeepalive: 4 });
    await proxy.close();
    await proxy.close();
    expect(await canConnect(proxy.port)).toBe(false);
  });
});
