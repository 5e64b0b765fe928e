/**
 * Each fault of the fault proxy between a real grpc-js client (on a ManagedChannel, a ResilientStream
 * or an http2Connector manager) and a real grpc-js server on 127.0.0.1, and a real flapping server
 * measured against the backoff schedule. Short backoffs and minConnectTimeout; assertions are on
 * order, counts and lower bounds, never on speed.
 */
import { Metadata, status } from '@grpc/grpc-js';
import type { Observable } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import {
  type ConnectionSnapshot,
  ConnectionManager,
  isConnectionClosedError,
  isConnectTimeoutError,
} from '../../../src/index.js';
import {
  http2Connector,
  isConnectionFailedError,
  isKeepaliveTimeoutError,
  ManagedChannel,
  type ManagedChannelOptions,
  ResilientStream,
} from '../../../src/adapters/grpc/index.js';
import { countClientSockets } from '../../support/grpc/client-sockets.js';
import { onSchedule, record, until, waitsAfterAttempts } from '../../support/grpc/record.js';
import {
  type CountRequest,
  createTestClient,
  echo,
  startFlappingServer,
  startTestServer,
  type TestServer,
  type Tick,
  ticker,
} from '../../support/grpc/service.js';
import { type Fault, type FaultProxy, startFaultProxy } from '../../../src/testing/fault-proxy.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';

const cleanup = cleanupAfterEach();

async function server(options?: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const s = await startTestServer(options);
  cleanup.push(() => s.close());
  return s;
}

/** A test server behind a fault proxy that starts with `fault`: the proxy, which the client dials. */
async function serverBehind(fault: Fault, options?: Parameters<typeof startTestServer>[0]): Promise<FaultProxy> {
  const s = await server(options);
  const p = await startFaultProxy({ port: s.port }, fault);
  cleanup.push(() => p.close());
  return p;
}

// grpc-js's own subchannel backoff shortened to FAST's (100 ms, capped at 1 s): a reconnect outside the
// manager's schedule (grpc-js's timer outliving its attempt) would show within STRAY_WAIT. A ManagedChannel
// reads these options as its backoff: the same policy as FAST's, so managed() passes no "backoff".
const GRPC_JS_FAST_RETRY = { 'grpc.initial_reconnect_backoff_ms': 100, 'grpc.max_reconnect_backoff_ms': 1000 };
const STRAY_WAIT = 300;

/** What the server side of the connections counted, where it can tell: connections accepted, and open now. */
interface ServerSide {
  readonly accepted?: () => number;
  readonly open?: () => number;
}

/** A fault proxy's counts, as the server side. */
const atProxy = (proxy: FaultProxy): ServerSide => ({ accepted: () => proxy.accepted, open: () => proxy.open });

/**
 * Records `state$` and counts the TCP connections dialled to `port` (client side, `net.client.socket`)
 * for its attempts. `stopAndCount(server)` runs `stop` (close or shut down what made the attempts),
 * waits STRAY_WAIT and asserts one connection per attempt — the last one may have been cut before it
 * connected — as many accepted by the server side (`server.accepted`, the proxy's count) as dialled,
 * and none left open.
 */
function connectionsPerAttempt<C>(port: number, state$: Observable<ConnectionSnapshot<C>>, stop: () => void) {
  const log = record(state$);
  const dials = countClientSockets(port);
  cleanup.push(() => {
    dials.stop();
  });
  const stopAndCount = async ({ accepted, open }: ServerSide = {}): Promise<void> => {
    stop();
    await new Promise((r) => setTimeout(r, STRAY_WAIT));
    const attempts = log.starts().length;
    expect(dials.dialled()).toBeLessThanOrEqual(attempts);
    expect(dials.dialled()).toBeGreaterThanOrEqual(attempts - 1);
    if (accepted !== undefined) expect(accepted()).toBe(dials.dialled());
    await vi.waitFor(() => {
      expect(dials.open(), 'client sockets open').toBe(0);
      if (open !== undefined) expect(open(), 'server sockets open').toBe(0);
    });
  };
  return { log, stopAndCount };
}

