/**
 * Loopback reality check through the real adapters: many connections to one real grpc-js server (in
 * a child process) that restarts, once through redialer's `http2Connector`, once through
 * `ManagedChannel`, and once as plain grpc-js channels. Measures the time from the server's return
 * until every connection is READY again, the client process's CPU per reconnected connection, and the
 * client's event-loop delay (p99) from the restart until all are READY. Each subject's fleets live in
 * a client process of their own (`client-process.ts`).
 *
 * Two kinds of run, since the figures need different conditions:
 * - **Together** (CPU): every subject's fleet goes through the same outage of the same server at the
 *   same time, each in its own process. CPU time is counted per process, so running side by side does
 *   not mix the subjects' figures, and whatever the machine does meanwhile (another tenant, the
 *   kernel's TIME_WAIT sockets, the server's state) weighs on all of them alike. The figure of record
 *   is each subject's CPU divided by plain grpc-js's in the same round. As a check of the method, two
 *   fleets of the same subject side by side at 1,000 connections: plain grpc-js against plain grpc-js
 *   gave per-round ratios of 0.89–1.27, with medians of 0.98 and 0.99 in series of eight and ten
 *   rounds; ManagedChannel against ManagedChannel 0.95–1.09, median 1.04, in eight. A median within
 *   about 4 % of 1 is parity. Taking turns, one subject's per-round ratios had spread from 0.56× to
 *   1.47×.
 * - **Alone** (time to READY, event-loop delay): one subject at a time, in turn, each first, second
 *   and last once, since a subject sharing the cores with the others would be late for their sake.
 * @module
 */
import { IpcChild, type Reply } from './ipc-child.js';
import { sleep } from '../support/wait.js';

/** One fleet, one run. */
export interface LoopbackRun {
  /** ms from the server's return until half the connections were READY. */
  readonly halfReadyAfter: number;
  /** ms from the server's return until the last connection was READY. */
  readonly allReadyAfter: number;
  /** Client-process CPU (user + system, all threads) from the restart until all READY, ms. */
  readonly cpuMs: number;
  /** The client's event-loop delay, 99th percentile, from the restart until all READY, ms. */
  readonly loopDelayP99: number;
  /** TCP connections the client opened from the restart until all READY (failed dials and reconnections). */
  readonly dials: number;
}

/** A fleet's figures over several runs. */
export interface LoopbackFigure {
  readonly subject: string;
  readonly connections: number;
  /** ms the server was down. */
  readonly downtime: number;
  /** The unreported rounds (all subjects together) before the measured runs. */
  readonly warmUp: { readonly rounds: number; readonly connections: number };
  /** Runs with this subject alone, for the times and the event-loop delay. */
  readonly runs: readonly LoopbackRun[];
  /** Rounds with every subject at once, for CPU: the same index is the same round for every subject. */
  readonly together: readonly LoopbackRun[];
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
    // --expose-gc: the client collects its garbage before each measured storm (see `client-process.ts`).
    this.#child = new IpcChild(new URL('./client-process.js', import.meta.url), [subject], ['--expose-gc']);
  }

  ask(message: object): Promise<Reply> {
    return this.#child.ask(message);
  }

  close(): void {
    this.#child.close();
  }
}

/**
 * One outage for the fleets of `clients`, all at once: each in turn builds `connections` connections
 * and waits until they are READY; the server stops, stays down `downtime` ms, and starts again; each
 * fleet's figures are taken from just before the stop until its last connection is READY again.
 */
async function storm(
  server: ServerProcess,
  port: number,
  clients: readonly ClientProcess[],
  connections: number,
  downtime: number,
): Promise<LoopbackRun[]> {
  const all = (message: object): Promise<Reply[]> => Promise.all(clients.map((client) => client.ask(message)));
  // Fleets are built one after another: 15,000 channels dialling the server in the same instant
  // overflow its accept queue, and dials that fail there back off for longer than a run can wait.
  for (const client of clients) await client.ask({ cmd: 'up', port, connections });
  // Stay up past redialer's minUptime (5 s), so that the loss resets the backoff as a long-lived connection's would.
  await sleep(6000);
  await all({ cmd: 'begin' });
  await server.stop();
  await all({ cmd: 'dropped' });
  await sleep(downtime);
  await server.start(port);
  return (await all({ cmd: 'return' })).map((answer) => answer['run'] as LoopbackRun);
}

