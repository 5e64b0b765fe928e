/**
 * Every TCP connection a ManagedChannel opens belongs to a scheduled attempt and is closed when that
 * attempt ends: counted on the server side (accepted connections) and on the client side (dials seen
 * through `net.client.socket`), against refusing ports, a server that sends GOAWAY before SETTINGS, and a
 * port that refuses and then black-holes. grpc-js's subchannels keep their own reconnect timer (1 s,
 * then growing) after their channel is closed; each test waits past it (LINGER) before counting.
 * Also: a process that makes one failing call through a ManagedChannel exits by itself.
 */
import { type Channel as GrpcChannel, connectivityState, credentials, experimental, status } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

import { isConnectionFailedError, ManagedChannel } from '../../../src/adapters/grpc/index.js';
import { AttemptGate } from '../../../src/adapters/grpc/grpc-js-workarounds/attempt-gate.js';
import { startFaultProxy } from '../../../src/testing/fault-proxy.js';
import { countClientSockets } from '../../support/grpc/client-sockets.js';
import { record, until } from '../../support/grpc/record.js';
import {
  createTestClient,
  echo,
  startTestServer,
  type TestClient,
  type TestServer,
} from '../../support/grpc/service.js';
import { refusedPort } from '../../support/refused-port.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';
import { fixture, requireDist, root, runNode } from '../../support/child-process.js';
import { listenOnLoopback, portOf, track } from '../../support/loopback.js';

/** Longer than grpc-js's first subchannel backoff (1 s + 20 % jitter), the time a stray reconnect would take. */
const LINGER = 1600;

const cleanup = cleanupAfterEach();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP server that counts accepted connections and does `onSocket` with each. */
async function countingServer(onSocket: (socket: Socket) => void) {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    track(sockets, socket);
    // Read (and drop) what the client sends, so that its FIN is seen.
    socket.resume();
    onSocket(socket);
  });
  await listenOnLoopback(server, sockets, cleanup);
  return { port: portOf(server), accepted: () => accepted, open: () => sockets.size };
}

/**
 * The two policies a gated channel runs: `127.0.0.1:port` is an address, which gets the one-address
 * policy; `dns:127.0.0.1:port` resolves to the same single address, under `pick_first`.
 */
const POLICIES = [
  { policy: 'the one-address policy', scheme: '' },
  { policy: 'pick_first', scheme: 'dns:' },
] as const;

function managed(port: number, scheme = '') {
  const address = `${scheme}127.0.0.1:${String(port)}`;
  const channel = new ManagedChannel(address, insecure, FAST);
  cleanup.push(() => {
    channel.close();
  });
  return {
    channel,
    log: record(channel.state$),
    client: createTestClient(address, insecure, { channelOverride: channel }),
  };
}

/** Closes `channel`, waits past LINGER for a stray reconnect, and returns the attempts `log` saw start. */
async function closeAndLinger(channel: ManagedChannel, log: ReturnType<typeof record>): Promise<number> {
  channel.close();
  await sleep(LINGER);
  return log.starts().length;
}

function counted(port: number) {
  const dials = countClientSockets(port);
  cleanup.push(() => {
    dials.stop();
  });
  return dials;
}

