/**
 * Reconnecting WebSockets at scale, side by side: a fleet of sockets of each of redialer's
 * `ReconnectingWebSocket`, partysocket 1.3 and reconnecting-websocket 4.4 against one `ws` server on
 * 127.0.0.1 that drops them all at once and stays down a while. Every library gets `ws` as its
 * WebSocket class, so the transport is the same, and its own defaults otherwise, since those are what
 * its users run (see {@link SUBJECT_DEFAULTS}), with one exception: reconnecting-websocket draws its
 * first wait once per process, uniform in 1–5 s, and every socket of the process shares the draw, so
 * that one draw decides its figures for a whole run (draws of 1.6 s, 4.0 s and 4.1 s gave it 2.7 s,
 * 5.2 s and 0.8 s from the server's return to all open). The bench pins it at the draw's mean, 3 s,
 * which is partysocket's fixed default (`--rws-min-delay drawn` leaves it to the draw).
 *
 * Method. The server (`server-process.ts`) and each subject's fleet (`client-process.ts`) run in
 * processes of their own, so that a subject's CPU, heap and event-loop delay are its own. One run:
 * each fleet opens and stays open past minUptime (5 s in all three), so that the drop is the loss of
 * long-lived connections and every backoff starts afresh; the server stops listening and terminates
 * every socket (no close frame: the network's way of ending a connection); it stays down `downtime`
 * ms, refusing every attempt, then listens again on the same port. The default 4 s is longer than
 * every library's first wait after a loss (1 s, 3 s, 3 s), so that every fleet retries against the
 * closed port and backs off at least once. Figures:
 * - retained heap per socket while open: heap used after a full collection with the fleet open, less
 *   the same before the fleet was made, per socket;
 * - retained heap per socket while waiting to reconnect: the same with the server down, once the
 *   fleet has dialled once per socket since the drop and no socket has an attempt under way, so that
 *   every socket waits to retry after a refused attempt (the state of a long outage); and as soon as
 *   the fleet is dropped, before its first retry;
 * - CPU per reconnect: the client process's CPU (all threads) from just before the drop until every
 *   socket is open again, divided by the sockets; it includes the refused attempts that each library's
 *   schedule makes (the table also gives CPU per dial);
 * - event-loop delay p99 from the drop until every socket is open again, beyond the 10 ms sampling
 *   interval of `monitorEventLoopDelay`;
 * - time from the server's return until every socket is open.
 *
 * Three kinds of round, after one unreported round with every fleet, so that the measured rounds do
 * not pay for compiling the code of a reconnect storm:
 * - **heap**: every fleet through the same outage at once, and a plain `ws` fleet (no reconnecting) as
 *   the transport's share. The server stays down until every fleet has settled (a fleet whose sockets
 *   all retry in the same instant makes 2,000 attempts in about a second, and a collection amid them
 *   would count their sockets), at most {@link HEAP_DOWNTIME}; the collections stay out of the other
 *   rounds, whose figures they would stall.
 * - **together** (CPU): every fleet through the same outage at once, as in the loopback bench
 *   (`bench/loopback/loopback-bench.ts`): CPU is counted per process, so running side by side does not
 *   mix the subjects' figures, and whatever else the machine does weighs on all of them alike; ratios
 *   are taken round by round.
 * - **alone** (time to open, event-loop delay): one fleet at a time, in rotation, so that each comes
 *   first, second and last once: two fleets sharing two cores would be late for each other's sake.
 * @module
 */
import { IpcChild, type Reply } from '../loopback/ipc-child.js';
import { WEBSOCKET_DEFAULTS } from '../../src/adapters/websocket/index.js';
import { sleep } from '../support/wait.js';

/** The libraries compared; the first is redialer. */
export const SUBJECTS = ['redialer', 'partysocket', 'reconnecting-websocket'] as const;
export type Subject = (typeof SUBJECTS)[number];

const d = WEBSOCKET_DEFAULTS;
const s = (ms: number): string => `${String(ms / 1000)} s`;

/** The defaults each library runs with here, from its source. */
export const SUBJECT_DEFAULTS: Readonly<Record<Subject, string>> = {
  redialer: `first wait after the loss of a connection that lived minUptime ${s(d.minReconnectionDelay)} (backoffAfterLoss), then ×${String(d.reconnectionDelayGrowFactor)} per failure with ±${String(d.reconnectionDelayJitter * 100)} % jitter (one draw per backoff episode), cap ${s(d.maxReconnectionDelay)}; minUptime ${s(d.minUptime)}; connectionTimeout ${s(d.connectionTimeout)}; heartbeat with ws: a protocol ping every ${s(d.heartbeatInterval)}, dead after ${s(d.heartbeatInterval + d.heartbeatTimeout)} of silence`,
  partysocket:
    'first wait after a loss 3 s, then ×1.3 per failure, no jitter, cap 10 s; minUptime 5 s; connectionTimeout 4 s; no heartbeat',
  'reconnecting-websocket':
    'first wait after a loss minReconnectionDelay, by default 1000 + Math.random() × 4000 ms drawn once per process (module load) and pinned here (see the module comment), then ×1.3 per failure, no jitter, cap 10 s; minUptime 5 s; connectionTimeout 4 s; no heartbeat',
};

