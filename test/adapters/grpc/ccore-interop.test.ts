/**
 * ManagedChannel and http2Connector against a real C-core gRPC server (Debian's python3-grpcio,
 * `support/ccore-server.py`) on 127.0.0.1: calls, a server restart, and the server's GOAWAY on a
 * graceful stop. Connections are counted on the wire (a frame-counting proxy) or by the client's
 * `net.client.socket` dials. Skipped, with one printed line, when python3-grpcio is not installed.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { ConnectionManager } from '../../../src/index.js';
import {
  http2Connector,
  isConnectionFailedError,
  isGoawayError,
  ManagedChannel,
} from '../../../src/adapters/grpc/index.js';
import { ccore, describeCCore, onCleanup } from '../../support/grpc/ccore-suite.js';
import { countClientSockets } from '../../support/grpc/client-sockets.js';
import { onSchedule, record, until, waitsAfterAttempts } from '../../support/grpc/record.js';
import { createTestClient, echo, type TestClient, type Tick } from '../../support/grpc/service.js';
import { FAST as FAST_OPTIONS, insecure } from '../../support/grpc/fast-options.js';

// The shared fast options (every wait nominal), with a 2 s connect timeout for the C-core server.
const FAST = { ...FAST_OPTIONS, minConnectTimeout: 2000 };

function managed(address: string, options: ConstructorParameters<typeof ManagedChannel>[2] = FAST) {
  const channel = new ManagedChannel(address, insecure, options);
  const client = createTestClient(address, insecure, { channelOverride: channel });
  onCleanup(() => {
    client.close();
  });
  return { channel, client, log: record(channel.state$) };
}

function collect(client: TestClient, request: object, metadata = new Metadata()) {
  const ticks: number[] = [];
  const stream = client.count(request as { from: number }, metadata);
  const ended = new Promise<{ code: number; at: number }>((resolve) => {
    stream.on('data', (tick: Tick) => ticks.push(tick.seq));
    stream.on('error', (error: { code: number }) => {
      resolve({ code: error.code, at: Date.now() });
    });
    stream.on('end', () => {
      resolve({ code: status.OK, at: Date.now() });
    });
  });
  return { ticks, ended, stream };
}

describeCCore('gRPC interop', () => {
  it('unary and server-streaming calls through a ManagedChannel with a generated (generic) client, on one connection', async () => {
    const { wire } = await ccore();
    const { channel, client, log } = managed(wire.address);
    await expect(echo(client, 'hello C-core')).resolves.toEqual({ text: 'hello C-core' });
    const { ticks, ended } = collect(client, { from: 5, to: 9 });
    await expect(ended).resolves.toMatchObject({ code: status.OK });
    expect(ticks).toEqual([5, 6, 7, 8]);
    await expect(echo(client, 'again')).resolves.toEqual({ text: 'again' });
    expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    channel.close();
    expect(wire.connections()).toBe(1);
    expect(wire.goaways).toEqual([]);
  });

  it('server restart: attempts back off while it is down, READY again after it restarts, and the backoff was reset', async () => {
    const { server } = await ccore();
    const dials = countClientSockets(server.port);
    onCleanup(() => {
      dials.stop();
    });
    const { channel, client, log } = managed(server.address);
    await echo(client, 'up');

    await server.kill();
    const down = await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
    // The port refuses: the error says so.
    expect(isConnectionFailedError(down.lastError)).toBe(true);
    expect((down.lastError as Error).message).toMatch(/ECONNREFUSED/);
    expect(onSchedule(waitsAfterAttempts(log.snapshots), [100, 160])).toEqual([100, 160]);
    await server.restart();
    const ready = await until(channel.state$, (x) => x.state === 'READY' && x.since > down.since, 10_000);
    await expect(echo(client, 'back')).resolves.toEqual({ text: 'back' });

    // Backoff reset proven: the next outage starts again at attempt 1 and the initial 100 ms.
    const before = log.snapshots.length;
    await server.kill();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 2);
    expect(log.starts(before)[0]?.attempt).toBe(1);
    expect(onSchedule(waitsAfterAttempts(log.snapshots.slice(before)), [100, 160])).toEqual([100, 160]);
    expect(ready.attempt).toBeGreaterThanOrEqual(3);
    channel.close();
    // One TCP connection per attempt, the two READY ones included.
    expect(dials.dialled()).toBe(log.starts().length);
  });

  it("server.stop(grace): the server's GOAWAY (NO_ERROR) ends the connection gracefully; a call in flight keeps running meanwhile", async () => {
    const { server, wire } = await ccore();
    const { channel, client, log } = managed(wire.address);
    const held = collect(client, { from: 1, hold: true });
    await until(channel.state$, (x) => x.state === 'READY');
    await expect.poll(() => held.ticks).toEqual([1]);
    const stopped = server.stop(1);
    const lost = await until(channel.state$, (x) => x.state !== 'READY');
    expect(isGoawayError(lost.lastError)).toBe(true);
    expect(lost.lastError).toMatchObject({ errorCode: 0, graceful: true });
    expect((lost.lastError as Error).message).toMatch(/closed the connection gracefully \(GOAWAY NO_ERROR/);
    expect(wire.goaways.length).toBeGreaterThanOrEqual(1);
    expect(wire.goaways.every((g) => g.code === 0)).toBe(true);
    // The call the server had accepted was not cut by the GOAWAY, only at the end of the grace period.
    const end = await held.ended;
    expect(end.at).toBeGreaterThanOrEqual(wire.goaways[0]!.at);
    await stopped;
    expect(log.states()).toContain('TRANSIENT_FAILURE');
  });

  it("http2Connector: READY on C-core's SETTINGS, and its graceful GOAWAY is a GoawayError with code and debug data; on a young connection, a failed attempt", async () => {
    const { server, wire } = await ccore();
    // minUptime far above the connection's life, and no connection before it: no grace credit.
    const manager = new ConnectionManager({
      connector: http2Connector(`http://${wire.address}`),
      ...FAST,
      minUptime: 60_000,
    });
    onCleanup(() => {
      manager.shutdown();
    });
    const log = record(manager.state$);
    manager.connect();
    await until(manager.state$, (x) => x.state === 'READY');
    const stopped = server.stop(1);
    const lost = await until(manager.state$, (x) => x.state !== 'READY');
    expect(lost.lastError).toMatchObject({ name: 'GoawayError', errorCode: 0, graceful: true, enhanceYourCalm: false });
    // A graceful end before minUptime resets the backoff only on the credit a connection that lived
    // earns, and a new manager has none: this one counts as the failed attempt 1, as a refusal would.
    expect(lost).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 1 });
    await stopped;
    manager.shutdown();
    // The first connection, then one per attempt made while the server was stopping (the proxy accepts them).
    expect(wire.connections()).toBeLessThanOrEqual(log.starts().length);
    expect(wire.connections()).toBeGreaterThanOrEqual(log.starts().length - 1); // the last may not have arrived
  });

  it.each(['http2Connector', 'ManagedChannel'])(
    '%s: a connection that lived minUptime and was ended by server.stop(grace) resets the backoff',
    async (adapter) => {
      const { server, wire } = await ccore();
      const options = { ...FAST, minUptime: 300 };
      const manager: Pick<ConnectionManager<unknown>, 'state$' | 'connect' | 'shutdown'> = adapter === 'ManagedChannel'
        ? managed(wire.address, options).channel.manager
        : new ConnectionManager({ connector: http2Connector(`http://${wire.address}`), ...options });
      onCleanup(() => {
        manager.shutdown();
      });
      manager.connect();
      await until(manager.state$, (x) => x.state === 'READY');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const stopped = server.stop(1);
      const lost = await until(manager.state$, (x) => x.state !== 'READY');
      expect(isGoawayError(lost.lastError)).toBe(true);
      expect(lost.lastError).toMatchObject({ errorCode: 0, graceful: true });
      // Lived past minUptime: the backoff resets (attempt 0), and the next attempt is due within one
      // initial backoff of the attempt's start (long past), so at once.
      expect(lost).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0 });
      if (lost.state !== 'TRANSIENT_FAILURE') throw new Error('unreachable');
      expect(lost.nextAttemptAt - lost.since).toBeLessThanOrEqual(100); // FAST's initial backoff
      await stopped;
      manager.shutdown();
      expect(wire.goaways.every((g) => g.code === 0)).toBe(true);
    },
  );
});
