/**
 * One subject's client side of the loopback bench, in a process of its own: it builds a fleet of
 * connections to the server, and measures the process's CPU and event-loop delay through one outage.
 * Every subject runs in its own client process, so that no subject's measured storm collects another
 * subject's garbage or runs in a heap that another subject's fleet has shaped (in one shared process,
 * the subject measured right after `http2Connector` paid up to 1.5× its own cost).
 *
 * Messages from the parent, in this order for each run (each answered with `{ ok: true }`, the last
 * with `{ ok: true, run }`, or `{ ok: false, error }`):
 * - `{ cmd: 'up', port, connections }`: builds the fleet and answers once every connection is READY;
 * - `{ cmd: 'begin' }`: collects the garbage (with `--expose-gc`) and starts measuring (the parent then
 *   stops the server);
 * - `{ cmd: 'dropped' }`: answers once no connection is READY;
 * - `{ cmd: 'return' }`: the server is back: answers with the run's figures once every connection is
 *   READY again, and closes the fleet.
 */
import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Channel, connectivityState, credentials } from '@grpc/grpc-js';
import type { Observable } from 'rxjs';
import { ConnectionManager } from '../../src/core/connection-manager.js';
import type { ConnectionSnapshot } from '../../src/core/connection-snapshot.js';
import { http2Connector } from '../../src/adapters/grpc/http2-connector.js';
import { ManagedChannel } from '../../src/adapters/grpc/managed-channel.js';
import type { LoopbackRun } from './loopback-bench.js';
import { until } from '../support/wait.js';
import { answerIpc } from './ipc-child.js';

interface Fleet {
  readyCount(): number;
  close(): void;
}

type Message =
  | { readonly cmd: 'up'; readonly port: number; readonly connections: number }
  | { readonly cmd: 'begin' }
  | { readonly cmd: 'dropped' }
  | { readonly cmd: 'return' };

/** A connection redialer keeps: its snapshots, how it starts connecting, how it ends. */
interface Kept {
  readonly state$: Observable<ConnectionSnapshot>;
  start(): void;
  stop(): void;
}

/** A fleet of connections kept by redialer, counted READY from their snapshots. */
function redialerFleet(connections: number, open: () => Kept): Fleet {
  let ready = 0;
  const kept = Array.from({ length: connections }, () => {
    const connection = open();
    let isReady = false;
    connection.state$.subscribe((s) => {
      const now = s.state === 'READY';
      if (now !== isReady) ready += now ? 1 : -1;
      isReady = now;
    });
    connection.start();
    return connection;
  });
  return {
    readyCount: () => ready,
    close: () => {
      for (const connection of kept) connection.stop();
    },
  };
}

function connectorFleet(authority: string, connections: number): Fleet {
  return redialerFleet(connections, () => {
    const m = new ConnectionManager({ connector: http2Connector(authority) });
    return {
      state$: m.state$,
      start: () => {
        m.connect();
      },
      stop: () => {
        m.shutdown();
      },
    };
  });
}

function managedChannelFleet(target: string, connections: number): Fleet {
  return redialerFleet(connections, () => {
    const c = new ManagedChannel(target, credentials.createInsecure());
    return {
      state$: c.state$,
      start: () => {
        c.getConnectivityState(true);
      },
      stop: () => {
        c.close();
      },
    };
  });
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

function buildFleet(subject: string, port: number, connections: number): Fleet {
  if (subject === 'redialer http2Connector') return connectorFleet(`http://127.0.0.1:${String(port)}`, connections);
  if (subject === 'redialer ManagedChannel') return managedChannelFleet(`127.0.0.1:${String(port)}`, connections);
  if (subject === 'plain @grpc/grpc-js channels') return grpcFleet(`127.0.0.1:${String(port)}`, connections);
  throw new Error(`unknown loopback subject ${subject}`);
}

/** This process's subject: the name the parent gives it in its first argument. */
const subject = process.argv[2] ?? '';
let fleet: Fleet | undefined;
let connections = 0;
let cpu: NodeJS.CpuUsage | undefined;
let loop: IntervalHistogram | undefined;
/** TCP sockets this process has created ('net.client.socket' is published for each `net.connect()`). */
let dials = 0;
subscribe('net.client.socket', () => {
  dials++;
});
let dialsAtBegin = 0;

async function handle(message: Message): Promise<object> {
  switch (message.cmd) {
    case 'up': {
      connections = message.connections;
      const built = buildFleet(subject, message.port, connections);
      fleet = built;
      await until(() => built.readyCount() === connections, 120_000, `${subject}: first connections`);
      return {};
    }
    case 'begin':
      // The storm starts on a collected heap: it does not pay for the garbage of building the fleet,
      // which a fleet of one subject leaves more of than another's (all three subjects alike).
      (globalThis as { gc?: () => void }).gc?.();
      cpu = process.cpuUsage();
      dialsAtBegin = dials;
      loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      return {};
    case 'dropped': {
      const built = fleet;
      await until(() => built?.readyCount() === 0, 60_000, `${subject}: connections to drop`);
      return {};
    }
    case 'return': {
      const built = fleet;
      if (built === undefined || cpu === undefined || loop === undefined) throw new Error('no run under way');
      const up = performance.now();
      let half = -1;
      await until(
        () => {
          const n = built.readyCount();
          if (half < 0 && n * 2 >= connections) half = performance.now() - up;
          return n === connections;
        },
        240_000,
        `${subject}: reconnection`,
      );
      const allReadyAfter = performance.now() - up;
      const used = process.cpuUsage(cpu);
      loop.disable();
      built.close();
      fleet = undefined;
      const run: LoopbackRun = {
        allReadyAfter,
        halfReadyAfter: half,
        cpuMs: (used.user + used.system) / 1000,
        dials: dials - dialsAtBegin,
        loopDelayP99: loop.percentile(99) / 1e6,
      };
      return { run };
    }
  }
}

answerIpc(handle, () => {
  fleet?.close();
  process.exit(0);
});