/** One fleet's figures from one outage, as the client process measures them. */
export interface WebSocketRun {
  /** ms from the server's return until the last socket was open. */
  readonly allOpenAfter: number;
  /** ms from the server's return until half the sockets were open. */
  readonly halfOpenAfter: number;
  /** ms from the start of measuring (just before the drop) until no socket was open. */
  readonly droppedAfter: number;
  /** Client CPU (user + system, all threads) from just before the drop until all open, ms, without `gcCpuMs`. */
  readonly cpuMs: number;
  /** `cpuMs` per socket. */
  readonly cpuMsPerReconnect: number;
  /** CPU of the collections for the heap figures (heap rounds), ms, left out of `cpuMs`. */
  readonly gcCpuMs: number;
  /** Event-loop delay (the histogram of `monitorEventLoopDelay`, resolution 10 ms), 99th percentile, ms. */
  readonly loopDelayP99: number;
  readonly loopDelayMax: number;
  /** TCP connections the client opened from just before the drop until all open (attempts). */
  readonly dials: number;
  /** Exceptions that escaped the library in the run (counted, not fatal). */
  readonly uncaught: readonly string[];
}

/**
 * The kinds of round: `heap`, every fleet at once, for the heap figures, with the server down until
 * they are taken; `together`, every fleet at once, for CPU; `alone`, one fleet, for the times and the
 * event-loop delay.
 */
export type RoundKind = 'heap' | 'together' | 'alone';

/** One fleet, one round. */
export interface RoundFigure extends WebSocketRun {
  readonly subject: Subject;
  readonly kind: RoundKind;
  readonly round: number;
  /** ms from creating the fleet until every socket was open, the first time. */
  readonly firstOpenAfter: number;
  /** Retained heap per open socket, bytes. */
  readonly heapOpenPerSocket: number;
  /** Retained heap per socket right after the drop, before any retry, bytes (heap rounds). */
  readonly heapDroppedPerSocket?: number;
  /** TCP dials from the drop until the just-dropped heap was taken (0 unless a retry came first). */
  readonly dialsBeforeDroppedHeap?: number;
  /** Retained heap per socket waiting to reconnect after a refused attempt, bytes (heap rounds). */
  readonly heapWaitingPerSocket?: number;
  /** Sockets with an attempt under way when the waiting heap was taken. */
  readonly attemptingWhileWaiting?: number;
  /** Sockets open when the waiting heap was taken (0: the server was down). */
  readonly openWhileWaiting?: number;
  /** TCP dials from the drop until the waiting heap was taken. */
  readonly dialsBeforeWaiting?: number;
  /** When the waiting heap was taken, ms after the start of measuring (just before the drop). */
  readonly waitingHeapAt?: number;
  /** WebSocket connections the server accepted for this fleet from the drop until all were open. */
  readonly reconnectionsAccepted: number;
}

export interface WebSocketBenchResult {
  readonly sockets: number;
  /** ms the server stayed down. */
  readonly downtime: number;
  /** ms the fleets stayed open before the drop. */
  readonly uptime: number;
  /** ms the server stayed down at most in the heap rounds, for the fleets to settle. */
  readonly heapDowntime: number;
  readonly warmUpRounds: number;
  readonly defaults: Readonly<Record<Subject, string>>;
  /** reconnecting-websocket's minReconnectionDelay: the setting, and the first wait it gave, ms. */
  readonly reconnectingWebSocketMinDelay: { readonly setting: number | 'drawn'; readonly firstWait: number };
  /** Retained heap per open plain `ws` socket, bytes, one per heap round. */
  readonly wsHeapOpenPerSocket: readonly number[];
  readonly rounds: readonly RoundFigure[];
}

/**
 * ms a child may take to answer: more than any step takes (the clients bound their own waits to
 * 120 s at most), so that a child that died or hangs fails the run instead of stalling it.
 */
const ANSWER_LIMIT = 180_000;

