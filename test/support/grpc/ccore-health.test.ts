import { status } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { startCCoreServer } from './ccore-server.js';
import { describeCCore, onCleanup } from './ccore-suite.js';
import { HealthClient } from './health-messages.js';

async function serve(
  health = true,
): Promise<{ server: Awaited<ReturnType<typeof startCCoreServer>>; client: HealthClient }> {
  const server = await startCCoreServer({}, { health });
  onCleanup(() => server.kill());
  const client = new HealthClient(server.address);
  onCleanup(() => {
    client.close();
  });
  return { server, client };
}

describeCCore('the C-core test server, grpc.health.v1.Health', () => {
  it('Check answers SERVING for the whole server', async () => {
    const { client } = await serve();
    await expect(client.check('')).resolves.toBe('SERVING');
  });

  it('Watch sends the current status at once and again on each setHealth', async () => {
    const { server, client } = await serve();
    const watch = client.watch('');
    onCleanup(() => {
      watch.cancel();
    });
    expect(await watch.received(1)).toEqual(['SERVING']);
    await server.setHealth('', 'NOT_SERVING');
    expect(await watch.received(2)).toEqual(['SERVING', 'NOT_SERVING']);
    await expect(client.check('')).resolves.toBe('NOT_SERVING');
    await server.setHealth('', 'SERVING');
    expect(await watch.received(3)).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
    expect(server.lines).toContain('HEALTH - NOT_SERVING');
  });

  it('a named service: unknown, then set, then forgotten', async () => {
    const { server, client } = await serve();
    await expect(client.check('redialer.test.Test')).rejects.toMatchObject({ code: status.NOT_FOUND });
    const watch = client.watch('redialer.test.Test');
    onCleanup(() => {
      watch.cancel();
    });
    expect(await watch.received(1)).toEqual(['SERVICE_UNKNOWN']);
    await server.setHealth('redialer.test.Test', 'SERVING');
    expect(await watch.received(2)).toEqual(['SERVICE_UNKNOWN', 'SERVING']);
    await expect(client.check('redialer.test.Test')).resolves.toBe('SERVING');
    await server.setHealth('redialer.test.Test', 'SERVICE_UNKNOWN');
    expect(await watch.received(3)).toEqual(['SERVICE_UNKNOWN', 'SERVING', 'SERVICE_UNKNOWN']);
    await expect(client.check('redialer.test.Test')).rejects.toMatchObject({ code: status.NOT_FOUND });
    // The whole server's status is its own.
    await expect(client.check('')).resolves.toBe('SERVING');
  });

  it('Check on an unknown service is NOT_FOUND; Watch sends SERVICE_UNKNOWN and stays open', async () => {
    const { client } = await serve();
    await expect(client.check('no.such.Service')).rejects.toMatchObject({ code: status.NOT_FOUND });
    const watch = client.watch('no.such.Service');
    onCleanup(() => {
      watch.cancel();
    });
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
