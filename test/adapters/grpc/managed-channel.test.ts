import { type ChannelOptions, Metadata, status } from '@grpc/grpc-js';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { grpcBackoff, isConnectTimeoutError } from '../../../src/index.js';
import { MAX_DELAY_MS } from '../../../src/core/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';
import { isConnectionFailedError, ManagedChannel, managedChannelFactory } from '../../../src/adapters/grpc/index.js';
import { ipLiteralTarget } from '../../../src/adapters/grpc/grpc-js-workarounds/grpc-channel-connector.js';
import { reconnectBackoff } from '../../../src/adapters/grpc/reconnect-backoff.js';
import { heldSettings } from '../../support/grpc/held-settings.js';
import { onSchedule, record, until, waitsAfterAttempts } from '../../support/grpc/record.js';
import {
  createTestClient,
  echo,
  startTestServer,
  type TestClient,
  type TestServer,
  type Tick,
} from '../../support/grpc/service.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST as fast, insecure } from '../../support/grpc/fast-options.js';
import { listenOnLoopback } from '../../support/loopback.js';

const cleanup = cleanupAfterEach();

function managed(
  address: string,
  options: ConstructorParameters<typeof ManagedChannel>[2] = fast,
): { channel: ManagedChannel; client: TestClient } {
  const channel = new ManagedChannel(address, insecure, options);
  const client = createTestClient(address, insecure, { channelOverride: channel });
  cleanup.push(() => {
    client.close();
  });
  return { channel, client };
}

async function server(options?: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const s = await startTestServer(options);
  cleanup.push(() => s.close());
  return s;
}

/** A server whose count call writes tick 1 and holds the call until `release()` writes tick 2 and ends it. */
async function holdingServer(
  serverOptions?: NonNullable<Parameters<typeof startTestServer>[0]>['serverOptions'],
): Promise<{ s: TestServer; release: () => void }> {
  let held: (() => void) | undefined;
  const s = await server({
    ...(serverOptions === undefined ? {} : { serverOptions }),
    count: (call) => {
      call.write({ seq: 1 });
      held = () => {
        call.write({ seq: 2 });
        call.end();
      };
    },
  });
  return { s, release: () => held?.() };
}

