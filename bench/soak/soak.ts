/**
 * `npm run soak [-- --managers 10000 --minutes 10 --up 30 --down 6 --send-every 5 --queue 1 --real N --out file]`
 *
 * Many ReconnectingWebSockets against a flapping loopback `ws` server (in a child process) for a long
 * time. Each cycle the server keeps its connections for `--up` seconds, then closes them all (1001)
 * and for `--down` seconds accepts and at once closes every new connection; every manager sends a
 * numbered message every `--send-every` seconds throughout, and holds at most `--queue` of them
 * while disconnected (more are dropped, 'queue-full'). The run ends two seconds into a last flap, so
 * that queued messages meet close() (dropped, 'closed'). At the end of each up phase the heap (after
 * a full GC) and the active handles are sampled; the report gives their least-squares slope per
 * minute after a one-minute warm-up, and the accounting of every message: sent = delivered + dropped
 * (each drop is a `drop` event), none out of order. The server closes gracefully (1001, 1000), so no
 * message is lost inside a dying TCP connection; see the reset tests for that case.
 *
 * File descriptors: each real manager holds one socket in this process and the server one in its own.
 * The number of real managers is capped at this process's open-files limit minus a reserve of 1,024;
 * any managers beyond that run on in-process virtual sockets (same adapter, same manager, same timers;
 * see virtual-socket.ts), and the report says how many of each.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { ReconnectingWebSocket, type ReconnectingWebSocketOptions } from '../../src/adapters/websocket/index.js';
import type { ServerStats } from './flapping-server.js';
import { VirtualServer, virtualWebSocketClass } from './virtual-socket.js';
import { sleep } from '../support/wait.js';

const { values } = parseArgs({
  options: {
    managers: { type: 'string', default: '10000' },
    minutes: { type: 'string', default: '10' },
    up: { type: 'string', default: '30' },
    down: { type: 'string', default: '6' },
    'send-every': { type: 'string', default: '5' },
    queue: { type: 'string', default: '1' },
    real: { type: 'string' },
    out: { type: 'string', default: 'bench/results/soak.json' },
  },
});

function positive(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`soak: --${name} must be a positive number, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
}

const managers = Math.floor(positive('managers', values.managers));
const minutes = positive('minutes', values.minutes);
const upMs = positive('up', values.up) * 1000;
const downMs = positive('down', values.down) * 1000;
const sendEveryMs = positive('send-every', values['send-every']) * 1000;
const queueLimit = Math.floor(positive('queue', values.queue));

/** This process's soft limit on open files, from /proc (Linux); Infinity where unknown. */
function openFilesLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? Infinity : Number(soft);
  } catch {
    return Infinity;
  }
}

const FD_RESERVE = 1024;
const fdLimit = openFilesLimit();
const fdBudget = Math.max(0, fdLimit - FD_RESERVE);
const realCount = Math.min(managers, values.real === undefined ? fdBudget : Math.floor(Number(values.real)), fdBudget);
const virtualCount = managers - realCount;

const say = (text: string): void => {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
};
const gc = (globalThis as { gc?: () => void }).gc;

// The server process.
const server = fork(fileURLToPath(new URL('./flapping-server.js', import.meta.url)), [], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [{ port }] = (await once(server, 'message')) as [{ port: number }];
function ask<T>(cmd: string): Promise<T> {
  const reply = once(server, 'message') as Promise<[T]>;
  server.send({ cmd });
  return reply.then(([value]) => value);
}
const virtualServer = new VirtualServer();

// Counters over every manager.
const counts = { sent: 0, sentNow: 0, queued: 0, rejected: 0, dropQueueFull: 0, dropClosed: 0, opens: 0, closes: 0 };
const options: ReconnectingWebSocketOptions = {
  minReconnectionDelay: 1000,
  maxReconnectionDelay: 10_000,
  minUptime: 5000,
  connectionTimeout: 20_000,
  maxEnqueuedMessages: queueLimit,
  pauseWhileOffline: false,
  retryOnVisible: false,
};
const url = `ws://127.0.0.1:${String(port)}/`;
const VirtualWebSocket = virtualWebSocketClass(virtualServer);
const clients: ReconnectingWebSocket[] = [];
const seqs: number[] = [];

function handles(): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) byKind[kind] = (byKind[kind] ?? 0) + 1;
  return byKind;
}
const total = (byKind: Record<string, number>): number => Object.values(byKind).reduce((a, b) => a + b, 0);

gc?.();
const baselineHandles = handles();
say(
  `soak: ${String(managers)} managers (${String(realCount)} on real sockets, ${String(virtualCount)} virtual; open-files limit ${String(fdLimit)}), ` +
    `${String(minutes)} min, cycle ${String(upMs / 1000)} s up + ${String(downMs / 1000)} s flapping, a message every ${String(sendEveryMs / 1000)} s each, at most ${String(queueLimit)} held while disconnected`,
);

// Create the managers gradually (500 every 100 ms), as a fleet of clients would start.
for (let i = 0; i < managers; i += 1) {
  const real = i < realCount;
  const client = new ReconnectingWebSocket(url, undefined, {
    ...options,
    WebSocket: real ? WebSocket : VirtualWebSocket,
  });
  client.addEventListener('drop', (event) => {
    if (event.reason === 'queue-full') counts.dropQueueFull += 1;
    else counts.dropClosed += 1;
  });
  client.addEventListener('open', () => {
    counts.opens += 1;
  });
  client.addEventListener('close', () => {
    counts.closes += 1;
  });
  clients.push(client);
  seqs.push(0);
  if (i % 500 === 499) await sleep(100);
}