/** `items` in each of its rotations: each item comes first, second… and last once. */
function rotations<T>(items: readonly T[]): T[][] {
  return items.map((_, i) => [...items.slice(i), ...items.slice(0, i)]);
}

/** The subjects: redialer's two adapters, and plain grpc-js channels for comparison. */
const SUBJECTS = ['redialer http2Connector', 'redialer ManagedChannel', 'plain @grpc/grpc-js channels'] as const;

/** Connections of each subject's fleet in the warm-up rounds, which run before the measured ones. */
const WARM_UP_CONNECTIONS = 1000;

/**
 * Warm-up rounds (every subject at once). V8 optimizes the code of a reconnect storm over several
 * storms: with one round of 500 connections, the measured runs still spent 150–400 ms each (a third of
 * a 1,000-connection storm's CPU) compiling, on both sides, falling from run to run
 * (`node --trace-opt`). After three rounds of 1,000 it is down to 40–100 ms, and the runs measure
 * reconnecting rather than compiling.
 */
const WARM_UP_ROUNDS = 3;

/** Options of {@link runLoopback}. */
export interface LoopbackOptions {
  /** Fleet sizes, each run for every subject. */
  readonly sizes: readonly number[];
  /** ms the server stays down. */
  readonly downtime: number;
  /** Rounds per size with every subject at once, for CPU (median and range are reported). */
  readonly rounds: number;
  /** Runs per subject and size alone, for the times and the event-loop delay. */
  readonly aloneRuns: number;
  /** Progress lines. */
  readonly say?: (line: string) => void;
  /** Only the subjects whose name contains this text (all when undefined). */
  readonly only?: string;
}

export async function runLoopback({
  sizes,
  downtime,
  rounds,
  aloneRuns,
  say,
  only,
}: LoopbackOptions): Promise<LoopbackFigure[]> {
  const server = new ServerProcess();
  const subjects = SUBJECTS.filter((name) => only === undefined || name.includes(only)).map(
    (name) => new ClientProcess(name),
  );
  const names = subjects.map((client) => client.subject).join(', ');
  try {
    const port = await server.start(0);
    const figures: LoopbackFigure[] = [];
    // Discarded rounds first (see WARM_UP_ROUNDS), so that the measured runs do not pay for compiling a
    // subject's code.
    const warmUpConnections = Math.min(WARM_UP_CONNECTIONS, sizes[0] ?? WARM_UP_CONNECTIONS);
    for (let round = 0; round < WARM_UP_ROUNDS; round++) {
      say?.(
        `loopback: ${names} together, warm-up ${String(round + 1)}/${String(WARM_UP_ROUNDS)} with ${String(warmUpConnections)} connections each (not reported)`,
      );
      await storm(server, port, subjects, warmUpConnections, downtime);
      await sleep(500);
    }
    for (const connections of sizes) {
      const together = new Map<string, LoopbackRun[]>(subjects.map((client) => [client.subject, []]));
      for (let round = 0; round < rounds; round++) {
        say?.(
          `loopback: ${names} together, ${String(connections)} connections each, round ${String(round + 1)}/${String(rounds)}`,
        );
        const runs = await storm(server, port, subjects, connections, downtime);
        subjects.forEach((client, i) => {
          const run = runs[i];
          if (run !== undefined) together.get(client.subject)?.push(run);
        });
        await sleep(500);
      }
      // Alone, in turn: a storm leaves its traces in the shared server and in the kernel (thousands of
      // TIME_WAIT sockets on the loopback for a minute), and the subject measured right after
      // http2Connector once cost 1.2–1.4× what it cost after plain grpc-js channels. In rotation, each
      // subject comes first, second and last once (three runs cannot also balance which subject goes
      // right before which: that takes all six orders).
      const alone = new Map<string, LoopbackRun[]>(subjects.map((client) => [client.subject, []]));
      const orders = rotations(subjects);
      for (let run = 0; run < aloneRuns; run++) {
        for (const client of orders[run % orders.length] ?? subjects) {
          say?.(
            `loopback: ${client.subject} alone, ${String(connections)} connections, run ${String(run + 1)}/${String(aloneRuns)}`,
          );
          const [figure] = await storm(server, port, [client], connections, downtime);
          if (figure !== undefined) alone.get(client.subject)?.push(figure);
          await sleep(500);
        }
      }
      for (const client of subjects)
        figures.push({
          subject: client.subject,
          connections,
          downtime,
          warmUp: { rounds: WARM_UP_ROUNDS, connections: warmUpConnections },
          runs: alone.get(client.subject) ?? [],
          together: together.get(client.subject) ?? [],
        });
    }
    return figures;
  } finally {
    for (const client of subjects) client.close();
    server.close();
  }
}

