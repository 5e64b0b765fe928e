/**
 * One subject's client side of the WebSocket bench, in a process of its own (started with
 * `--expose-gc`): a fleet of reconnecting WebSockets of one library (the first argument), each with
 * `ws` as its WebSocket class and the library's defaults otherwise, but for reconnecting-websocket's
 * first wait (the second argument). CPU, heap and event-loop delay are this process's, so they are
 * the subject's alone, whatever runs beside it.
 *
 * Messages from the parent, in this order for each run (each answered with `{ ok: true, … }`, or
 * `{ ok: false, error }`):
 * - `{ cmd: 'up', url, sockets }`: collects the garbage, notes the heap, opens the fleet and answers
 *   once every socket is open;
 * - `{ cmd: 'heap-open' }`: answers `{ bytesPerSocket }`, the heap retained per open socket;
 * - `{ cmd: 'begin' }`: collects the garbage and starts measuring (the parent then drops every socket);
 * - `{ cmd: 'dropped', heap }`: answers once no socket is open; with `heap`, collects at once and
 *   answers `{ bytesPerSocket, dials }`, the heap retained per socket just dropped, and the dials
 *   since `begin` (0 unless a retry came before the collection);
 * - `{ cmd: 'heap-waiting', settleMs }` (optional, while the server is down): once the fleet has
 *   dialled once per socket since `begin` and no socket has an attempt under way (or after
 *   `settleMs`), answers `{ bytesPerSocket, attempting, open, dials, after }`: the heap retained per
 *   socket waiting to reconnect, where the fleet stood, and when (ms from `begin`); the CPU of the
 *   collection and of the polling is left out of the run's;
 * - `{ cmd: 'return' }`: the server listens again: answers `{ run }` once every socket is open again,
 *   and closes the fleet;
 * - `{ cmd: 'close' }`: closes the fleet (after `up` alone, for the plain `ws` reference).
 */
import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { WebSocket as PartySocket } from 'partysocket';
import ReconnectingWebSocketModule from 'reconnecting-websocket';
import WS from 'ws';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import type { WebSocketRun } from './websocket-bench.js';
import { sleep, until } from '../support/wait.js';
import { answerIpc } from '../loopback/ipc-child.js';

// The package's CommonJS entry exports the class itself; its typings describe an ES default export.
const RWS = ReconnectingWebSocketModule as unknown as typeof ReconnectingWebSocketModule.default;

/** What the bench needs of one socket: its events, whether it is attempting, how to end it. */
interface Socket {
  on(type: 'open' | 'close', listener: () => void): void;
  /** An attempt is under way (not open, not waiting). */
  attempting(): boolean;
  close(): void;
}

/** The peers keep the current `ws` socket in `_ws`. */
interface PeerInternals {
  readonly _ws?: { readonly readyState: number };
}

/** A peer's socket (partysocket and reconnecting-websocket have the same surface here). */
interface PeerSocket {
  addEventListener(type: 'open' | 'close', listener: () => void): void;
  close(): void;
}

function peer(socket: PeerSocket): Socket {
  return {
    on: (type, listener) => {
      socket.addEventListener(type, listener);
    },
    attempting: () => (socket as PeerInternals)._ws?.readyState === WS.CONNECTING,
    close: () => {
      socket.close();
    },
  };
}

/** One socket of `subject` to `url`, with each library's defaults and `ws` as the WebSocket class. */
function openSocket(subject: string, url: string): Socket {
  switch (subject) {
    case 'redialer': {
      const socket = new ReconnectingWebSocket(url, [], { WebSocket: WS });
      return {
        on: (type, listener) => {
          socket.addEventListener(type, listener);
        },
        attempting: () => socket.snapshot.state === 'CONNECTING',
        close: () => {
          socket.close();
        },
      };
    }
    case 'partysocket':
      return peer(new PartySocket(url, [], { WebSocket: WS }));
    case 'reconnecting-websocket':
      return peer(new RWS(url, [], { WebSocket: WS, ...rwsOptions }));
    case 'ws': {
      // The reference: a plain socket, which never reconnects.
      const socket = new WS(url);
      socket.on('error', () => undefined);
      return {
        on: (type, listener) => {
          socket.on(type, listener);
        },
        attempting: () => socket.readyState === WS.CONNECTING,
        close: () => {
          socket.close();
        },
      };
    }
  }
  throw new Error(`unknown WebSocket subject ${subject}`);
}