/** `child`'s answer to `message`, or a rejection after {@link ANSWER_LIMIT}. */
function askWithin(child: IpcChild, message: object, who: string): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${who}: no answer to ${JSON.stringify(message)} within ${String(ANSWER_LIMIT)} ms`));
    }, ANSWER_LIMIT);
  });
  return Promise.race([child.ask(message), late]).finally(() => {
    clearTimeout(timer);
  });
}

/** The `ws` server, in a process of its own (`server-process.ts`). */
class ServerProcess {
  readonly #child = new IpcChild(new URL('./server-process.js', import.meta.url));

  #ask(message: object): Promise<Reply> {
    return askWithin(this.#child, message, 'the ws server');
  }

  async listen(port: number): Promise<number> {
    return (await this.#ask({ cmd: 'listen', port }))['port'] as number;
  }

  async drop(): Promise<void> {
    await this.#ask({ cmd: 'drop' });
  }

  async counts(): Promise<{ accepted: Readonly<Record<string, number>>; open: number }> {
    const reply = await this.#ask({ cmd: 'counts' });
    return { accepted: reply['accepted'] as Record<string, number>, open: reply['open'] as number };
  }

  close(): void {
    this.#child.close();
  }
}

/** One fleet's client side, in a process of its own (`client-process.ts`). */
class ClientProcess {
  readonly #child: IpcChild;

  constructor(
    readonly subject: Subject | 'ws',
    rwsMinDelay: number | 'drawn',
  ) {
    this.#child = new IpcChild(
      new URL('./client-process.js', import.meta.url),
      [subject, String(rwsMinDelay)],
      ['--expose-gc'],
    );
  }

  ask(message: object): Promise<Reply> {
    return askWithin(this.#child, message, `the ${this.subject} client`);
  }

  close(): void {
    this.#child.close();
  }
}

/** Options of {@link runWebSocketBench}. */
export interface WebSocketBenchOptions {
  /** Sockets in each fleet. */
  readonly sockets: number;
  /** ms the server stays down. */
  readonly downtime: number;
  /** Measured rounds of each kind. */
  readonly rounds: number;
  /** reconnecting-websocket's minReconnectionDelay: pinned (ms), or its own per-process draw. */
  readonly rwsMinDelay: number | 'drawn';
  readonly say?: (line: string) => void;
}

/** ms the fleets stay open before the drop: past the 5 s minUptime of all three libraries. */
const UPTIME = 5500;
/**
 * ms the server stays down at most in a heap round: the fleets' first waits after a loss are up to
 * 3 s, and a fleet whose sockets all retry in the same instant takes another second or two to make
 * 2,000 attempts with two more fleets on two cores.
 */
const HEAP_DOWNTIME = 10_000;
const WARM_UP_ROUNDS = 1;

/** `items` in each of its rotations: each item comes first, second… and last once. */
function rotations<T>(items: readonly T[]): T[][] {
  return items.map((_, i) => [...items.slice(i), ...items.slice(0, i)]);
}

export async function runWebSocketBench({
  sockets,
  downtime,
  rounds,
  rwsMinDelay,
  say,
}: WebSocketBenchOptions): Promise<WebSocketBenchResult> {
  const server = new ServerProcess();
  const clients = SUBJECTS.map((subject) => new ClientProcess(subject, rwsMinDelay));
  const reference = new ClientProcess('ws', rwsMinDelay);
  try {
    const port = await server.listen(0);
    const url = (subject: string): string => `ws://127.0.0.1:${String(port)}/${subject}`;

    /** Until the server holds no socket: the last run's fleets have closed. */
    const drained = async (): Promise<void> => {
      const end = performance.now() + 15_000;
      while ((await server.counts()).open > 0) {
        if (performance.now() > end) throw new Error('the server still holds sockets 15 s after the fleets closed');
        await sleep(50);
      }
    };

    /** Plain `ws` sockets: the heap of the transport alone. */
    const wsHeap = async (): Promise<number> => {
      await reference.ask({ cmd: 'up', url: url('ws'), sockets });
      const bytes = (await reference.ask({ cmd: 'heap-open' }))['bytesPerSocket'] as number;
      await reference.ask({ cmd: 'close' });
      await drained();
      return bytes;
    };

    let rwsFirstWait = NaN;
    /**
     * One outage for `fleet` (all at once). A `heap` round takes the heap figures while the server is
     * down and keeps it down until they are taken; the others keep it down `downtime` ms and take no
     * collection between the drop and the return.
     */
    const storm = async (fleet: readonly ClientProcess[], kind: RoundKind, round: number): Promise<RoundFigure[]> => {
      const all = (message: object): Promise<Reply[]> => Promise.all(fleet.map((client) => client.ask(message)));
      // One fleet after another: they are not measured opening, and 6,000 handshakes at once would
      // only test the server.
      const firstOpenAfter: number[] = [];
      for (const client of fleet) {
        const reply = await client.ask({ cmd: 'up', url: url(client.subject), sockets });
        firstOpenAfter.push(reply['openAfter'] as number);
        if (client.subject === 'reconnecting-websocket') rwsFirstWait = reply['minReconnectionDelay'] as number;
      }
      await sleep(UPTIME);
      const heapOpen = await all({ cmd: 'heap-open' });
      const acceptedBefore = (await server.counts()).accepted;
      await all({ cmd: 'begin' });
      await server.drop();
      const droppedAt = performance.now();
      const dropped = await all({ cmd: 'dropped', heap: kind === 'heap' });
      let waiting: Reply[] | undefined;
      if (kind === 'heap') {
        waiting = await all({
          cmd: 'heap-waiting',
          settleMs: Math.max(0, droppedAt + HEAP_DOWNTIME - performance.now()),
        });
      } else {
        await sleep(droppedAt + downtime - performance.now());
      }
      await server.listen(port);
      const runs = (await all({ cmd: 'return' })).map((reply) => reply['run'] as WebSocketRun);
      const acceptedAfter = (await server.counts()).accepted;
      await drained();
      return fleet.map((client, i) => {
        const subject = client.subject as Subject;
        const run = runs[i];
        if (run === undefined) throw new Error(`${subject}: no figures`);
        const justDropped = dropped[i];
        const w = waiting?.[i];
        return {
          subject,
          kind,
          round,
          firstOpenAfter: firstOpenAfter[i] ?? NaN,
          heapOpenPerSocket: heapOpen[i]?.['bytesPerSocket'] as number,
          ...(justDropped?.['bytesPerSocket'] === undefined
            ? {}
            : {
                heapDroppedPerSocket: justDropped['bytesPerSocket'] as number,
                dialsBeforeDroppedHeap: justDropped['dials'] as number,
              }),
          ...(w === undefined
            ? {}
            : {
                heapWaitingPerSocket: w['bytesPerSocket'] as number,
                attemptingWhileWaiting: w['attempting'] as number,
                openWhileWaiting: w['open'] as number,
                dialsBeforeWaiting: w['dials'] as number,
                waitingHeapAt: w['after'] as number,
              }),
          reconnectionsAccepted: (acceptedAfter[subject] ?? 0) - (acceptedBefore[subject] ?? 0),
          ...run,
        };
      });
    };

    const names = SUBJECTS.join(', ');
    const figures: RoundFigure[] = [];
    const wsHeapOpenPerSocket: number[] = [];
    for (let round = 0; round < WARM_UP_ROUNDS; round++) {
      say?.(`websocket: ${names} together, ${String(sockets)} sockets each, warm-up (not reported)`);
      await wsHeap();
      await storm(clients, 'together', -1);
    }
    // Together, for heap and then for CPU; the build order rotates, so that no fleet is always the one
    // open longest.
    const orders = rotations(clients);
    for (let round = 0; round < rounds; round++) {
      say?.(
        `websocket: ${names} together, heap, ${String(sockets)} sockets each, round ${String(round + 1)}/${String(rounds)}`,
      );
      wsHeapOpenPerSocket.push(await wsHeap());
      figures.push(...(await storm(orders[round % orders.length] ?? clients, 'heap', round)));
    }
    for (let round = 0; round < rounds; round++) {
      say?.(
        `websocket: ${names} together, CPU, ${String(sockets)} sockets each, round ${String(round + 1)}/${String(rounds)}`,
      );
      figures.push(...(await storm(orders[round % orders.length] ?? clients, 'together', round)));
    }
    // Alone, in rotation, for the times and the event-loop delay.
    for (let round = 0; round < rounds; round++) {
      for (const client of orders[round % orders.length] ?? clients) {
        say?.(
          `websocket: ${client.subject} alone, ${String(sockets)} sockets, round ${String(round + 1)}/${String(rounds)}`,
        );
        figures.push(...(await storm([client], 'alone', round)));
      }
    }
    return {
      sockets,
      downtime,
      uptime: UPTIME,
      heapDowntime: HEAP_DOWNTIME,
      warmUpRounds: WARM_UP_ROUNDS,
      defaults: SUBJECT_DEFAULTS,
      reconnectingWebSocketMinDelay: { setting: rwsMinDelay, firstWait: rwsFirstWait },
      wsHeapOpenPerSocket,
      rounds: figures,
    };
  } finally {
    for (const client of clients) client.close();
    reference.close();
    server.close();
  }
}
