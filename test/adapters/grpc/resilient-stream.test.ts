import { credentials, Metadata, status } from '@grpc/grpc-js';
import { firstValueFrom, lastValueFrom, take, timeout, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { grpcBackoff } from '../../../src/index.js';
import { isStreamStatusError, ManagedChannel, ResilientStream } from '../../../src/adapters/grpc/index.js';
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
import { cleanupAfterEach } from '../../support/cleanup.js';

const insecure = credentials.createInsecure();
const fast = {
  backoff: grpcBackoff({ initialBackoff: 100, maxBackoff: 1000 }),
  minConnectTimeout: 300,
  random: () => 0.5,
};

const cleanup = cleanupAfterEach();

async function setup(count: CountHandler): Promise<{ server: TestServer; client: TestClient; requests: number[] }> {
  const requests: number[] = [];
  const server = await startTestServer({
    count: (call) => {
      requests.push(call.request.from);
      count(call);
    },
  });
  cleanup.push(() => server.close());
  const channel = new ManagedChannel(server.address, insecure, { ...fast, minUptime: 0 });
  const client = createTestClient(server.address, insecure, { channelOverride: channel });
  cleanup.push(() => {
    client.close();
  });
  return { server, client, requests };
}

function stream(
  client: TestClient,
  options: Partial<ConstructorParameters<typeof ResilientStream<CountRequest, Tick>>[0]> = {},
) {
  const s = new ResilientStream<CountRequest, Tick>({
    ...fast,
    open: (request) => client.count(request, new Metadata({ waitForReady: false })),
    request: (last) => ({ from: last === undefined ? 0 : last.seq + 1 }),
    ...options,
  });
  cleanup.push(() => {
    s.close();
  });
  return s;
}

describe('ResilientStream: a server stream kept alive and resumed from a cursor', () => {
  it.each([
    // grpc-js 1.10 ends the calls of a dropped connection with CANCELLED ("Call cancelled"), later
    // versions with UNAVAILABLE: both are the connection's end, and both resume with the defaults.
    { how: 'crash (connections dropped)', stop: (s: TestServer) => s.crash() },
    // grpc-js's forceShutdown resets each stream with RST_STREAM(CANCEL): the client sees CANCELLED.
    { how: 'forceShutdown (streams reset)', stop: (s: TestServer) => s.kill() },
  ])(
    'across a server restart ($how), every message arrives exactly once when the server replays from the cursor',
    async ({ stop }) => {
      const { server, client, requests } = await setup(ticker(30, 10));
      const s = stream(client);
      const log = record(s.state$);
      const all = lastValueFrom(s.messages$.pipe(toArray(), timeout(8000)));
      s.start();
      await firstValueFrom(s.messages$.pipe(take(10), toArray(), timeout(5000)));
      await stop(server);
      await until(s.state$, (x) => x.state === 'TRANSIENT_FAILURE');
      await server.restart();
      const messages = await all;
      expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(requests[0]).toBe(0);
      expect(requests.length).toBeGreaterThanOrEqual(2);
      // The stream re-opened from the cursor: right after the last message seen before the stop.
      expect(requests.at(-1)).toBeGreaterThanOrEqual(10);
      expect(log.states().filter((x) => x === 'READY').length).toBeGreaterThanOrEqual(2);
      // The server ended the last stream with OK: the resilient stream is over.
      expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'shutdown' });
    },
  );

  it('a CANCELLED the client caused ends the stream: it is not re-opened', async () => {
    const { client, requests } = await setup(ticker(30, 10));
    const s = stream(client);
    const outcome = lastValueFrom(s.messages$.pipe(timeout(5000))).then(
      () => undefined,
      (error: unknown) => error,
    );
    s.start();
    await firstValueFrom(s.messages$.pipe(take(3), toArray(), timeout(5000)));
    const ready = s.manager.snapshot;
    if (ready.state !== 'READY') throw new Error(`expected READY, got ${ready.state}`);
    ready.connection.cancel();
    expect(await outcome).toMatchObject({ code: status.CANCELLED, details: 'Cancelled on client' });
    expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(requests).toEqual([0]);
  });

  it('a CANCELLED the server chose (in its status, not a reset) is not in retryOn: it ends the stream', async () => {
    const { client, requests } = await setup((call) => {
      call.emit('error', { code: status.CANCELLED, details: 'watch revoked' });
    });
    const s = stream(client);
    const outcome = lastValueFrom(s.messages$.pipe(timeout(5000))).then(
      () => undefined,
      (error: unknown) => error,
    );
    s.start();
    expect(await outcome).toMatchObject({ code: status.CANCELLED, details: 'watch revoked' });
    expect(requests).toEqual([0]);
  });

  it('opens ask to wait for READY through the metadata they are given, unless waitForReady is false', async () => {
    const { client } = await setup(ticker(1, 1));
    const seen: (boolean | undefined)[] = [];
    for (const waitForReady of [undefined, false]) {
      const s = new ResilientStream<CountRequest, Tick>({
        ...fast,
        ...(waitForReady === undefined ? {} : { waitForReady }),
        open: (request, { metadata }) => {
          seen.push(metadata.getOptions().waitForReady);
          return client.count(request, metadata);
        },
        request: () => ({ from: 0 }),
      });
      cleanup.push(() => {
        s.close();
      });
      const done = lastValueFrom(s.messages$.pipe(toArray(), timeout(5000)));
      s.start();
      expect((await done).map((m) => m.seq)).toEqual([0]);
    }
    expect(seen).toEqual([true, false]);
  });

  it('a permanent status ends it: messages$ errors with the status and the stream is not re-opened', async () => {
    const { client, requests } = await setup((call) => {
      call.emit('error', { code: status.NOT_FOUND, details: 'no such watch' });
    });
    const s = stream(client);
    const outcome = lastValueFrom(s.messages$.pipe(timeout(5000))).then(
      () => undefined,
      (error: unknown) => error,
    );
    s.start();
    const error = await outcome;
    expect(isStreamStatusError(error)).toBe(true);
    expect(error).toMatchObject({ code: status.NOT_FOUND, details: 'no such watch' });
    expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(requests).toEqual([0]);
  });

  it('a stream that proves healthy (a message) resets the backoff; one that fails at once lets it grow', async () => {
    let healthy = true;
    const { client } = await setup((call) => {
      if (healthy) call.write({ seq: call.request.from });
      call.emit('error', { code: status.UNAVAILABLE, details: 'try again' });
    });
    const s = stream(client);
    const log = record(s.state$);
    s.start();
    // Healthy streams: every re-open is attempt 1 of a fresh cycle.
    await until(s.state$, (x) => x.state === 'READY' && log.states().filter((y) => y === 'READY').length >= 3);
    expect(log.starts().map((x) => x.attempt)).toEqual([1, 1, 1]);
    // Failing streams (no headers, no message): attempts and waits grow as the protocol says.
    healthy = false;
    const from = log.snapshots.length;
    await until(s.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
    expect(
      log
        .starts(from)
        .map((x) => x.attempt)
        .slice(0, 3),
    ).toEqual([1, 2, 3]);
    expect(onSchedule(waitsAfterAttempts(log.snapshots.slice(from)), [100, 160, 256])).toEqual([100, 160, 256]);
  });

  it('response headers alone prove a stream healthy: READY before any message', async () => {
    const { client } = await setup((call) => {
      call.sendMetadata(new Metadata());
    });
    const s = stream(client);
    const log = record(s.state$);
    s.start();
    await until(s.state$, (x) => x.state === 'READY');
    expect(s.last).toBeUndefined();
    expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
  });

  it('with OK in retryOn, a stream the server ends normally is re-opened from the cursor', async () => {
    const { client, requests } = await setup((call) => {
      for (let seq = call.request.from; seq < call.request.from + 3; seq++) call.write({ seq });
      call.end();
    });
    const s = stream(client, { retryOn: [status.UNAVAILABLE, status.OK] });
    const first = firstValueFrom(s.messages$.pipe(take(9), toArray(), timeout(5000)));
    s.start();
    expect((await first).map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(requests.slice(0, 3)).toEqual([0, 3, 6]);
    s.close();
    expect(s.manager.snapshot.state).toBe('SHUTDOWN');
  });

  it('bidi: a duplex call written to in open() is resumed from the cursor too', async () => {
    const { client } = await setup(() => undefined);
    const s = new ResilientStream<CountRequest, Tick>({
      ...fast,
      open: (request) => {
        const call = client.chat();
        call.write(request);
        return call;
      },
      request: (last) => ({ from: last === undefined ? 0 : last.seq + 1 }),
    });
    cleanup.push(() => {
      s.close();
    });
    const all = lastValueFrom(s.messages$.pipe(toArray(), timeout(5000)));
    s.start();
    // The first stream sends 0-4 then fails UNAVAILABLE; the second resumes at 5 and ends with OK.
    expect((await all).map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('rejects bad options naming the option', () => {
    const open = (): never => {
      throw new Error('not called');
    };
    const request = (): CountRequest => ({ from: 0 });
    expect(() => new ResilientStream({ request } as never)).toThrow(/"open"/);
    expect(() => new ResilientStream({ open } as never)).toThrow(/"request"/);
    expect(() => new ResilientStream({ open, request, retryOn: [99] as never })).toThrow(/retryOn/);
    expect(() => new ResilientStream({ open, request, minUptime: -1 })).toThrow(/minUptime/);
    expect(() => new ResilientStream({ open, request, waitForReady: 'yes' as never })).toThrow(/"waitForReady"/);
    expect(() => new ResilientStream({ open, request, channel: {} as never })).toThrow(
      /option "channel" must be a ManagedChannel/,
    );
  });
});