/**
 * reconnecting-websocket draws its default minReconnectionDelay once, when its module loads
 * (`1000 + Math.random() * 4000`), for every socket of the process. The parent passes a value in the
 * second argument to pin it (the bench's default: see `websocket-bench.ts`), or `drawn` for the draw.
 */
const rwsMinDelayArgument = process.argv[3] ?? 'drawn';
const rwsOptions = rwsMinDelayArgument === 'drawn' ? {} : { minReconnectionDelay: Number(rwsMinDelayArgument) };

/** The first wait after a loss that reconnecting-websocket's sockets use here, read off a closed instance. */
function rwsFirstWait(): number | undefined {
  if (subject !== 'reconnecting-websocket') return undefined;
  const probe = new RWS('ws://127.0.0.1:9', [], { WebSocket: WS, startClosed: true, ...rwsOptions }) as unknown as {
    _retryCount: number;
    _getNextDelay(): number;
  };
  probe._retryCount = 1;
  return probe._getNextDelay();
}

interface Fleet {
  readonly sockets: readonly Socket[];
  open(): number;
  close(): void;
}

function openFleet(url: string, count: number): Fleet {
  let open = 0;
  const sockets = Array.from({ length: count }, () => {
    const socket = openSocket(subject, url);
    let isOpen = false;
    socket.on('open', () => {
      if (!isOpen) open++;
      isOpen = true;
    });
    socket.on('close', () => {
      if (isOpen) open--;
      isOpen = false;
    });
    return socket;
  });
  return {
    sockets,
    open: () => open,
    close: () => {
      for (const socket of sockets) socket.close();
    },
  };
}

type Message =
  | { readonly cmd: 'up'; readonly url: string; readonly sockets: number }
  | { readonly cmd: 'heap-open' }
  | { readonly cmd: 'begin' }
  | { readonly cmd: 'dropped'; readonly heap: boolean }
  | { readonly cmd: 'heap-waiting'; readonly settleMs: number }
  | { readonly cmd: 'return' }
  | { readonly cmd: 'close' };

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('the WebSocket bench client needs node --expose-gc');
  collect();
  collect();
}

/** Heap used after a full collection. */
function retainedHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

/** This process's subject: the name the parent gives it in its first argument. */
const subject = process.argv[2] ?? '';
const minReconnectionDelay = rwsFirstWait();

/** TCP sockets this process has created ('net.client.socket' is published for each `net.connect()`). */
let dials = 0;
subscribe('net.client.socket', () => {
  dials++;
});

/**
 * Exceptions nobody caught, counted instead of ending the process, so that a library that lets one
 * escape shows in the figures (reconnecting-websocket takes its `error` listener off a `ws` socket
 * before closing it, and `ws` throws an `error` event that nobody listens to).
 */
const uncaught: string[] = [];
process.on('uncaughtException', (error) => {
  uncaught.push(error.message);
});

let fleet: Fleet | undefined;
let heapBefore = 0;
let measuring:
  | {
      readonly cpu: NodeJS.CpuUsage;
      readonly loop: IntervalHistogram;
      readonly dials: number;
      readonly uncaught: number;
      readonly at: number;
      /** CPU of `heap-waiting`'s collection and polling, ms, left out of the run's. */
      gcCpuMs: number;
      droppedAfter: number;
    }
  | undefined;

function current(): Fleet {
  if (fleet === undefined) throw new Error(`${subject}: no fleet`);
  return fleet;
}