function managed(port: number, options: ManagedChannelOptions = FAST) {
  const address = `127.0.0.1:${String(port)}`;
  const { backoff, ...rest } = options;
  if (backoff !== FAST.backoff) throw new Error("managed() runs on FAST's backoff, given as GRPC_JS_FAST_RETRY");
  const channel = new ManagedChannel(address, insecure, {
    ...rest,
    channelOptions: { ...GRPC_JS_FAST_RETRY, ...options.channelOptions },
  });
  const client = createTestClient(address, insecure, { channelOverride: channel });
  cleanup.push(() => {
    client.close();
  });
  const { log, stopAndCount } = connectionsPerAttempt(port, channel.state$, () => {
    channel.close();
  });
  return { channel, client, log, closeAndCount: stopAndCount };
}

/** A ConnectionManager on an http2Connector to `port`, on FAST's policy, with its connections counted. */
function http2Manager(port: number, options?: Parameters<typeof http2Connector>[1]) {
  const manager = new ConnectionManager({
    connector: http2Connector(`http://127.0.0.1:${String(port)}`, options),
    ...FAST,
  });
  cleanup.push(() => {
    manager.shutdown();
  });
  const { log, stopAndCount } = connectionsPerAttempt(port, manager.state$, () => {
    manager.shutdown();
  });
  return { manager, log, shutdownAndCount: stopAndCount };
}

const connecting = <C>(log: readonly ConnectionSnapshot<C>[]) => log.filter((x) => x.state === 'CONNECTING');

