/**
 * Keepalive (gRFC A8) against a real C-core server that enforces its ping policy, as Go, Java, C++,
 * Python and Envoy servers do. The server's own policy options are shortened (C-core's defaults:
 * a PING at most every 5 min without data, 2 strikes) and so is the client's 10 s floor
 * (`minKeepaliveTime`), so each test takes seconds; the ratios are those of a real deployment. PINGs and
 * GOAWAYs are counted on the wire by a frame-counting proxy. Skipped, with one printed line, when
 * python3-grpcio is not installed.
 */
import { type ClientReadableStream } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { type ConnectionSnapshot, ConnectionManager } from '../../../src/index.js';
import {
  http2Connector,
  isGoawayError,
  isTooManyPings,
  ManagedChannel,
  type ManagedChannelOptions,
} from '../../../src/adapters/grpc/index.js';
import { ccore, describeCCore, onCleanup } from '../../support/grpc/ccore-suite.js';
import type { FrameCounter } from '../../support/grpc/frame-counter.js';
import { record, until } from '../../support/grpc/record.js';
import { createTestClient, echo, type Tick } from '../../support/grpc/service.js';
import { FAST as FAST_OPTIONS, insecure } from '../../support/grpc/fast-options.js';

// The shared fast options (every wait nominal), with a 2 s connect timeout for the C-core server.
const FAST = { ...FAST_OPTIONS, minConnectTimeout: 2000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** C-core's ping policy, shortened: a PING at most every 500 ms without data, then GOAWAY after 2 strikes. */
// (C-core 1.51 names it grpc.http2.min_ping_interval_without_data_ms: GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS.)
const POLICY = { 'grpc.http2.min_ping_interval_without_data_ms': 500, 'grpc.http2.max_ping_strikes': 2 };

function channel(address: string, options: ManagedChannelOptions) {
  const ch = new ManagedChannel(address, insecure, { ...FAST, ...options });
  const client = createTestClient(address, insecure, { channelOverride: ch });
  onCleanup(() => {
    client.close();
  });
  return { channel: ch, client, log: record(ch.state$) };
}

function h2(address: string, options: Parameters<typeof http2Connector>[1]) {
  const manager = new ConnectionManager({ connector: http2Connector(`http://${address}`, options), ...FAST });
  onCleanup(() => {
    manager.shutdown();
  });
  return { manager, log: record(manager.state$) };
}

/**
 * Waits until 4 PINGs crossed after the last GOAWAY so far (a server that still refused them would
 * have sent GOAWAY at the third strike), then checks the GOAWAYs: one or two
 * (the keepalive time doubles from 200 to 400 to 800 ms, and the server accepts 800 ms), all
 * ENHANCE_YOUR_CALM "too_many_pings", and the keepalive time logged as doubled each time.
 */
async function expectConvergence(
  wire: FrameCounter,
  logs: readonly string[],
  snapshots: readonly ConnectionSnapshot[],
) {
  await expect
    .poll(
      () => {
        const last = wire.goaways.at(-1)?.at ?? Infinity;
        return wire.pings.filter((t) => t > last).length;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBeGreaterThanOrEqual(4);
  expect(wire.goaways.length).toBeGreaterThanOrEqual(1);
  expect(wire.goaways.length).toBeLessThanOrEqual(2); // without the doubling: a GOAWAY every 0.8 s, forever
  expect(wire.goaways.every((g) => g.code === 11 && g.debug === 'too_many_pings')).toBe(true);
  expect(logs).toHaveLength(wire.goaways.length);
  expect(logs[0]).toMatch(/GOAWAY ENHANCE_YOUR_CALM "too_many_pings"; keepalive time raised from 200 ms to 400 ms/);
  const losses = snapshots.filter((s) => s.state === 'TRANSIENT_FAILURE');
  expect(losses.length).toBe(wire.goaways.length);
  expect(losses.every((s) => isTooManyPings(s.lastError))).toBe(true);
  expect(wire.connections()).toBe(wire.goaways.length + 1);
}

describeCCore('keepalive against a server that enforces ping policy', () => {
  it('idle connections send no PING, so the server never says "too_many_pings" (before: GOAWAY after 4 pings)', async () => {
    const { wire } = await ccore(POLICY);
    // Both asked for a PING every 200 ms — far more often than the server allows without data.
    const managed = channel(wire.address, { keepaliveTime: 200, minKeepaliveTime: 100 });
    const plain = h2(wire.address, { keepaliveTime: 200, minKeepaliveTime: 100 });
    plain.manager.connect();
    await expect(echo(managed.client, 'one call, then idle')).resolves.toEqual({ text: 'one call, then idle' });
    await until(plain.manager.state$, (s) => s.state === 'READY');
    await sleep(2000); // 10 keepalive periods, 4 of the server's ping windows
    expect(wire.pings).toEqual([]);
    expect(wire.goaways).toEqual([]);
    expect(wire.connections()).toBe(2);
    expect(managed.log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    expect(plain.log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
  });

  it('keepaliveWithoutCalls faster than the server permits: GOAWAY "too_many_pings", the keepalive time doubles until the server accepts it', async () => {
    const permit = { ...POLICY, 'grpc.keepalive_permit_without_calls': 1 };
    const [a, b] = await Promise.all([ccore(permit), ccore(permit)]);
    const h2Logs: string[] = [];
    const channelLogs: string[] = [];
    const plain = h2(a.wire.address, {
      keepaliveTime: 200,
      keepaliveWithoutCalls: true,
      minKeepaliveTime: 100,
      log: (m) => h2Logs.push(m),
    });
    // ManagedChannel configured the grpc-js way: the grpc.keepalive_* channel options are read as keepalive.
    const managed = channel(b.wire.address, {
      minKeepaliveTime: 100,
      log: (m) => channelLogs.push(m),
      channelOptions: { 'grpc.keepalive_time_ms': 200, 'grpc.keepalive_permit_without_calls': 1 },
    });
    plain.manager.connect();
    managed.channel.manager.connect();
    await Promise.all([
      expectConvergence(a.wire, h2Logs, plain.log.snapshots),
      expectConvergence(b.wire, channelLogs, managed.log.snapshots),
    ]);
    const lost = plain.log.snapshots.find((s) => s.state === 'TRANSIENT_FAILURE');
    expect(isGoawayError(lost?.lastError)).toBe(true);
    expect(lost?.lastError).toMatchObject({
      errorCode: 11,
      enhanceYourCalm: true,
      graceful: false,
      debugText: 'too_many_pings',
    });
    expect((lost?.lastError as Error).message).toBe(
      'the server closed the connection with GOAWAY ENHANCE_YOUR_CALM (HTTP/2 error code 11) "too_many_pings"',
    );
  });

  it('a stream kept open: keepalive PINGs the server accepts, none once it ends', async () => {
    // The server accepts a PING every 300 ms on a connection without data; the client sends one every 500 ms.
    const { wire } = await ccore({ ...POLICY, 'grpc.http2.min_ping_interval_without_data_ms': 300 });
    const { client, log } = channel(wire.address, { keepaliveTime: 500, minKeepaliveTime: 100 });
    const ticks: number[] = [];
    const stream: ClientReadableStream<Tick> = client.count({ from: 1, hold: true } as never);
    const errors: unknown[] = [];
    stream.on('data', (tick: Tick) => ticks.push(tick.seq));
    stream.on('error', (error) => errors.push(error));
    // Four PINGs without a GOAWAY: a server that refused them would have sent it at the third strike.
    await expect.poll(() => wire.pings.length, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(4);
    expect(ticks).toEqual([1]);
    expect(errors).toEqual([]);
    expect(wire.goaways).toEqual([]);
    stream.cancel();
    await sleep(600); // a PING already due may still go
    const afterCall = wire.pings.length;
    await sleep(1500);
    expect(wire.pings.length).toBe(afterCall);
    expect(wire.goaways).toEqual([]);
    expect(log.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    expect(wire.connections()).toBe(1);
  });
});