describe('ManagedChannel: one TCP connection per scheduled attempt, none after it', () => {
  it('refusing port: as many dials as attempts, also after close(); the error names ECONNREFUSED', async () => {
    const port = await refusedPort();
    const dials = counted(port);
    const { channel, log } = managed(port);
    channel.manager.connect();
    const failed = await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 4);
    expect(isConnectionFailedError(failed.lastError)).toBe(true);
    expect((failed.lastError as Error).message).toMatch(/could not connect to 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    expect(((failed.lastError as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    const attempts = await closeAndLinger(channel, log);
    expect(dials.dialled()).toBe(attempts);
    // grpc-js does not even start a dial for a failed attempt: its subchannel's reconnect timer is
    // stopped, so the socket tracking has nothing to refuse.
    expect(dials.refused()).toBe(0);
  });

  it('a server that sends GOAWAY before SETTINGS and closes: as many connections accepted as attempts', async () => {
    // GOAWAY: length 8, type 0x7, no flags, stream 0; last stream 0, error code PROTOCOL_ERROR (1).
    const goaway = Buffer.from([0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    const server = await countingServer((socket) => {
      socket.end(goaway);
    });
    const dials = counted(server.port);
    const { channel, log } = managed(server.port);
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 6);
    const attempts = await closeAndLinger(channel, log);
    expect(server.accepted()).toBe(attempts);
    expect(dials.dialled()).toBe(attempts);
    expect(server.open()).toBe(0);
  });

  it('a port that refuses and then black-holes: nothing connects after close(), nothing stays open', async () => {
    const target = await countingServer(() => undefined);
    const proxy = await startFaultProxy({ port: target.port }, { kind: 'refuse' });
    cleanup.push(() => proxy.close());
    const dials = counted(proxy.port);
    const { channel, log } = managed(proxy.port);
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
    await proxy.setFault({ kind: 'blackhole' });
    const before = log.starts().length;
    channel.close();
    await sleep(LINGER);
    expect(log.starts()).toHaveLength(before);
    expect(proxy.accepted).toBe(0);
    expect(proxy.open).toBe(0);
    expect(dials.dialled()).toBe(before);
  });

  it('black hole: each cut attempt closes its one connection; after close() none is open', async () => {
    const target = await countingServer(() => undefined);
    const proxy = await startFaultProxy({ port: target.port }, { kind: 'blackhole' });
    cleanup.push(() => proxy.close());
    const dials = counted(proxy.port);
    const { channel, log, client } = managed(proxy.port);
    await expect(echo(client, 'x')).rejects.toMatchObject({ code: status.UNAVAILABLE });
    await until(channel.state$, (x) => x.state === 'CONNECTING' && x.attempt >= 3);
    await vi.waitFor(() => {
      expect(proxy.accepted).toBe(3);
    });
    const attempts = await closeAndLinger(channel, log);
    expect(proxy.accepted).toBe(attempts);
    expect(dials.dialled()).toBe(attempts);
    expect(proxy.open).toBe(0);
    expect(dials.open()).toBe(0);
  });
});

describe('ManagedChannel through an HTTP CONNECT proxy (grpc_proxy)', () => {
  it('a cut attempt resets its connection to a proxy that never answers; none is left after close()', async () => {
    // A proxy that accepts the TCP connection and never answers the CONNECT request.
    const proxy = await countingServer(() => undefined);
    const names = ['grpc_proxy', 'no_grpc_proxy', 'no_proxy'] as const;
    const saved = names.map((name) => [name, process.env[name]] as const);
    cleanup.push(() => {
      for (const [name, value] of saved) {
        if (value === undefined) Reflect.deleteProperty(process.env, name);
        else process.env[name] = value;
      }
    });
    process.env['grpc_proxy'] = `http://127.0.0.1:${String(proxy.port)}`;
    for (const name of ['no_grpc_proxy', 'no_proxy']) Reflect.deleteProperty(process.env, name);
    const { channel, log } = managed(await refusedPort());
    channel.manager.connect();
    // Each attempt is cut at its deadline (minConnectTimeout 300 ms): the CONNECT is never answered.
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3, 10_000);
    expect(proxy.open()).toBeLessThanOrEqual(1);
    channel.close();
    // The proxy sees each reset connection close (soon, but a loaded machine may take a while) ...
    await vi.waitFor(() => {
      expect(proxy.open()).toBe(0);
    }, 5000);
    // ... and no connection after close().
    await sleep(300);
    expect(proxy.accepted()).toBe(log.starts().length);
    expect(proxy.open()).toBe(0);
  });
});

describe('ManagedChannel: failed attempts and reconnects share one grpc-js channel', () => {
  /** Counts the grpc-js channels the ManagedChannel builds (each is bound to a new gate) and closes. */
  function channelsBuilt() {
    const built = vi.spyOn(AttemptGate.prototype, 'channelOptions');
    const disposed = vi.spyOn(AttemptGate.prototype, 'dispose');
    const restore = (): void => {
      built.mockRestore();
      disposed.mockRestore();
    };
    cleanup.push(restore);
    return {
      restore,
      /** Channels built for attempts, with or without a gate. */
      built: () => built.mock.calls.length,
      /** Those built under a gate. */
      gated: () => built.mock.results.filter((result) => result.value !== undefined).length,
      disposed: () => disposed.mock.calls.length,
    };
  }

  /**
   * With `s` down: `failures` refused attempts, then the server back and READY, a call, a crash, two
   * failed attempts, the server back and READY again, a call. Returns both connections.
   */
  async function outageAndReconnect(
    s: TestServer,
    channel: ManagedChannel,
    client: TestClient,
    failures: number,
    text: string,
  ): Promise<{ first: GrpcChannel; second: GrpcChannel }> {
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= failures);
    await s.restart();
    const first = await until(channel.state$, (x) => x.state === 'READY');
    await expect(echo(client, text)).resolves.toEqual({ text });
    await s.crash();
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 2);
    await s.restart();
    const second = await until(channel.state$, (x) => x.state === 'READY');
    await expect(echo(client, `${text} again`)).resolves.toEqual({ text: `${text} again` });
    if (first.state !== 'READY' || second.state !== 'READY') throw new Error('not READY');
    return { first: first.connection, second: second.connection };
  }

  it('refused attempts, the connection, its loss and the reconnect run on one channel, one dial per attempt', async () => {
    const s = await startTestServer();
    cleanup.push(() => s.close());
    await s.kill();
    const dials = counted(s.port);
    const channels = channelsBuilt();
    const { channel, log, client } = managed(s.port);
    const { first, second } = await outageAndReconnect(s, channel, client, 3, 'up');
    // One grpc-js channel served every attempt, and its connection was replaced in it.
    expect(second).toBe(first);
    expect(channels.built()).toBe(1);
    channel.close();
    await sleep(LINGER);
    expect(first.getConnectivityState(false)).toBe(4 /* SHUTDOWN */);
    expect(channels.disposed()).toBe(1);
    // Still one dial per attempt (the gate lets grpc-js dial only when an attempt starts), none after close().
    expect(dials.dialled()).toBe(log.starts().length);
    expect(dials.refused()).toBe(0);
    expect(dials.open()).toBe(0);
  });

  it("after the first gated channel, the gate builds grpc-js's pick_first itself, without a child handler of its own", async () => {
    const s = await startTestServer();
    cleanup.push(() => s.close());
    // A first channel: its gate finds grpc-js's pick_first class through a child handler (if no earlier
    // test in this process did).
    const first = managed(s.port, 'dns:');
    first.channel.manager.connect();
    await until(first.channel.state$, (x) => x.state === 'READY');
    // From now on, which policies grpc-js's child handlers build: the channel's own (the gate policy,
    // under the resolving balancer) and, if the gate still used one, pick_first.
    const handled = vi.spyOn(experimental.ChildLoadBalancerHandler.prototype, 'updateAddressList');
    cleanup.push(() => {
      handled.mockRestore();
    });
    const policies = (): string[] => handled.mock.calls.map((call) => call[1].getLoadBalancerName());
    const second = managed(s.port, 'dns:');
    second.channel.manager.connect();
    await until(second.channel.state$, (x) => x.state === 'READY');
    await expect(echo(second.client, 'direct')).resolves.toEqual({ text: 'direct' });
    expect(policies()).toEqual(['redialer_attempt_gate']);
    // The policy still serves a loss and a reconnect.
    await s.crash();
    await until(second.channel.state$, (x) => x.state === 'TRANSIENT_FAILURE');
    await s.restart();
    await until(second.channel.state$, (x) => x.state === 'READY');
    await expect(echo(second.client, 'again')).resolves.toEqual({ text: 'again' });
  });

  it.each(POLICIES)(
    "a lost connection's subchannel serves the reconnect: one grpc-js subchannel for the whole run ($policy)",
    async ({ scheme }) => {
      const s = await startTestServer();
      cleanup.push(() => s.close());
      // The gate makes a subchannel (and the address it dials) once for the one-address policy, and for
      // pick_first only when it cannot be given back the one it let go.
      const made = vi.spyOn(AttemptGate.prototype, 'dialAddress');
      cleanup.push(() => {
        made.mockRestore();
      });
      const dials = counted(s.port);
      const { channel, log, client } = managed(s.port, scheme);
      channel.manager.connect();
      await until(channel.state$, (x) => x.state === 'READY');
      const first = channel.manager.snapshot.state === 'READY' ? channel.manager.snapshot.connection : undefined;
      for (const round of ['one', 'two']) {
        await s.crash();
        await until(channel.state$, (x) => x.state !== 'READY');
        await s.restart();
        await until(channel.state$, (x) => x.state === 'READY');
        await expect(echo(client, round)).resolves.toEqual({ text: round });
      }
      const last = channel.manager.snapshot.state === 'READY' ? channel.manager.snapshot.connection : undefined;
      expect(last).toBe(first);
      expect(made).toHaveBeenCalledTimes(1);
      const attempts = await closeAndLinger(channel, log);
      // Still one dial per attempt, none after close().
      expect(dials.dialled()).toBe(attempts);
      expect(dials.open()).toBe(0);
    },
  );

  it.each(POLICIES)(
    'between attempts the subchannel stays parked in TRANSIENT_FAILURE: no grpc-js timer moves it ($policy)',
    async ({ scheme }) => {
      const port = await refusedPort();
      const dials = counted(port);
      // Every state change of the subchannels the gate adopts, heard alongside the gate.
      const changes: string[] = [];
      const gateAdopts: unknown = Reflect.get(AttemptGate.prototype, 'adopt');
      const adopt = vi.spyOn(AttemptGate.prototype, 'adopt').mockImplementation(function (
        this: AttemptGate,
        subchannel,
      ) {
        subchannel.addConnectivityStateListener((_sub, _previous, next) => changes.push(connectivityState[next]));
        return Reflect.apply(gateAdopts as AttemptGate['adopt'], this, [subchannel]);
      });
      cleanup.push(() => {
        adopt.mockRestore();
      });
      const { channel, log } = managed(port, scheme);
      channel.manager.connect();
      await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
      // Well past the moment grpc-js's 1 s reconnect backoff would end, were it its own.
      await sleep(LINGER);
      channel.close();
      const attempts = log.starts().length;
      expect(adopt).toHaveBeenCalledTimes(1);
      // Each attempt is one dial: CONNECTING, then TRANSIENT_FAILURE; never IDLE in between.
      expect(changes).toEqual(Array.from({ length: attempts }, () => ['CONNECTING', 'TRANSIENT_FAILURE']).flat());
      expect(dials.dialled()).toBe(attempts);
    },
  );

  it.each(POLICIES)(
    'the channel hears each run of failures once ($policy; pick_first repeats it, the gate stops the repeats)',
    async ({ scheme }) => {
      const port = await refusedPort();
      // What the policy reports, and whether the gate passes it on to the channel.
      const heard: [string, boolean][] = [];
      const gateOnChildState: unknown = Reflect.get(AttemptGate.prototype, 'onChildState');
      const onChildState = vi.spyOn(AttemptGate.prototype, 'onChildState').mockImplementation(function (
        this: AttemptGate,
        state,
      ) {
        const passed = Reflect.apply(gateOnChildState as AttemptGate['onChildState'], this, [state]);
        heard.push([connectivityState[state], passed]);
        return passed;
      });
      cleanup.push(() => {
        onChildState.mockRestore();
      });
      const { channel, client } = managed(port, scheme);
      channel.manager.connect();
      await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 3);
      // A call without waitForReady still fails at once, with the attempt's error.
      await expect(echo(client, 'x')).rejects.toMatchObject({ code: status.UNAVAILABLE });
      channel.close();
      // The first report of a failure run reaches the channel; its repeats (grpc-js 1.14 makes one per
      // later attempt; 1.10 none) do not.
      expect(heard.filter(([state, passed]) => state === 'TRANSIENT_FAILURE' && passed)).toHaveLength(1);
      heard.forEach(([state, passed], i) => {
        expect(passed).toBe(!(state === 'TRANSIENT_FAILURE' && heard[i - 1]?.[0] === 'TRANSIENT_FAILURE'));
      });
      // The one-address policy reports each state once: no repeat to stop.
      if (scheme === '')
        expect(heard).toEqual([
          ['CONNECTING', true],
          ['TRANSIENT_FAILURE', true],
          ['SHUTDOWN', true],
        ]);
    },
  );

  it('over TLS: refused attempts, the connection, its loss and the reconnect run on one channel', async () => {
    const fixture = (name: string): Buffer => readFileSync(join(root, 'test/adapters/grpc/fixtures', name));
    const cert = fixture('localhost-cert.pem');
    const s = await startTestServer({ tls: { key: fixture('localhost-key.pem'), cert } });
    cleanup.push(() => s.close());
    await s.kill();
    const dials = counted(s.port);
    const channels = channelsBuilt();
    const tls = credentials.createSsl(cert);
    const channel = new ManagedChannel(s.address, tls, {
      ...FAST,
      channelOptions: { 'grpc.ssl_target_name_override': 'localhost' },
    });
    cleanup.push(() => {
      channel.close();
    });
    const log = record(channel.state$);
    const client = createTestClient(s.address, tls, { channelOverride: channel });
    const { first, second } = await outageAndReconnect(s, channel, client, 2, 'tls');
    expect(second).toBe(first);
    expect(channels.built()).toBe(1);
    channel.close();
    client.close();
    await sleep(LINGER);
    // grpc-js 1.10 dials TLS with tls.connect(), whose socket Node 20 does not report on the
    // net.client.socket diagnostics channel (Node 22 does): there the dials cannot be counted.
    const unseen = process.env['REDIALER_GRPC_JS'] === 'grpc-js-1-10' && process.versions.node.startsWith('20.');
    if (!unseen) {
      expect(dials.dialled()).toBe(log.starts().length);
      expect(dials.open()).toBe(0);
    }
  });

  it('a manager that stops trying closes the kept channel: IDLE after a loss (autoReconnect: false), SHUTDOWN when retries run out', async () => {
    const s = await startTestServer();
    cleanup.push(() => s.close());
    const channels = channelsBuilt();
    const idle = new ManagedChannel(s.address, insecure, { ...FAST, autoReconnect: false });
    cleanup.push(() => {
      idle.close();
    });
    idle.manager.connect();
    const ready = await until(idle.state$, (x) => x.state === 'READY');
    if (ready.state !== 'READY') throw new Error('not READY');
    await s.crash();
    await until(idle.state$, (x) => x.state === 'IDLE');
    // Kept after the loss, released as the manager went IDLE.
    expect(channels.disposed()).toBe(1);
    expect(ready.connection.getConnectivityState(false)).toBe(4 /* SHUTDOWN */);
    await s.restart();
    idle.manager.connect();
    await until(idle.state$, (x) => x.state === 'READY');
    expect(channels.built()).toBe(2);
    idle.close();
    expect(channels.disposed()).toBe(2);

    await s.kill();
    const dials = counted(s.port);
    const limited = new ManagedChannel(s.address, insecure, { ...FAST, maxRetries: 2 });
    const log = record(limited.state$);
    limited.manager.connect();
    await until(limited.state$, (x) => x.state === 'SHUTDOWN');
    expect(channels.built()).toBe(3);
    expect(channels.disposed()).toBe(3);
    await sleep(LINGER);
    expect(log.starts()).toHaveLength(3);
    expect(dials.dialled()).toBe(3);
    expect(dials.refused()).toBe(0);
  });

  it('a connection whose grpc-js channel the user closes ends; the next attempt builds a new channel', async () => {
    const s = await startTestServer();
    cleanup.push(() => s.close());
    await s.kill();
    const channels = channelsBuilt();
    const { channel, client } = managed(s.port);
    channel.manager.connect();
    // A failed attempt first, so that the connection comes up on the kept channel.
    await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE');
    await s.restart();
    const ready = await until(channel.state$, (x) => x.state === 'READY');
    if (ready.state !== 'READY') throw new Error('not READY');
    expect(channels.built()).toBe(1);
    ready.connection.close();
    const after = await until(channel.state$, (x) => x.state === 'READY' && x.connection !== ready.connection);
    if (after.state !== 'READY') throw new Error('not READY');
    expect(channels.built()).toBe(2);
    await expect(echo(client, 'new channel')).resolves.toEqual({ text: 'new channel' });
  });

  it('a target with two addresses, one refusing and one black-holed: one dial to each per attempt', async () => {
    const refusing = await refusedPort();
    const hole = await countingServer(() => undefined);
    const toRefusing = counted(refusing);
    const toHole = counted(hole.port);
    // grpc-js's ipv4: scheme takes a list: pick_first tries the refusing address, then the other.
    const target = `ipv4:127.0.0.1:${String(refusing)},127.0.0.1:${String(hole.port)}`;
    const channel = new ManagedChannel(target, insecure, FAST);
    cleanup.push(() => {
      channel.close();
    });
    const log = record(channel.state$);
    channel.manager.connect();
    await until(channel.state$, (x) => x.state === 'CONNECTING' && x.attempt >= 3);
    await vi.waitFor(() => {
      expect(toHole.dialled()).toBe(3);
    });
    // pick_first asks the refused subchannel to connect again while the other address hangs; the gate
    // lets each address dial once per attempt.
    const attempts = await closeAndLinger(channel, log);
    expect(toRefusing.dialled()).toBe(attempts);
    expect(toHole.dialled()).toBe(attempts);
    expect(hole.open()).toBe(0);
  });

  it("the user's service config applies under the gate; one that picks a load-balancing policy gets a channel per attempt", async () => {
    const s = await startTestServer({
      count: (call) => {
        call.write({ seq: 1 });
      },
    });
    cleanup.push(() => s.close());
    const methodConfig = [{ name: [{ service: 'redialer.test.Test', method: 'Count' }], timeout: '0.3s' }];
    for (const [serviceConfig, gated] of [
      [{ methodConfig }, true],
      [{ methodConfig, loadBalancingConfig: [{ pick_first: {} }] }, false],
    ] as const) {
      await s.kill();
      const channels = channelsBuilt();
      const channel = new ManagedChannel(s.address, insecure, {
        ...FAST,
        channelOptions: { 'grpc.service_config': JSON.stringify(serviceConfig) },
      });
      cleanup.push(() => {
        channel.close();
      });
      const client = createTestClient(s.address, insecure, { channelOverride: channel });
      const log = record(channel.state$);
      channel.manager.connect();
      await until(channel.state$, (x) => x.state === 'TRANSIENT_FAILURE' && x.attempt >= 2);
      await s.restart();
      await until(channel.state$, (x) => x.state === 'READY');
      // The method config's timeout ends a stream the server never ends.
      const ended = await new Promise<unknown>((resolve) => {
        const stream = client.count({ from: 1 });
        stream.on('data', () => undefined);
        stream.on('error', resolve);
      });
      expect(ended).toMatchObject({ code: status.DEADLINE_EXCEEDED });
      if (gated) {
        expect(channels.built()).toBe(1);
        expect(channels.gated()).toBe(1);
      } else {
        expect(channels.built()).toBe(log.starts().length);
        expect(channels.gated()).toBe(0);
      }
      channel.close();
      client.close();
      channels.restore();
    }
  });
});

