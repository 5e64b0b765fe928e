import { status } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { type CCoreHealthStatus, type CCoreServer, startCCoreServer } from './ccore-server.js';
import { describeCCore, onCleanup } from './ccore-suite.js';
import { HealthClient, type HealthWatch } from './health-messages.js';

async function serve(health = true): Promise<{ server: CCoreServer; client: HealthClient }> {
  const server = await startCCoreServer({}, { health });
  onCleanup(() => server.kill());
  const client = new HealthClient(server.address);
  onCleanup(() => {
    client.close();
  });
  return { server, client };
}

/** A Watch stream on `service`, cancelled after the test. */
function watching(client: HealthClient, service: string): HealthWatch {
  const watch = client.watch(service);
  onCleanup(() => {
    watch.cancel();
  });
  return watch;
}

/**
 * setHealth, then: the open Watch gets exactly the new status next, and Check answers it (NOT_FOUND
 * for a service the server forgot).
 */
async function flip(
  server: CCoreServer,
  client: HealthClient,
  watch: HealthWatch,
  service: string,
  to: CCoreHealthStatus,
): Promise<void> {
  const seen = watch.statuses.length;
  await server.setHealth(service, to);
  expect((await watch.received(seen + 1))[seen]).toBe(to);
  if (to === 'SERVICE_UNKNOWN') await expect(client.check(service)).rejects.toMatchObject({ code: status.NOT_FOUND });
  else await expect(client.check(service)).resolves.toBe(to);
}

describeCCore('the C-core test server, grpc.health.v1.Health', () => {
  it('Check answers SERVING for the whole server', async () => {
    const { client } = await serve();
    await expect(client.check('')).resolves.toBe('SERVING');
  });

  it('Watch sends the current status at once and again on each setHealth', async () => {
    const { server, client } = await serve();
    const watch = watching(client, '');
    expect(await watch.received(1)).toEqual(['SERVING']);
    await flip(server, client, watch, '', 'NOT_SERVING');
    await flip(server, client, watch, '', 'SERVING');
    expect(watch.statuses).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
    expect(server.lines).toContain('HEALTH - NOT_SERVING');
  });

  it('a named service: unknown, then set, then forgotten', async () => {
    const { server, client } = await serve();
    await expect(client.check('redialer.test.Test')).rejects.toMatchObject({ code: status.NOT_FOUND });
    const watch = watching(client, 'redialer.test.Test');
    expect(await watch.received(1)).toEqual(['SERVICE_UNKNOWN']);
    await flip(server, client, watch, 'redialer.test.Test', 'SERVING');
    await flip(server, client, watch, 'redialer.test.Test', 'SERVICE_UNKNOWN');
    expect(watch.statuses).toEqual(['SERVICE_UNKNOWN', 'SERVING', 'SERVICE_UNKNOWN']);
    // The whole server's status is its own.
    await expect(client.check('')).resolves.toBe('SERVING');
  });

  it('Check on an unknown service is NOT_FOUND; Watch sends SERVICE_UNKNOWN and stays open', async () => {
    const { client } = await serve();
    await expect(client.check('no.such.Service')).rejects.toMatchObject({ code: status.NOT_FOUND });
    const watch = watching(client, 'no.such.Service');
    expect(await watch.received(1)).toEqual(['SERVICE_UNKNOWN']);
    // Still open: a later Check on the same connection is answered while the stream holds.
    await expect(client.check('')).resolves.toBe('SERVING');
    expect(watch.error()).toBeUndefined();
  });

  it('with health: false, Check and Watch are UNIMPLEMENTED', async () => {
    const { client } = await serve(false);
    await expect(client.check('')).rejects.toMatchObject({ code: status.UNIMPLEMENTED });
    const watch = client.watch('');
    await expect(watch.received(1)).rejects.toMatchObject({ code: status.UNIMPLEMENTED });
  });
});
