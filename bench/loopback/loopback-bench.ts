/**
 * Loopback reality check through the real adapters: many connections to one real grpc-js server (in
 * a child process) that restarts, once through redialer's `http2Connector`, once through
 * `ManagedChannel`, and once as plain grpc-js channels. Measures the time from the server's return
 * until every connection is READY again, the client process's CPU per reconnected connection, and the
 * client's event-loop delay (p99) from the restart until all are READY. Each size runs several times
 * and reports the median and the range. Each subject's fleets live in a client process of their own
 * (`client-process.ts`), and the subjects take turns, in a different order each round.
 */
import { IpcChild } from './ipc-child.js';

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

/** The grpc-js server, in a process of its own (`server-process.ts`). */
class ServerProcess {
  readonly #child = new IpcChild(new URL('./server-process.js', import.meta.url));

  async start(port: number): Promise<number> {
    return (await this.#child.ask({ cmd: 'start', port }))['port'] as number;
  }

  async stop(): Promise<void> {
    await this.#child.ask({ cmd: 'stop' });
  }

  close(): void {
    this.#child.close();
  }
}

/** One subject's client side, in a process of its own (`client-process.ts`). */
class ClientProcess {
  readonly #child: IpcChild;

  constructor(readonly subject: string) {
    this.#child = new IpcChild(new URL('./client-process.js', import.meta.url), [subject]);
  }

  /** One run: a fleet that is READY, an outage of `downtime` ms, and the reconnection. */
  async measure(server: ServerProcess, port: number, connections: number, downtime: number): Promise<LoopbackRun> {
    await this.#child.ask({ cmd: 'up', port, connections });
    // Stay up past redialer's minUptime (5 s), so that the loss resets the backoff as a long-lived connection's would.
    await sleep(6000);
    await this.#child.ask({ cmd: 'begin' });
    await server.stop();
    await this.#child.ask({ cmd: 'dropped' });
    await sleep(downtime);
    await server.start(port);
    return (await this.#child.ask({ cmd: 'return' }))['run'] as LoopbackRun;
  }

  close(): void {
    this.#child.close();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Every order of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((first, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [first, ...rest]),
  );
}

/** The subjects: redialer's two adapters, and plain grpc-js channels for comparison. */
const SUBJECTS = ['redialer http2Connector', 'redialer ManagedChannel', 'plain @grpc/grpc-js channels'] as const;

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
  const subjects = SUBJECTS.filter((name) => only === undefined || name.includes(only)).map(
    (name) => new ClientProcess(name),
  );
  try {
    const port = await server.start(0);
    const figures: LoopbackFigure[] = [];
    // Discarded rounds first (see WARM_UP_ROUNDS), subjects taking turns, so that the measured runs do
    // not pay for compiling a subject's code.
    const warmUpConnections = Math.min(WARM_UP_CONNECTIONS, sizes[0] ?? WARM_UP_CONNECTIONS);
    for (let round = 0; round < WARM_UP_ROUNDS; round++) {
      for (const client of subjects) {
        say?.(
          `loopback: ${client.subject}, warm-up ${String(round + 1)}/${String(WARM_UP_ROUNDS)} with ${String(warmUpConnections)} connections (not reported)`,
        );
        await client.measure(server, port, warmUpConnections, downtime);
        await sleep(500);
      }
    }
    for (const connections of sizes) {
      const results = new Map<string, LoopbackRun[]>(subjects.map((client) => [client.subject, []]));
      // Subjects take turns within each round, so that a drift of the machine's load hits all alike, in
      // every order in turn: over as many rounds as there are orders (six for three subjects), each
      // subject is measured right after each other one equally often. A storm leaves its traces in the
      // shared server and in the kernel (thousands of TIME_WAIT sockets on the loopback for a minute):
      // in a fixed order at 1,000 connections, the subject measured right after http2Connector cost
      // 1.2–1.4× what it cost after plain grpc-js channels, whichever subject it was.
      const orders = permutations(subjects);
      for (let run = 0; run < runs; run++) {
        for (const client of orders[run % orders.length] ?? subjects) {
          say?.(
            `loopback: ${client.subject}, ${String(connections)} connections, run ${String(run + 1)}/${String(runs)}`,
          );
          results.get(client.subject)?.push(await client.measure(server, port, connections, downtime));
          await sleep(500);
        }
      }
      for (const client of subjects)
        figures.push({
          subject: client.subject,
          connections,
          downtime,
          warmUp: { rounds: WARM_UP_ROUNDS, connections: warmUpConnections },
          runs: results.get(client.subject) ?? [],
        });
    }
    return figures;
  } finally {
    for (const client of subjects) client.close();
    server.close();
  }
}
