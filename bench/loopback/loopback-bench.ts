/**
 * Loopback reality check through the real adapters: many connections to one real grpc-js server (in
 * a child process) that restarts, once through redialer's `http2Connector`, once through
 * `ManagedChannel`, and once as plain grpc-js channels. Measures the time from the server's return
 * until every connection is READY again, the client process's CPU per reconnected connection, and the
 * client's event-loop delay (p99) from the restart until all are READY. Each size runs several times
 * and reports the median and the range.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Channel, connectivityState, credentials } from '@grpc/grpc-js';
import { ConnectionManager } from '../../src/connection-manager.js';
import type { ConnectionSnapshot } from '../../src/connection-snapshot.js';
import { http2Connector } from '../../src/grpc/http2-connector.js';
import { ManagedChannel } from '../../src/grpc/managed-channel.js';

/** One fleet, one run. */
export interface LoopbackRun {
  /** ms from the server's return until half the connections were READY. */
  readonly halfReadyAfter: number;
  /** ms from the server's return until the last connection was READY. */
  readonly allReadyAfter: number;
  /** Client-process CPU (user + system) from the restart until all READY, ms. */
  readonly cpuMs: number;
  /** The client's event-loop delay, 99th percentile, from the restart until all READY, ms. */
  readonly loopDelayP99: number;
}

/** A fleet's figures over several runs. */
export interface LoopbackFigure {
  readonly subject: string;
  readonly connections: number;
  /** ms the server was down. */
  readonly downtime: number;
  /** The unreported rounds each subject ran before the measured runs. */
  readonly warmUp: { readonly rounds: number; readonly connections: number };
  readonly runs: readonly LoopbackRun[];
}

interface Reply {
  ok: boolean;
  port: number;
  error?: string;
}

class ServerProcess {
  readonly #child: ChildProcess;

