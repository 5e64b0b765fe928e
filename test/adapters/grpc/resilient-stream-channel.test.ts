/**
 * A ResilientStream that follows its ManagedChannel (`channel`), against a real grpc-js server on
 * 127.0.0.1: it re-opens on the channel's READY instead of running a second backoff, waits (paused,
 * no attempts) while the channel has no connection, connects an IDLE channel, ends when the channel
 * is closed, and keeps its own backoff for a stream the service itself fails on a READY channel.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { filter, firstValueFrom, lastValueFrom, take, timeout, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { isConnectionClosedError, type ConnectionSnapshot } from '../../../src/index.js';
import { ManagedChannel, ResilientStream, type ResilientStreamOptions } from '../../../src/adapters/grpc/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';
import { onSchedule, record, until, waitsAfterAttempts } from '../../support/grpc/record.js';
import {
  type CountHandler,
  type CountRequest,
  createTestClient,
  startTestServer,
  type TestClient,
  type TestServer,
  type Tick,
  ticker,
} from '../../support/grpc/service.js';

const cleanup = cleanupAfterEach();

async function setup(count: CountHandler): Promise<{
  server: TestServer;
  channel: ManagedChannel;
  client: TestClient;
  requests: number[];
}> {
  const requests: number[] = [];
  const server = await startTestServer({
    count: (call) => {
      requests.push(call.request.from);
      count(call);
    },
  });
  cleanup.push(() => server.close());
  const channel = new ManagedChannel(server.address, insecure, FAST);
  const client = createTestClient(server.address, insecure, { channelOverride: channel });
  cleanup.push(() => {
    client.close();
  });
  return { server, channel, client, requests };
}

function follow(
  client: TestClient,
  channel: ManagedChannel | undefined,
  options: Partial<ResilientStreamOptions<CountRequest, Tick>> = {},
): ResilientStream<CountRequest, Tick> {
  const s = new ResilientStream<CountRequest, Tick>({
    ...FAST,
    ...(channel === undefined ? {} : { channel }),
    open: (request, { metadata }) => client.count(request, metadata),
    request: (last) => ({ from: last === undefined ? 0 : last.seq + 1 }),
    ...options,
  });
  cleanup.push(() => {
    s.close();
  });
  return s;
}

const isReady = (s: ConnectionSnapshot): boolean => s.state === 'READY';

describe('ResilientStream with channel: it follows the ManagedChannel', () => {
  it.each([
    { how: 'crash', stop: (s: TestServer) => s.crash() },
    { how: 'forceShutdown', stop: (s: TestServer) => s.kill() },
  ])(
    'across a server restart ($how): no stream attempt while the channel is down, a re-open at its READY, every message once',
    { timeout: 15_000 },
    async ({ stop }) => {
      const { server, channel, client, requests } = await setup(ticker(40, 10));
      const s = follow(client, channel);
      const streamLog = record(s.state$);
      const channelLog = record(channel.state$);
      cleanup.push(streamLog.stop, channelLog.stop);
      const all = lastValueFrom(s.messages$.pipe(toArray(), timeout(10_000)));
      s.start();
      await firstValueFrom(s.messages$.pipe(take(10), toArray(), timeout(5000)));
      const stopped = streamLog.snapshots.length;
      await stop(server);
      // The stream's loss parks it: it waits for the channel, not for a timer of its own.
      const parked = await until(s.state$, (x) => x.state === 'IDLE' && x.paused === true);
      // Long enough for the channel to fail several attempts (100, 160, 256 … ms).
      await firstValueFrom(
        channel.state$.pipe(
          filter((x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3),
          timeout(5000),
        ),
      );
      expect(streamLog.starts(stopped)).toHaveLength(0);
      await server.restart();
      const channelReady = await until(channel.state$, isReady);
      const messages = await all;

      expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(requests.length).toBe(2);
      expect(requests[1]).toBeGreaterThanOrEqual(10);
      // One re-open, started by the channel's READY (same turn), on the connection it made.
      const reopens = streamLog.starts(stopped);
      expect(reopens).toHaveLength(1);
      expect(reopens[0]!.since - channelReady.since).toBeLessThan(50);
      expect(reopens[0]!.since).toBeGreaterThanOrEqual(parked.since);
      console.info(
        `ResilientStream following its channel (${stopStatus(streamLog.snapshots)}): ` +
          `re-opened ${String(reopens[0]!.since - channelReady.since)} ms after the channel's READY; ` +
          `channel attempts during the outage ${String(channelLog.starts().length - 1)}, stream attempts 0`,
      );
    },
  );

  it('without channel, the same restart leaves the stream on its own backoff, behind the channel', async () => {
    const { server, channel, client } = await setup(ticker(40, 10));
    // The stream's own backoff, as the channel's: the two schedules run side by side.
    const s = follow(client, undefined, {
      open: (request) => client.count(request, new Metadata({ waitForReady: false })),
    });
    const streamLog = record(s.state$);
    cleanup.push(streamLog.stop);
    const all = lastValueFrom(s.messages$.pipe(toArray(), timeout(10_000)));
    s.start();
    await firstValueFrom(s.messages$.pipe(take(10), toArray(), timeout(5000)));
    const stopped = streamLog.snapshots.length;
    await server.crash();
    await firstValueFrom(
      channel.state$.pipe(
        filter((x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3),
        timeout(5000),
      ),
    );
    await server.restart();
    await all;
    // Its opens failed fast while the channel had no connection: attempts of its own, on its own clock.
    expect(streamLog.starts(stopped).length).toBeGreaterThanOrEqual(3);
  });

  it('start() on a lazy channel connects it, and the stream opens on its first READY', async () => {
    const { channel, client, requests } = await setup(ticker(3, 5));
    expect(channel.manager.snapshot.state).toBe('IDLE');
    const s = follow(client, channel);
    const streamLog = record(s.state$);
    cleanup.push(streamLog.stop);
    const all = lastValueFrom(s.messages$.pipe(toArray(), timeout(5000)));
    s.start();
    expect((await all).map((m) => m.seq)).toEqual([0, 1, 2]);
    expect(requests).toEqual([0]);
    // Paused while the channel connected, then one attempt.
    expect(streamLog.starts()).toHaveLength(1);
  });

  it('the channel closed: messages$ errors with a ConnectionClosedError and the stream is over', async () => {
    const { channel, client } = await setup(ticker(1000, 10));
    const s = follow(client, channel);
    const outcome = lastValueFrom(s.messages$.pipe(timeout(5000))).then(
      () => undefined,
      (error: unknown) => error,
    );
    s.start();
    await firstValueFrom(s.messages$.pipe(take(2), toArray(), timeout(5000)));
    channel.close();
    const error = await outcome;
    expect(isConnectionClosedError(error)).toBe(true);
    expect((error as Error).message).toBe("the stream's channel was closed");
    expect(s.manager.snapshot.state).toBe('SHUTDOWN');
  });

  it('a stream the service fails on a READY channel waits on its own backoff: the channel keeps its connection', async () => {
    const { channel, client } = await setup((call) => {
      call.emit('error', { code: status.UNAVAILABLE, details: 'shard moving' });
    });
    const s = follow(client, channel);
    const log = record(s.state$);
    cleanup.push(log.stop);
    s.start();
    await until(s.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
    const starts = log.starts();
    expect(starts.map((x) => x.attempt).slice(0, 3)).toEqual([1, 2, 3]);
    // The first open waited for the channel's first connection; the waits after it are the stream's own.
    expect(onSchedule(waitsAfterAttempts(log.snapshots).slice(1, 3), [160, 256])).toEqual([160, 256]);
    expect(channel.manager.snapshot.state).toBe('READY');
    expect(channel.manager.snapshot.attempt).toBe(1);
  });

  it('close() stops following: nothing is left subscribed to the channel', async () => {
    const { channel, client } = await setup(ticker(1000, 10));
    const s = follow(client, channel);
    s.start();
    await firstValueFrom(s.messages$.pipe(take(1), timeout(5000)));
    s.close();
    const before = s.manager.snapshot;
    channel.manager.idle();
    channel.manager.connect();
    await until(channel.state$, isReady);
    expect(s.manager.snapshot).toBe(before);
    expect(before).toMatchObject({ state: 'SHUTDOWN', reason: 'shutdown' });
  });
});

/** How the stream's first stream ended, for the log line. */
function stopStatus(snapshots: readonly ConnectionSnapshot[]): string {
  const lost = snapshots.find((x) => x.state !== 'READY' && x.lastError !== undefined);
  return lost?.lastError instanceof Error ? lost.lastError.message : 'no error';
}