describe('gRPC through the fault proxy', () => {
  it('refuse: attempts fail at once on the backoff schedule and calls fail fast; READY once the port listens again', async () => {
    const proxy = await serverBehind({ kind: 'refuse' });
    const { channel, client, log, closeAndCount } = managed(proxy.port);
    channel.manager.connect();
    const failed = await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 4);
    expect(isConnectionFailedError(failed.lastError)).toBe(true);
    expect(onSchedule(waitsAfterAttempts(log.snapshots), [100, 160, 256])).toEqual([100, 160, 256]);
    await expect(echo(client, 'now')).rejects.toMatchObject({ code: status.UNAVAILABLE });
    const patient = echo(client, 'patient', new Metadata({ waitForReady: true }), new Date(Date.now() + 5000));
    await proxy.setFault({ kind: 'pass' });
    await expect(patient).resolves.toEqual({ text: 'patient' });
    expect(log.states()).toContain('READY');
    // Refused dials never reach the server; the one that passed is the READY connection.
    expect(proxy.accepted).toBe(1);
    await closeAndCount({ open: () => proxy.open });
  });

  it('black hole (TCP and the client preface pass, SETTINGS never arrives): each attempt is cut at max(deadline, minConnectTimeout)', async () => {
    const proxy = await serverBehind({ kind: 'blackhole' });
    const { channel, client, log, closeAndCount } = managed(proxy.port);
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'CONNECTING' && x.attempt >= 5);
    const starts = connecting(log.snapshots);
    const failures = log.snapshots.filter((x) => x.state === 'TRANSIENT_FAILURE');
    expect(failures.every((x) => isConnectTimeoutError(x.lastError))).toBe(true);
    // Deadlines 100, 160, 256, 409.6 ms after each start: cut at the larger of that and 300 ms, never sooner.
    [300, 300, 300, 409.6].forEach((cut, i) => {
      const start = starts[i];
      expect(start?.state === 'CONNECTING' && start.timeoutAt - start.since).toBeCloseTo(cut, 3);
    });
    failures.forEach((f, i) => {
      expect(f.since - starts[i]!.since).toBeGreaterThanOrEqual(300);
    });
    expect(log.states()).not.toContain('READY');
    // The attempts' connections reach the proxy; on a loaded machine the accept of the latest one can
    // trail the attempt's start (and a 300 ms attempt can be cut before grpc-js dials), so wait for it.
    await vi.waitFor(
      () => {
        expect(proxy.accepted).toBeGreaterThanOrEqual(4);
      },
      { timeout: 10_000, interval: 20 },
    );
    // A waitForReady call waiting through it all ends at its own deadline.
    await expect(
      echo(client, 'late', new Metadata({ waitForReady: true }), new Date(Date.now() + 200)),
    ).rejects.toMatchObject({
      code: status.DEADLINE_EXCEEDED,
    });
    await closeAndCount(atProxy(proxy));
  });

  it('black hole, http2Connector: ConnectTimeoutError at max(deadline, minConnectTimeout), READY never', async () => {
    const proxy = await serverBehind({ kind: 'blackhole' });
    const { manager, log, shutdownAndCount } = http2Manager(proxy.port);
    manager.connect();
    const cut = await until(manager.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 2);
    expect(isConnectTimeoutError(cut.lastError)).toBe(true);
    const [first, second] = connecting(log.snapshots);
    const failures = log.snapshots.filter((x) => x.state === 'TRANSIENT_FAILURE');
    expect(failures[0]!.since - first!.since).toBeGreaterThanOrEqual(300);
    expect(failures[1]!.since - second!.since).toBeGreaterThanOrEqual(300);
    expect(log.states()).not.toContain('READY');
    await shutdownAndCount(atProxy(proxy));
  });

  it('latency (100 ms each way): READY only once SETTINGS has crossed, then stays READY; calls succeed', async () => {
    const proxy = await serverBehind({ kind: 'latency', ms: 100 });
    const { channel, client, log, closeAndCount } = managed(proxy.port);
    await expect(echo(client, 'slow')).resolves.toEqual({ text: 'slow' });
    await expect(echo(client, 'again')).resolves.toEqual({ text: 'again' });
    const [start] = connecting(log.snapshots);
    const ready = log.snapshots.find((x) => x.state === 'READY')!;
    expect(ready.since - start!.since).toBeGreaterThanOrEqual(100);
    expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    expect(channel.manager.snapshot.state).toBe('READY');
    await closeAndCount(atProxy(proxy));
  });

  it('reset mid-stream: the channel reconnects and a ResilientStream resumes from its cursor; every tick exactly once, in order', async () => {
    const proxy = await serverBehind({ kind: 'reset-after-bytes', bytes: 600 }, { count: ticker(30, 5) });
    const { channel, client, log, closeAndCount } = managed(proxy.port);
    // After the first reset the network heals.
    channel.state$.subscribe((x) => {
      if (x.state === 'TRANSIENT_FAILURE') void proxy.setFault({ kind: 'pass' });
    });
    const stream = new ResilientStream<CountRequest, Tick>({
      ...FAST,
      open: (request) => client.count(request, new Metadata({ waitForReady: true })),
      request: (last) => ({ from: last === undefined ? 0 : last.seq + 1 }),
    });
    cleanup.push(() => {
      stream.close();
    });
    const ticks: number[] = [];
    const done = new Promise<void>((resolve, reject) => {
      stream.messages$.subscribe({ next: (t) => ticks.push(t.seq), complete: resolve, error: reject });
    });
    stream.start();
    await done;
    expect(ticks).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // The first connection lost (a slow first attempt on a loaded machine may have been cut before it).
    const firstReady = log.snapshots.findIndex((x) => x.state === 'READY');
    const lost = log.snapshots
      .slice(firstReady)
      .find((x) => x.state === 'TRANSIENT_FAILURE' || (x.state === 'IDLE' && x.lastError !== undefined));
    expect(isConnectionClosedError(lost?.lastError)).toBe(true);
    expect(log.snapshots.filter((x) => x.state === 'READY')).toHaveLength(2);
    expect(proxy.accepted).toBe(log.starts().length); // one connection per attempt
    stream.close();
    await closeAndCount(atProxy(proxy));
  });

  it('accept, then close after 50 ms without forwarding: no attempt reaches READY, the backoff keeps growing', async () => {
    const proxy = await serverBehind({ kind: 'close-after', ms: 50 });
    const { channel, log, closeAndCount } = managed(proxy.port);
    channel.manager.connect();
    const failed = await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 4);
    expect(isConnectionFailedError(failed.lastError)).toBe(true);
    expect(connecting(log.snapshots).map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
    expect(onSchedule(waitsAfterAttempts(log.snapshots), [100, 160, 256])).toEqual([100, 160, 256]);
    expect(log.states()).not.toContain('READY');
    // (The proxy's side of a closed-after connection stops reading, so only the client's count applies.)
    await closeAndCount({ accepted: () => proxy.accepted });
  });

  // With grpc-js 1.10 (the CI run with REDIALER_GRPC_JS), a ManagedChannel is READY at the server's ACK of
  // its SETTINGS (grpc-js 1.10 turns Node's remoteSettings event off), which this fault never lets through.
  it.skipIf(process.env['REDIALER_GRPC_JS'] === 'grpc-js-1-10')(
    'stall after SETTINGS: READY, then silence; calls end at their deadline and keepalive declares the connection dead, so the channel reconnects',
    async () => {
      const proxy = await serverBehind(
        { kind: 'stall-after-handshake' },
        {
          serverOptions: {
            'grpc.keepalive_permit_without_calls': 1,
            'grpc.http2.min_ping_interval_without_data_ms': 10,
            'grpc.http2.max_ping_strikes': 0,
          },
        },
      );
      const { channel, client, log, closeAndCount } = managed(proxy.port, {
        ...FAST,
        minKeepaliveTime: 100, // the server allows it (gRFC A8's floor is 10 s)
        channelOptions: {
          'grpc.keepalive_time_ms': 400,
          'grpc.keepalive_timeout_ms': 400,
          'grpc.keepalive_permit_without_calls': 1,
        },
      });
      channel.manager.connect();
      await until(channel.state$, (x) => x.state === 'READY'); // the server's SETTINGS was the last thing to pass
      await expect(echo(client, 'into the stall', undefined, new Date(Date.now() + 150))).rejects.toMatchObject({
        code: status.DEADLINE_EXCEEDED,
      });
      await proxy.setFault({ kind: 'pass' });
      const lost = await until(channel.state$, (x) => x.state !== 'READY');
      expect(isConnectionClosedError(lost.lastError)).toBe(true);
      await until(channel.state$, (x) => x.state === 'READY');
      await expect(echo(client, 'healed')).resolves.toEqual({ text: 'healed' });
      expect(log.snapshots.filter((x) => x.state === 'READY')).toHaveLength(2);
      await closeAndCount(atProxy(proxy));
    },
  );

  it('stall after SETTINGS, http2Connector: an unanswered keepalive PING ends the connection and the manager reconnects', async () => {
    const proxy = await serverBehind({ kind: 'stall-after-handshake' });
    const { manager, shutdownAndCount } = http2Manager(proxy.port, {
      keepaliveTime: 100,
      keepaliveTimeout: 100,
      keepaliveWithoutCalls: true,
      minKeepaliveTime: 10,
    });
    manager.connect();
    await until(manager.state$, (x) => x.state === 'READY');
    await proxy.setFault({ kind: 'pass' });
    const lost = await until(manager.state$, (x) => x.state !== 'READY');
    expect(isKeepaliveTimeoutError(lost.lastError)).toBe(true);
    await until(manager.state$, (x) => x.state === 'READY');
    await shutdownAndCount(atProxy(proxy));
  });
});