async function handle(message: Message): Promise<object> {
  switch (message.cmd) {
    case 'up': {
      if (fleet !== undefined) throw new Error(`${subject}: a fleet is already open`);
      heapBefore = retainedHeap();
      const start = performance.now();
      const built = openFleet(message.url, message.sockets);
      fleet = built;
      await until(() => built.open() === built.sockets.length, 60_000, `${subject}: the first connections`);
      return { openAfter: performance.now() - start, minReconnectionDelay };
    }
    case 'heap-open':
      return { bytesPerSocket: (retainedHeap() - heapBefore) / current().sockets.length };
    case 'begin':
      // The storm starts on a collected heap, without the garbage of opening the fleet.
      gc();
      measuring = {
        cpu: process.cpuUsage(),
        loop: monitorEventLoopDelay({ resolution: 10 }),
        dials,
        uncaught: uncaught.length,
        at: performance.now(),
        gcCpuMs: 0,
        droppedAfter: NaN,
      };
      measuring.loop.enable();
      return {};
    case 'dropped': {
      const built = current();
      await until(() => built.open() === 0, 30_000, `${subject}: every socket to drop`);
      if (measuring !== undefined) measuring.droppedAfter = performance.now() - measuring.at;
      if (!message.heap) return {};
      // At once, before the first retry (redialer's comes 1 s after the loss).
      const cpu = process.cpuUsage();
      const heap = retainedHeap();
      if (measuring !== undefined) measuring.gcCpuMs += cpuMs(process.cpuUsage(cpu));
      return {
        bytesPerSocket: (heap - heapBefore) / built.sockets.length,
        dials: dials - (measuring?.dials ?? dials),
      };
    }
    case 'heap-waiting': {
      const built = current();
      const n = built.sockets.length;
      const dialsAtBegin = measuring?.dials ?? dials;
      // The fleet waiting to retry after a refused attempt, not in the middle of a burst of attempts
      // (a fleet whose sockets retry in step makes 2,000 in a few hundred ms): until it has dialled
      // once per socket since the drop and no socket has an attempt under way, or `settleMs`.
      const end = performance.now() + message.settleMs;
      let spent = 0;
      const settled = (): boolean => {
        const cpu = process.cpuUsage();
        const done = dials - dialsAtBegin >= n && !built.sockets.some((socket) => socket.attempting());
        spent += cpuMs(process.cpuUsage(cpu));
        return done;
      };
      while (!settled() && performance.now() < end) await sleep(5);
      const cpu = process.cpuUsage();
      const heap = retainedHeap();
      const attempting = built.sockets.filter((socket) => socket.attempting()).length;
      spent += cpuMs(process.cpuUsage(cpu));
      if (measuring !== undefined) measuring.gcCpuMs += spent;
      return {
        bytesPerSocket: (heap - heapBefore) / n,
        attempting,
        open: built.open(),
        dials: dials - dialsAtBegin,
        after: measuring === undefined ? NaN : performance.now() - measuring.at,
      };
    }
    case 'return': {
      const built = current();
      const m = measuring;
      if (m === undefined) throw new Error(`${subject}: no run under way`);
      const back = performance.now();
      const n = built.sockets.length;
      let half = NaN;
      await until(
        () => {
          const open = built.open();
          if (Number.isNaN(half) && open * 2 >= n) half = performance.now() - back;
          return open === n;
        },
        120_000,
        `${subject}: every socket to open again`,
      );
      const allOpenAfter = performance.now() - back;
      const used = cpuMs(process.cpuUsage(m.cpu)) - m.gcCpuMs;
      m.loop.disable();
      measuring = undefined;
      built.close();
      fleet = undefined;
      const run: WebSocketRun = {
        allOpenAfter,
        halfOpenAfter: half,
        droppedAfter: m.droppedAfter,
        cpuMs: used,
        cpuMsPerReconnect: used / n,
        gcCpuMs: m.gcCpuMs,
        loopDelayP99: m.loop.percentile(99) / 1e6,
        loopDelayMax: m.loop.max / 1e6,
        dials: dials - m.dials,
        uncaught: uncaught.slice(m.uncaught),
      };
      return { run };
    }
    case 'close':
      current().close();
      fleet = undefined;
      return {};
  }
}

answerIpc(handle, () => {
  fleet?.close();
  // The sockets' close handshakes get a moment; nothing may keep the process past it.
  setTimeout(() => process.exit(0), 500).unref();
});