/** A TCP listener that records accepted sockets (and when) and does `onSocket` with each. */
async function tcpListener(
  onSocket: (socket: Socket) => void,
): Promise<{ address: string; accepted: Socket[]; acceptedAt: number[]; closed: () => number }> {
  const accepted: Socket[] = [];
  const acceptedAt: number[] = [];
  let closed = 0;
  const net: NetServer = createServer((socket) => {
    accepted.push(socket);
    acceptedAt.push(Date.now());
    socket.on('close', () => {
      closed += 1;
    });
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await listenOnLoopback(net, accepted, cleanup);
  const address = net.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { address: `127.0.0.1:${String(address.port)}`, accepted, acceptedAt, closed: () => closed };
}

describe('ManagedChannel: existing grpc-js clients over a redialer-managed connection', () => {
  it('runs unary and server-streaming calls through channelOverride and reports READY', async () => {
    const s = await server({
      count: (call) => {
        for (let seq = call.request.from; seq < call.request.from + 3; seq++) call.write({ seq });
        call.end();
      },
    });
    // (A generous cut: the first attempt of the file also loads grpc-js, slow on a loaded machine.)
    const { channel, client } = managed(s.address, { ...fast, minConnectTimeout: 10_000 });
    const log = record(channel.state$);
    expect(channel.manager.snapshot.state).toBe('IDLE');
    await expect(echo(client, 'hello')).resolves.toEqual({ text: 'hello' });
    expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    const ticks: Tick[] = [];
    await new Promise<void>((resolve, reject) => {
      const stream = client.count({ from: 5 });
      stream.on('data', (tick: Tick) => ticks.push(tick));
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    expect(ticks).toEqual([{ seq: 5 }, { seq: 6 }, { seq: 7 }]);
    expect(channel.getConnectivityState(false)).toBe(2); // grpc-js READY
  });

  it('an IP address and port is resolved without DNS, a host name through it: calls work either way', async () => {
    expect(ipLiteralTarget('127.0.0.1:50051')).toBe('ipv4:127.0.0.1:50051');
    expect(ipLiteralTarget('[::1]:50051')).toBe('ipv6:[::1]:50051');
    for (const kept of [
      'localhost:50051',
      'dns:///127.0.0.1:50051',
      'ipv4:127.0.0.1:50051',
      '127.0.0.1',
      '999.0.0.1:50051',
      '[::1]',
      '::1:50051',
      'unix:/tmp/socket',
    ])
      expect(ipLiteralTarget(kept)).toBe(kept);
    const s = await server();
    const port = s.address.slice(s.address.lastIndexOf(':') + 1);
    for (const target of [s.address, `localhost:${port}`]) {
      const { channel, client } = managed(target, { ...fast, minConnectTimeout: 10_000 });
      await expect(echo(client, target)).resolves.toEqual({ text: target });
      expect(channel.getTarget()).toBe(target);
    }
  });

  it('works as a channelFactoryOverride, and client.waitForReady() sees READY', async () => {
    const s = await server();
    const client = createTestClient(s.address, insecure, { channelFactoryOverride: managedChannelFactory(fast) });
    cleanup.push(() => {
      client.close();
    });
    expect(client.getChannel()).toBeInstanceOf(ManagedChannel);
    await new Promise<void>((resolve, reject) => {
      client.waitForReady(Date.now() + 3000, (error) => {
        if (error === undefined) resolve();
        else reject(error);
      });
    });
    const channel = client.getChannel();
    if (!(channel instanceof ManagedChannel)) throw new Error('expected a ManagedChannel');
    expect(channel.manager.snapshot.state).toBe('READY');
  });

  it('server stopped and restarted: READY again at the first attempt after the restart, waits on schedule; a second outage starts again at the initial backoff', async () => {
    const s = await server();
    const { channel, client } = managed(s.address);
    const log = record(channel.state$);
    await echo(client, 'up');

    // First outage: the waits grow 100, 160, 256 … (exact, random pinned).
    await s.kill();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
    const restartedAt = log.snapshots.length;
    await s.restart();
    const ready = await until(channel.state$, (x) => x.state === 'READY');
    const outage1 = waitsAfterAttempts(log.snapshots);
    expect(onSchedule(outage1, [100, 160, 256])).toEqual([100, 160, 256]);
    // No attempt was skipped: READY came from the first attempt that started after the restart (or
    // from one already in flight).
    expect(log.starts(restartedAt).length).toBeLessThanOrEqual(1);
    expect(ready.attempt).toBe(outage1.length + 1);
    await expect(echo(client, 'again')).resolves.toEqual({ text: 'again' });

    // Second outage: READY reset the backoff, so the cycle starts at attempt 1 and 100 ms.
    const before = log.snapshots.length;
    await s.kill();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 2);
    const outage2 = waitsAfterAttempts(log.snapshots.slice(before));
    expect(onSchedule(outage2, [100, 160])).toEqual([100, 160]);
    expect(log.starts(before)[0]?.attempt).toBe(1);
    await s.restart();
    await until(channel.state$, (x) => x.state === 'READY');
    await expect(echo(client, 'third')).resolves.toEqual({ text: 'third' });
  });

  it('a listener that accepts TCP but never sends SETTINGS: each attempt is cut at its deadline, READY never comes', async () => {
    const tcp = await tcpListener(() => undefined);
    const { channel } = managed(tcp.address);
    const log = record(channel.state$);
    channel.manager.connect();
    const cut = await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 2);
    expect(isConnectTimeoutError(cut.lastError)).toBe(true);
    expect(log.states()).not.toContain('READY');
    // Attempts 1-3 are cut at max(deadline, start + 300 ms) = start + 300 ms (their waits are shorter).
    for (const start of log.starts().slice(0, 3)) {
      if (start.state === 'CONNECTING') expect(start.timeoutAt - start.since).toBe(300);
    }
    expect(tcp.accepted.length).toBeGreaterThanOrEqual(2);
    await until(channel.state$, (x) => x.state === 'CONNECTING' && x.attempt >= 3);
    // The cut closes the attempt's socket (grpc-js alone would leave it open).
    await vi.waitFor(() => {
      expect(tcp.closed()).toBeGreaterThanOrEqual(2);
    });
  });

  it('READY comes exactly with the server SETTINGS frame: a raw peer that sends only SETTINGS, late, is READY only then', async () => {
    // An empty HTTP/2 SETTINGS frame (length 0, type 0x4, no flags, stream 0), then the ACK of the
    // client's SETTINGS (flag 0x1), as a server's preface goes.
    const peer = heldSettings(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0]));
    const tcp = await tcpListener(peer.onSocket);
    const { channel } = managed(tcp.address, { ...fast, minConnectTimeout: 5000 });
    const log = record(channel.state$);
    channel.manager.connect();
    await peer.expectReadyOnlyOnceSent(channel.state$, log.states, 100);
  });

  it('a server that accepts and closes at once: attempts fail fast and the waits keep growing', async () => {
    const tcp = await tcpListener((socket) => socket.destroy());
    const { channel } = managed(tcp.address);
    const log = record(channel.state$);
    channel.manager.connect();
    const failed = await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
    expect(isConnectionFailedError(failed.lastError)).toBe(true);
    expect(onSchedule(waitsAfterAttempts(log.snapshots), [100, 160, 256])).toEqual([100, 160, 256]);
    expect(log.states()).not.toContain('READY');
  });

  it('without a connection, calls fail fast with UNAVAILABLE; waitForReady calls proceed once READY', async () => {
    const s = await server();
    await s.kill();
    const { channel, client } = managed(s.address, {
      ...fast,
      backoff: grpcBackoff({ initialBackoff: 100, maxBackoff: 200 }),
    });
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE');
    await expect(echo(client, 'now')).rejects.toMatchObject({ code: status.UNAVAILABLE });
    const waiting = echo(client, 'patient', new Metadata({ waitForReady: true }), new Date(Date.now() + 5000));
    await s.restart();
    await expect(waiting).resolves.toEqual({ text: 'patient' });
  });

  it('a waitForReady call still waiting at its deadline fails with DEADLINE_EXCEEDED', async () => {
    const tcp = await tcpListener(() => undefined);
    const { client } = managed(tcp.address);
    await expect(
      echo(client, 'late', new Metadata({ waitForReady: true }), new Date(Date.now() + 200)),
    ).rejects.toMatchObject({
      code: status.DEADLINE_EXCEEDED,
    });
  });

  it('GOAWAY: a call in flight finishes on the old connection while the channel moves to a new one', async () => {
    // The server rotates connections after 300 ms (GOAWAY) and lets calls in flight finish.
    const { s, release } = await holdingServer({
      'grpc.max_connection_age_ms': 300,
      'grpc.max_connection_age_grace_ms': 5000,
    });
    const { channel, client } = managed(s.address);
    const log = record(channel.state$);
    const ticks: Tick[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const stream = client.count({ from: 1 });
      stream.on('data', (tick: Tick) => {
        ticks.push(tick);
      });
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    await until(channel.state$, (x) => x.state === 'READY');
    const firstConnection = channel.manager.snapshot;
    // After the GOAWAY the manager leaves READY and establishes a new connection.
    await until(channel.state$, (x) => x.state === 'READY' && x !== firstConnection);
    expect(log.states().filter((x) => x === 'READY').length).toBeGreaterThanOrEqual(2);
    release();
    await done;
    expect(ticks).toEqual([{ seq: 1 }, { seq: 2 }]);
    await expect(echo(client, 'new connection')).resolves.toEqual({ text: 'new connection' });
  });

  it('a call in flight on a connection that is lost ends with UNAVAILABLE; new calls use the next connection', async () => {
    const s = await server({
      count: (call) => {
        call.write({ seq: 1 });
      },
    });
    const { channel, client } = managed(s.address);
    const failed = new Promise<unknown>((resolve) => {
      const stream = client.count({ from: 1 });
      stream.on('data', () => {
        void s.crash();
      });
      stream.on('error', resolve);
    });
    // (grpc-js 1.10, the CI run with REDIALER_GRPC_JS, ends such a call with CANCELLED.)
    const lost = process.env['REDIALER_GRPC_JS'] === 'grpc-js-1-10' ? status.CANCELLED : status.UNAVAILABLE;
    expect(await failed).toMatchObject({ code: lost });
    await s.restart();
    await until(channel.state$, (x) => x.state === 'READY');
    await expect(echo(client, 'next')).resolves.toEqual({ text: 'next' });
  });

  it('idle() replaces the connection gracefully: a call in flight finishes on the old one', async () => {
    const { s, release } = await holdingServer();
    const { channel, client } = managed(s.address);
    const ticks: Tick[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const stream = client.count({ from: 1 });
      stream.on('data', (tick: Tick) => {
        ticks.push(tick);
        if (tick.seq === 1) {
          channel.manager.idle();
          // The server answers only after the old connection has been told to close.
          setTimeout(release, 100);
        }
      });
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    await done;
    expect(ticks).toEqual([{ seq: 1 }, { seq: 2 }]);
    expect(channel.manager.snapshot.state).toBe('IDLE');
    await expect(echo(client, 'reconnects')).resolves.toEqual({ text: 'reconnects' });
  });

  it('close() fails waiting calls with UNAVAILABLE and shuts the manager down', async () => {
    const tcp = await tcpListener(() => undefined);
    const { channel, client } = managed(tcp.address);
    const waiting = echo(client, 'never', new Metadata({ waitForReady: true }));
    await until(channel.state$, (x) => x.state === 'CONNECTING');
    channel.close();
    await expect(waiting).rejects.toMatchObject({ code: status.UNAVAILABLE });
    expect(channel.manager.snapshot.state).toBe('SHUTDOWN');
    expect(() => channel.createCall('/x', Infinity, undefined, null, undefined)).toThrow(/shut down/);
  });

  it('a target grpc-js cannot parse shuts the channel down for good, and calls say why', async () => {
    const { channel, client } = managed('', fast);
    await expect(echo(client, 'x')).rejects.toMatchObject({
      code: status.UNAVAILABLE,
      details: expect.stringMatching(/shut down: .+/) as unknown,
    });
    expect(channel.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
  });

  it('runs on the injected scheduler: the attempt cut and a waiting call deadline follow virtual time', async () => {
    const tcp = await tcpListener(() => undefined); // accepts, never answers
    const clock = createVirtualClock(Date.now()); // grpc-js deadlines are wall-clock times
    const start = clock.now();
    const { channel, client } = managed(tcp.address, {
      ...fast,
      minConnectTimeout: 20_000,
      scheduler: clock.scheduler,
    });
    const log = record(channel.state$);
    let outcome: unknown;
    const call = echo(client, 'waits', new Metadata({ waitForReady: true }), new Date(start + 5000)).catch(
      (error: unknown) => {
        outcome = error;
      },
    );
    await until(channel.state$, (x) => x.state === 'CONNECTING');
    await vi.waitFor(() => {
      expect(tcp.accepted.length).toBe(1);
    });
    clock.advanceBy(4999);
    await new Promise((r) => setTimeout(r, 50));
    expect(outcome).toBeUndefined();
    clock.advanceBy(1);
    await call;
    expect(outcome).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    // The attempt is still waiting for SETTINGS until its cut at 20 s of virtual time.
    expect(log.states()).toEqual(['IDLE', 'CONNECTING']);
    clock.advanceBy(14_999);
    expect(log.states()).toEqual(['IDLE', 'CONNECTING']);
    clock.advanceBy(1);
    const cut = log.snapshots.find((x) => x.state === 'TRANSIENT_FAILURE');
    expect(cut?.since).toBe(start + 20_000);
    expect(isConnectTimeoutError(cut?.lastError)).toBe(true);
    await vi.waitFor(() => {
      expect(tcp.closed()).toBe(1); // the cut reset the attempt's socket
    });
  });

  it('a waiting call holds the process open through the injected scheduler: on a virtual clock no host timer is armed for it', async () => {
    const tcp = await tcpListener(() => undefined); // accepts, never answers: the call waits
    const clock = createVirtualClock(Date.now());
    // Host intervals armed from outside grpc-js (whose own versions may arm one per call: 1.10 does).
    const real = globalThis.setInterval;
    const armed: number[] = [];
    const intervals = vi.spyOn(globalThis, 'setInterval').mockImplementation(((
      handler: () => void,
      ms?: number,
      ...rest: unknown[]
    ) => {
      // The first frame outside this test and the spy's own machinery is the code that armed it.
      const caller =
        new Error().stack
          ?.split('\n')
          .slice(1)
          .find((line) => !/tinyspy|@vitest|node_modules[\\/]vitest|managed-channel\.test\.ts/.test(line)) ?? '';
      if (!/node_modules[\\/](@grpc[\\/]grpc-js|grpc-js-1-10)[\\/]/.test(caller)) armed.push(ms ?? 0);
      return real(handler, ms, ...rest);
    }) as typeof setInterval);
    cleanup.push(() => {
      intervals.mockRestore();
    });
    const { channel, client } = managed(tcp.address, {
      ...fast,
      minConnectTimeout: 20_000,
      scheduler: clock.scheduler,
    });
    const idle = clock.pendingTimers();
    const call = echo(client, 'waits', new Metadata({ waitForReady: true }), new Date(clock.now() + 1000)).catch(
      (error: unknown) => error,
    );
    await until(channel.state$, (x) => x.state === 'CONNECTING');
    // Nothing on the host: no host timer of 2^31 - 1 ms was armed to hold the process open…
    expect(armed.filter((ms) => ms === MAX_DELAY_MS)).toEqual([]);
    // …the hold is one more action on the clock, beside the attempt's cut and the call's deadline.
    expect(clock.pendingTimers()).toBe(idle + 3);
    clock.advanceBy(1000);
    await expect(call).resolves.toMatchObject({ code: status.DEADLINE_EXCEEDED });
    // The call ended: its deadline and the hold are gone, the attempt's cut stays.
    expect(clock.pendingTimers()).toBe(idle + 1);
    channel.close();
  });

  it('rejects bad options naming the option', () => {
    expect(() => new ManagedChannel('127.0.0.1:1', insecure, { waitForReady: 'yes' as unknown as boolean })).toThrow(
      /waitForReady/,
    );
    expect(() => new ManagedChannel('127.0.0.1:1', insecure, { minConnectTimeout: -1 })).toThrow(/minConnectTimeout/);
    expect(() => new ManagedChannel('127.0.0.1:1', {} as never)).toThrow(/ChannelCredentials.*an object/);
    expect(() => new ManagedChannel(42 as never, insecure)).toThrow(/target string, got 42/);
  });
});

describe("ManagedChannel: grpc-js's reconnect backoff options are read as redialer's backoff", () => {
  const INITIAL = 'grpc.initial_reconnect_backoff_ms';
  const MAX = 'grpc.max_reconnect_backoff_ms';

  it("a client's grpc.initial/max_reconnect_backoff_ms (through managedChannelFactory) set the schedule of attempts the server sees", async () => {
    const tcp = await tcpListener((socket) => socket.destroy()); // every attempt fails before SETTINGS
    const client = createTestClient(tcp.address, insecure, {
      [INITIAL]: 200,
      [MAX]: 300,
      channelFactoryOverride: managedChannelFactory({ minConnectTimeout: 300, minUptime: 0, random: () => 0.5 }),
    });
    cleanup.push(() => {
      client.close();
    });
    const channel = client.getChannel();
    if (!(channel instanceof ManagedChannel)) throw new Error('expected a ManagedChannel');
    const log = record(channel.state$);
    channel.manager.connect();
    // gRPC's growth from the client's options: 200, then 320 capped at 300 (random pinned: no jitter).
    await vi.waitFor(
      () => {
        expect(log.starts().length).toBeGreaterThanOrEqual(5);
      },
      { timeout: 4000 },
    );
    channel.close();
    expect(onSchedule(waitsAfterAttempts(log.snapshots), [200, 300, 300, 300])).toEqual([200, 300, 300, 300]);
    // At the server: one connection per attempt, the first five spread over at least the four waits.
    await vi.waitFor(() => {
      expect(tcp.accepted.length).toBe(log.starts().length);
    });
    expect(tcp.acceptedAt[4]! - tcp.acceptedAt[0]!).toBeGreaterThanOrEqual(1100 - 50);
  });

  it('they become grpcBackoff({ initialBackoff, maxBackoff }); a cap alone also caps the first wait; none leaves "backoff" as given', () => {
    const mine = grpcBackoff({ initialBackoff: 50 });
    expect(reconnectBackoff(undefined, { [INITIAL]: 200, [MAX]: 300 })).toBe(
      grpcBackoff({ initialBackoff: 200, maxBackoff: 300 }),
    );
    expect(reconnectBackoff(undefined, { [INITIAL]: 200 })).toBe(grpcBackoff({ initialBackoff: 200 }));
    expect(reconnectBackoff(undefined, { [MAX]: 10_000 })).toBe(grpcBackoff({ maxBackoff: 10_000 }));
    expect(reconnectBackoff(undefined, { [MAX]: 300 })).toBe(grpcBackoff({ initialBackoff: 300, maxBackoff: 300 }));
    expect(reconnectBackoff(mine, { 'grpc.keepalive_time_ms': 20_000 })).toBe(mine);
    expect(reconnectBackoff(undefined, {})).toBeUndefined();
  });

  it('both "backoff" and a reconnect backoff channel option: a TypeError that says to give the backoff once', () => {
    const both = () =>
      new ManagedChannel('127.0.0.1:1', insecure, { backoff: grpcBackoff(), channelOptions: { [MAX]: 5000 } });
    expect(both).toThrow(TypeError);
    expect(both).toThrow(
      /"backoff" and also channelOptions\['grpc\.max_reconnect_backoff_ms'\] \(5000\).*"backoff" alone \(for these values, grpcBackoff\(\{ initialBackoff: 1000, maxBackoff: 5000 \}\)\), or the channel options alone/,
    );
    // The interop client's way: the option among the client's options, "backoff" given to the factory.
    expect(() =>
      createTestClient('127.0.0.1:1', insecure, {
        [INITIAL]: 100,
        channelFactoryOverride: managedChannelFactory({ backoff: grpcBackoff() }),
      }),
    ).toThrow(TypeError);
  });

  it.each([
    [{ [INITIAL]: -5 }, RangeError, /grpc\.initial_reconnect_backoff_ms.*got -5/],
    [{ [INITIAL]: 0 }, RangeError, /grpc\.initial_reconnect_backoff_ms.*got 0/],
    [{ [INITIAL]: Number.NaN }, RangeError, /grpc\.initial_reconnect_backoff_ms.*got NaN/],
    [{ [MAX]: 3e9 }, RangeError, /grpc\.max_reconnect_backoff_ms.*got 3000000000/],
    [{ [MAX]: Infinity }, RangeError, /grpc\.max_reconnect_backoff_ms.*got Infinity/],
    [
      { [INITIAL]: 500, [MAX]: 100 },
      RangeError,
      /grpc\.max_reconnect_backoff_ms.*>= .*initial_reconnect_backoff_ms.*\(500\), got 100/,
    ],
    [{ [MAX]: '1000' }, TypeError, /grpc\.max_reconnect_backoff_ms.*got "1000"/],
  ])('a bad value %o is rejected, naming the channel option and the value', (bad, kind, message) => {
    const channelOptions = bad as ChannelOptions;
    expect(() => new ManagedChannel('127.0.0.1:1', insecure, { channelOptions })).toThrow(kind);
    expect(() => new ManagedChannel('127.0.0.1:1', insecure, { channelOptions })).toThrow(message);
  });
});