// Every 100 ms a slice of the managers sends, so that each sends once per `sendEveryMs`.
const TICK = 100;
const perTick = Math.max(1, Math.round((managers * TICK) / sendEveryMs));
let cursor = 0;
let sending = true;
const sender = setInterval(() => {
  if (!sending) return;
  for (let k = 0; k < perTick; k += 1) {
    const i = cursor;
    cursor = (cursor + 1) % managers;
    const seq = seqs[i]!;
    seqs[i] = seq + 1;
    const status = clients[i]!.sendWithStatus(`${String(i)}:${String(seq)}`);
    counts.sent += 1;
    if (status === 'sent') counts.sentNow += 1;
    else if (status === 'queued') counts.queued += 1;
    else counts.rejected += 1;
  }
}, TICK);

interface Sample {
  readonly minute: number;
  readonly heapUsed: number;
  readonly handles: number;
  readonly byKind: Record<string, number>;
  readonly ready: number;
  readonly serverOpen: number;
}
const samples: Sample[] = [];
const started = performance.now();
const endAt = started + minutes * 60_000;
const cpuStart = process.cpuUsage();

while (performance.now() < endAt) {
  await ask('up');
  virtualServer.phase = 'up';
  const upFor = Math.min(upMs, Math.max(0, endAt - performance.now()));
  await sleep(upFor);
  // A cut-short last up phase is not comparable with the others: it is not sampled.
  if (upFor < upMs) break;
  gc?.();
  const stats = await ask<ServerStats>('stats');
  const byKind = handles();
  const sample: Sample = {
    minute: (performance.now() - started) / 60_000,
    heapUsed: process.memoryUsage().heapUsed,
    handles: total(byKind),
    byKind,
    ready: clients.filter((c) => c.snapshot.state === 'READY').length,
    serverOpen: stats.open + virtualServer.open.size,
  };
  samples.push(sample);
  say(
    `t=${sample.minute.toFixed(1)} min heap ${(sample.heapUsed / 2 ** 20).toFixed(1)} MiB, handles ${String(sample.handles)}, ` +
      `READY ${String(sample.ready)}/${String(managers)}, sent ${String(counts.sent)}`,
  );
  if (performance.now() >= endAt) break;
  await ask('flap');
  virtualServer.flap();
  await sleep(Math.min(downMs, Math.max(0, endAt - performance.now())));
}

// End in the middle of a flap, so that messages are queued when the managers close: each queued
// message must then be reported dropped ('closed').
await ask('flap');
virtualServer.flap();
await sleep(Math.min(downMs, 2000));
// Stop sending, close every manager (queued messages are dropped with a drop event), then count.
sending = false;
clearInterval(sender);
const closing = clients.map((c) =>
  c.readyState === c.OPEN
    ? new Promise<void>((resolve) => {
        c.addEventListener('close', () => {
          resolve();
        });
      })
    : Promise.resolve(),
);
for (const client of clients) client.close(1000, 'soak over');
await Promise.race([Promise.all(closing), sleep(10_000)]);
await sleep(500);
const serverStats = await ask<ServerStats>('stats');
const cpu = process.cpuUsage(cpuStart);
server.send({ cmd: 'stop' });
await once(server, 'exit');
for (let i = 0; i < 100 && total(handles()) > total(baselineHandles); i += 1) await sleep(50);
gc?.();
const afterHandles = handles();

/** Least-squares slope of y against x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i += 1) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

const steady = samples.filter((s) => s.minute >= 1);
const delivered = serverStats.delivered + virtualServer.delivered;
const dropped = counts.dropQueueFull + counts.dropClosed;
const report = {
  managers,
  realSockets: realCount,
  virtualSockets: virtualCount,
  openFilesLimit: fdLimit,
  minutes,
  cycle: { upSeconds: upMs / 1000, flappingSeconds: downMs / 1000 },
  sendEverySeconds: sendEveryMs / 1000,
  maxEnqueuedMessages: queueLimit,
  flaps: serverStats.flaps,
  connectionsAccepted: serverStats.accepted + virtualServer.accepted,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  heapSlopeBytesPerMinute: slope(
    steady.map((s) => s.minute),
    steady.map((s) => s.heapUsed),
  ),
  handleSlopePerMinute: slope(
    steady.map((s) => s.minute),
    steady.map((s) => s.handles),
  ),
  samplesInSlope: steady.length,
  messages: {
    sent: counts.sent,
    sentToOpenSocket: counts.sentNow,
    queued: counts.queued,
    rejectedAtSend: counts.rejected,
    delivered,
    droppedQueueFull: counts.dropQueueFull,
    droppedClosed: counts.dropClosed,
    unaccounted: counts.sent - delivered - dropped,
    outOfOrder: serverStats.outOfOrder + virtualServer.outOfOrder,
  },
  handlesBefore: total(baselineHandles),
  handlesAfterClose: total(afterHandles),
  handlesAfterCloseByKind: afterHandles,
  samples,
};
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
const m = report.messages;
say(
  `heap slope ${report.heapSlopeBytesPerMinute.toFixed(0)} B/min, handle slope ${report.handleSlopePerMinute.toFixed(2)}/min over ${String(steady.length)} samples; ` +
    `messages sent ${String(m.sent)} = delivered ${String(m.delivered)} + dropped ${String(m.droppedQueueFull + m.droppedClosed)} ` +
    `(unaccounted ${String(m.unaccounted)}, out of order ${String(m.outOfOrder)}); handles ${String(report.handlesBefore)} before, ${String(report.handlesAfterClose)} after close; ` +
    `written to ${values.out}`,
);
process.exitCode = m.unaccounted === 0 && m.outOfOrder === 0 ? 0 : 1;