  constructor() {
    this.#child = fork(fileURLToPath(new URL('./server-process.js', import.meta.url)), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  }

  #ask(message: unknown): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.#child.once('message', (reply: Reply) => {
        if (reply.ok) resolve(reply);
        else reject(new Error(reply.error));
      });
      this.#child.send(message as object);
    });
  }

  async start(port: number): Promise<number> {
    return (await this.#ask({ cmd: 'start', port })).port;
  }

  async stop(): Promise<void> {
    await this.#ask({ cmd: 'stop' });
  }

  close(): void {
    this.#child.disconnect();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, limitMs: number, what: string): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

interface Fleet {
  readyCount(): number;
  close(): void;
}

async function measure(
  subject: string,
  server: ServerProcess,
  port: number,
  connections: number,
  downtime: number,
  fleet: Fleet,
): Promise<LoopbackRun> {
  await until(() => fleet.readyCount() === connections, 120_000, `${subject}: first connections`);
  // Stay up past redialer's minUptime (5 s), so that the loss resets the backoff as a long-lived connection's would.
  await sleep(6000);
  const cpu = process.cpuUsage();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  await server.stop();
  await until(() => fleet.readyCount() === 0, 60_000, `${subject}: connections to drop`);
  await sleep(downtime);
  await server.start(port);
  const up = performance.now();
  let half = -1;
  await until(
    () => {
      const n = fleet.readyCount();
      if (half < 0 && n * 2 >= connections) half = performance.now() - up;
      return n === connections;
    },
    240_000,
    `${subject}: reconnection`,
  );
  const allReadyAfter = performance.now() - up;
  const used = process.cpuUsage(cpu);
  loop.disable();
  fleet.close();
  return {
    allReadyAfter,
    halfReadyAfter: half,
    cpuMs: (used.user + used.system) / 1000,
    loopDelayP99: loop.percentile(99) / 1e6,
  };
}

/** Counts READY connections from redialer snapshots. */
function readyCounter(): { count: () => number; watch: (s: ConnectionSnapshot, was: boolean) => boolean } {
  let ready = 0;
  return {
    count: () => ready,
    watch: (s, was) => {
      const now = s.state === 'READY';
      if (now !== was) ready += now ? 1 : -1;
      return now;
    },
  };
}

function connectorFleet(authority: string, connections: number): Fleet {
  const counter = readyCounter();
  const managers = Array.from({ length: connections }, () => {
    const m = new ConnectionManager({ connector: http2Connector(authority) });
    let isReady = false;
    m.state$.subscribe((s) => (isReady = counter.watch(s, isReady)));
    m.connect();
    return m;
  });
  return {
    readyCount: counter.count,
    close: () => {
      for (const m of managers) m.shutdown();
    },
  };
}

function managedChannelFleet(target: string, connections: number): Fleet {
  const counter = readyCounter();
  const channels = Array.from({ length: connections }, () => {
    const c = new ManagedChannel(target, credentials.createInsecure());
    let isReady = false;
    c.state$.subscribe((s) => (isReady = counter.watch(s, isReady)));
    c.getConnectivityState(true);
    return c;
  });
  return {
    readyCount: counter.count,
    close: () => {
      for (const c of channels) c.close();
    },
  };
}

function grpcFleet(target: string, connections: number): Fleet {
  let ready = 0;
  let closed = false;
  // A separate subchannel pool per channel, so that each channel owns one connection.
  const channels = Array.from(
    { length: connections },
    () => new Channel(target, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }),
  );
  for (const channel of channels) {
    let isReady = false;
    const watch = (): void => {
      if (closed) return;
      // Asking for the state with tryToConnect keeps an IDLE channel connecting, as a busy client would.
      const state = channel.getConnectivityState(true);
      const now = state === connectivityState.READY;
      if (now !== isReady) ready += now ? 1 : -1;
      isReady = now;
      channel.watchConnectivityState(state, Infinity, watch);
    };
    watch();
  }
  return {
    readyCount: () => ready,
    close: () => {
      closed = true;
      for (const c of channels) c.close();
    },
  };
}

/** Connections of the warm-up rounds that run each subject before the measured runs. */
const WARM_UP_CONNECTIONS = 1000;

/**
 * Warm-up rounds per subject. V8 optimizes the code of a reconnect storm over several storms: with one
 * round of 500 connections, the measured runs still spent 150–400 ms each (a third of a 1,000-connection
 * storm's CPU) compiling, on both sides, falling from run to run (`node --trace-opt`). After three
 * rounds of 1,000 it is down to 40–100 ms, and the runs measure reconnecting rather than compiling.
 */
const WARM_UP_ROUNDS = 3;

/** Options of {@link runLoopback}. */
export interface LoopbackOptions {
  /** Fleet sizes, each run for every subject. */
  readonly sizes: readonly number[];
  /** ms the server stays down. */
  readonly downtime: number;
  /** Runs per subject and size (median and range are reported). */
  readonly runs: number;
  /** Progress lines. */
  readonly say?: (line: string) => void;
  /** Only the subjects whose name contains this text (all when undefined). */
  readonly only?: string;
}

export async function runLoopback({ sizes, downtime, runs, say, only }: LoopbackOptions): Promise<LoopbackFigure[]> {
  const server = new ServerProcess();
  try {
    const port = await server.start(0);
    const subjects = (
      [
        ['redialer http2Connector', (n) => connectorFleet(`http://127.0.0.1:${String(port)}`, n)],
        ['redialer ManagedChannel', (n) => managedChannelFleet(`127.0.0.1:${String(port)}`, n)],
        ['plain @grpc/grpc-js channels', (n) => grpcFleet(`127.0.0.1:${String(port)}`, n)],
      ] satisfies [string, (n: number) => Fleet][]
    ).filter(([name]) => only === undefined || name.includes(only));
    const figures: LoopbackFigure[] = [];
    // Discarded rounds first (see WARM_UP_ROUNDS), subjects taking turns, so that the measured runs do
    // not pay for compiling a subject's code.
    const warmUpConnections = Math.min(WARM_UP_CONNECTIONS, sizes[0] ?? WARM_UP_CONNECTIONS);
    for (let round = 0; round < WARM_UP_ROUNDS; round++) {
      for (const [name, fleet] of subjects) {
        say?.(
          `loopback: ${name}, warm-up ${String(round + 1)}/${String(WARM_UP_ROUNDS)} with ${String(warmUpConnections)} connections (not reported)`,
        );
        await measure(name, server, port, warmUpConnections, downtime, fleet(warmUpConnections));
        await sleep(500);
      }
    }
    for (const connections of sizes) {
      const results = new Map<string, LoopbackRun[]>(subjects.map(([name]) => [name, []]));
      // Subjects take turns within each round, so that a drift of the machine's load hits all alike.
      for (let run = 0; run < runs; run++) {
        for (const [name, fleet] of subjects) {
          say?.(`loopback: ${name}, ${String(connections)} connections, run ${String(run + 1)}/${String(runs)}`);
          results.get(name)?.push(await measure(name, server, port, connections, downtime, fleet(connections)));
          await sleep(500);
        }
      }
      for (const [name] of subjects)
        figures.push({
          subject: name,
          connections,
          downtime,
          warmUp: { rounds: WARM_UP_ROUNDS, connections: warmUpConnections },
          runs: results.get(name) ?? [],
        });
    }
    return figures;
  } finally {
    server.close();
  }
}