describe('a ManagedChannel never keeps a process alive by itself', () => {
  it.each(['refused', 'blackhole'])(
    'a process that makes one failing call (%s) and never closes the channel exits by itself',
    async (kind) => {
      requireDist('dist/adapters/grpc/index.js');
      const server = kind === 'blackhole' ? await countingServer(() => undefined) : undefined;
      const port = server?.port ?? (await refusedPort());
      const { stdout } = await runNode([fixture('grpc-one-failing-call.mjs'), String(port)], 15_000);
      expect(stdout).toMatch(/^call: (14|4) .*\nexited in (TRANSIENT_FAILURE|CONNECTING)$/);
    },
  );
});

describe('a ManagedChannel tracks its sockets without turning on async hooks (child processes, against dist/)', () => {
  // An AsyncLocalStorage context turns on promise hooks for the whole process on Node 20 and 22 (Node
  // 24's context frames need none); a ManagedChannel's gate claims its sockets instead.
  const hooksWithContext = Number(process.versions.node.split('.')[0]) < 24;

  async function probe(mode: 'managed' | 'connector'): Promise<unknown> {
    requireDist('dist/adapters/grpc/index.js');
    const { stdout } = await runNode([fixture('grpc-promise-hooks.mjs'), String(await refusedPort()), mode], 15_000);
    return JSON.parse(stdout);
  }

  it('failed attempts and a connection leave promise hooks off', async () => {
    expect(await probe('managed')).toEqual({ hooksBefore: false, hooks: false, failures: 2, ready: true });
  });

  it('the probe can fail: attempts through grpcChannelConnector (no gate) turn them on', async () => {
    expect(await probe('connector')).toEqual({
      hooksBefore: false,
      hooks: hooksWithContext,
      failures: 2,
      ready: false,
    });
  });
});
