/**
 * Loopback reality check: many redialer-managed HTTP/2 connections, then as many plain grpc-js
 * channels, to one real grpc-js server (in a child process) that restarts. Measures the time from the
 * server's return until every connection is READY again, and the client process's CPU meanwhile.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Channel, connectivityState, credentials } from '@grpc/grpc-js';
import { ConnectionManager } from '../../src/connection-manager.js';
import { http2Connector } from './http2-connector.js';

export interface LoopbackFigure {
  readonly subject: string;
  readonly connections: number;
  /** ms the server was down. */
  readonly downtime: number;
  /** ms from the server's return until the last connection was READY. */
  readonly allReadyAfter: number;
  /** ms from the server's return until half were READY. */
  readonly halfReadyAfter: number;
  /** Client-process CPU (user + system) from the restart until all READY, ms. */
  readonly cpuMs: number;
}

interface Reply {
  ok: boolean;
  port: number;
  error?: string;
}

class ServerProcess {
  readonly #child: ChildProcess;

  constructor() {
    this.#child = fork(fileURLToPath(new URL('./server-process.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

async function measure(subject: string, server: ServerProcess, port: number, connections: number, downtime: number, fleet: Fleet): Promise<LoopbackFigure> {
  await until(() => fleet.readyCount() === connections, 60_000, `${subject}: first connections`);
  // Stay up past redialer's minUptime (5 s), so that the loss resets the backoff as a long-lived connection's would.
  await sleep(6000);
  const cpu = process.cpuUsage();
  await server.stop();
  await until(() => fleet.readyCount() === 0, 30_000, `${subject}: connections to drop`);
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
    180_000,
    `${subject}: reconnection`,
  );
  const allReadyAfter = performance.now() - up;
  const used = process.cpuUsage(cpu);
  fleet.close();
  return { subject, connections, downtime, allReadyAfter, halfReadyAfter: half, cpuMs: (used.user + used.system) / 1000 };
}

function redialerFleet(authority: string, connections: number): Fleet {
  let ready = 0;
  const managers = Array.from({ length: connections }, () => {
    const m = new ConnectionManager({ connector: http2Connector(authority) });
    let isReady = false;
    m.state$.subscribe((s) => {
      const now = s.state === 'READY';
      if (now !== isReady) ready += now ? 1 : -1;
      isReady = now;
    });
    m.connect();
    return m;
  });
  return {
    readyCount: () => ready,
    close: () => {
      for (const m of managers) m.shutdown();
    },
  };
}

function grpcFleet(target: string, connections: number): Fleet {
  let ready = 0;
  let closed = false;
  // A separate subchannel pool per channel, so that each channel owns one connection.
  const channels = Array.from({ length: connections }, () => new Channel(target, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
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

export async function runLoopback({ connections, downtime }: { connections: number; downtime: number }): Promise<LoopbackFigure[]> {
  const server = new ServerProcess();
  try {
    const port = await server.start(0);
    const authority = `http://127.0.0.1:${String(port)}`;
    const figures: LoopbackFigure[] = [];
    figures.push(await measure('redialer + HTTP/2 connector', server, port, connections, downtime, redialerFleet(authority, connections)));
    await sleep(500);
    figures.push(await measure('plain @grpc/grpc-js channels', server, port, connections, downtime, grpcFleet(`127.0.0.1:${String(port)}`, connections)));
    return figures;
  } finally {
    server.close();
  }
}