describe('a real flapping gRPC server cannot push the attempt rate above the policy', () => {
  async function flappingServer(ms: number): Promise<{ port: number; accepted: () => number }> {
    const flapping = await startFlappingServer(ms);
    cleanup.push(() => flapping.close());
    return flapping;
  }

  it('READY, then dropped after 20 ms: with the minUptime guard, attempts follow the schedule', async () => {
    const flapping = await flappingServer(20);
    const { channel, log, closeAndCount } = managed(flapping.port, { ...FAST, minUptime: 60_000 });
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'CONNECTING' && x.attempt >= 6);
    await closeAndCount({ accepted: flapping.accepted });
    const starts = connecting(log.snapshots).map((x, _, all) => x.since - all[0]!.since);
    // gRPC's schedule: attempt k starts no sooner than the sum of the nominal waits before it (1 ms of timer rounding each).
    const nominal = [0, 100, 260, 516, 925.6, 1580.96];
    starts.forEach((t, k) => {
      expect(t).toBeGreaterThanOrEqual(nominal[k]! - k);
    });
    for (const t of [300, 600, 1000])
      expect(starts.filter((x) => x <= t).length).toBeLessThanOrEqual(nominal.filter((x) => x <= t + 6).length);
    // The connections were real (READY) and short-lived, yet none reset the backoff.
    const readyAttempts = log.snapshots.filter((x) => x.state === 'READY').map((x) => x.attempt);
    expect(readyAttempts.length).toBeGreaterThanOrEqual(4);
    // Consecutive attempt numbers: no READY reset the count (on a loaded machine, or with grpc-js 1.10,
    // which waits for the server's SETTINGS ACK, a connection may be dropped before it was READY).
    expect(readyAttempts).toEqual(readyAttempts.map((_, i) => readyAttempts[0]! + i));
    expect(flapping.accepted()).toBeGreaterThanOrEqual(starts.length - 1); // the last may still be dialling
    expect(flapping.accepted()).toBeLessThanOrEqual(starts.length);
  });
});