/** Options of {@link runLoopbackPair}. */
export interface LoopbackPairOptions {
  /** The subject measured, and the one it is divided by (names from the subjects of {@link runLoopback}). */
  readonly subjects: readonly [string, string];
  /** Connections of each fleet. */
  readonly connections: number;
  /** ms the server stays down. */
  readonly downtime: number;
  /** Rounds in each of the two halves. */
  readonly rounds: number;
  /** Progress lines. */
  readonly say?: (line: string) => void;
}

/** The outcome of {@link runLoopbackPair}: per round, the first subject's CPU divided by the second's. */
export interface LoopbackPairResult {
  readonly subjects: readonly [string, string];
  readonly connections: number;
  readonly downtime: number;
  /** Rounds with the first subject in the first client process (forked first). */
  readonly firstHalf: readonly number[];
  /** Rounds with fresh client processes, the second subject's forked first. */
  readonly secondHalf: readonly number[];
}

/**
 * A longer check of two subjects side by side, for a difference too small for {@link runLoopback}'s
 * eight rounds: the same rounds as there, in two halves, each with fresh client processes and its own
 * warm-up, the second with the processes in the other order. Were the process forked first (or
 * second) to cost more for where the system places it, the two halves would show it, and their union
 * cancels it.
 */
export async function runLoopbackPair({
  subjects,
  connections,
  downtime,
  rounds,
  say,
}: LoopbackPairOptions): Promise<LoopbackPairResult> {
  const [measured, base] = subjects;
  for (const name of subjects) {
    if (!(SUBJECTS as readonly string[]).includes(name)) throw new Error(`unknown loopback subject ${name}`);
  }
  const server = new ServerProcess();
  try {
    const port = await server.start(0);
    const half = async (order: readonly string[], label: string): Promise<number[]> => {
      const clients = order.map((name) => new ClientProcess(name));
      try {
        for (let round = 0; round < WARM_UP_ROUNDS; round++) {
          say?.(`loopback pair, ${label}: warm-up ${String(round + 1)}/${String(WARM_UP_ROUNDS)} (not reported)`);
          await storm(server, port, clients, WARM_UP_CONNECTIONS, downtime);
          await sleep(500);
        }
        const ratios: number[] = [];
        for (let round = 0; round < rounds; round++) {
          const runs = await storm(server, port, clients, connections, downtime);
          const cpu = (name: string): number => runs[order.indexOf(name)]?.cpuMs ?? NaN;
          ratios.push(cpu(measured) / cpu(base));
          say?.(
            `loopback pair, ${label}: round ${String(round + 1)}/${String(rounds)}, ${measured} ÷ ${base} = ${(ratios.at(-1) ?? NaN).toFixed(3)}`,
          );
          await sleep(500);
        }
        return ratios;
      } finally {
        for (const client of clients) client.close();
      }
    };
    const firstHalf = await half([measured, base], 'first half');
    const secondHalf = await half([base, measured], 'second half, processes swapped');
    return { subjects, connections, downtime, firstHalf, secondHalf };
  } finally {
    server.close();
  }
}
