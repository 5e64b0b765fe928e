/**
 * `npm run bench:herd [-- --clients 2000 --capacity 400 --downtime 3000]`: real ReconnectingWebSockets
 * (with `ws`) against a real `ws` server on 127.0.0.1 that restarts, three ways: a plain restart, a
 * crash followed by `admission()`, and a `drain()` before the restart plus `admission()` after it.
 * Measures, on the server, connections admitted per one-second window and the time from the
 * restart until every client is back. Writes bench/results/herd.json.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket, { WebSocketServer } from 'ws';
import { admission, drain } from '../../src/toolkits/server/index.js';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import { sleep } from '../support/wait.js';

const { values } = parseArgs({
  options: { clients: { type: 'string' }, capacity: { type: 'string' }, downtime: { type: 'string' } },
});
const CLIENTS = Number(values.clients ?? 2000);
const CAPACITY = Number(values.capacity ?? 400);
const DOWNTIME = Number(values.downtime ?? 3000);
const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

type Mode = 'plain restart' | 'crash, then admission()' | 'drain(), then admission()';

interface Generation {
  readonly http: Server;
  readonly wss: WebSocketServer;
  /** Connection times (ms, Date.now()). */
  readonly connections: number[];
}

async function start(port: number, gated: boolean): Promise<Generation> {
  const http = createServer();
  const wss = new WebSocketServer(gated ? { noServer: true } : { server: http });
  const connections: number[] = [];
  wss.on('connection', () => connections.push(Date.now()));
  if (gated) http.on('upgrade', admission({ capacity: CAPACITY }).upgrade(wss));
  http.listen(port, '127.0.0.1');
  await once(http, 'listening');
  return { http, wss, connections };
}

async function stop(g: Generation): Promise<void> {
  for (const ws of g.wss.clients) ws.terminate();
  await new Promise((resolve) => {
    g.wss.close(resolve);
  });
  g.http.closeAllConnections();
  await new Promise((resolve) => {
    g.http.close(resolve);
  });
}

export interface HerdFigure {
  readonly mode: Mode;
  readonly clients: number;
  readonly capacity: number;
  readonly downtime: number;
  /** N / C, ms. */
  readonly limit: number;
  /** From the restart until every client was connected again, ms; null if not within the horizon. */
  readonly allBackAfter: number | null;
  /** The most connections admitted in one one-second window (epoch-aligned, as the gate counts). */
  readonly peakAdmittedPerSecond: number;
  /** Connections admitted after the restart (a client admitted, refused by nobody, counts once). */
  readonly admitted: number;
}

async function run(mode: Mode): Promise<HerdFigure> {
  let g = await start(0, false);
  const port = (g.http.address() as AddressInfo).port;
  const url = `ws://127.0.0.1:${String(port)}`;
  const sockets = Array.from(
    { length: CLIENTS },
    () =>
      new ReconnectingWebSocket(url, undefined, {
        WebSocket,
        serverHints: 'exact',
        pauseWhileOffline: false,
        retryOnVisible: false,
      }),
  );
  for (const s of sockets) s.addEventListener('error', () => undefined);
  while (g.connections.length < CLIENTS) await sleep(50);
  await sleep(6000); // longer than minUptime: the connections count as established
  if (mode === 'drain(), then admission()') {
    // The new server will take CAPACITY per second; it will be back after DOWNTIME.
    await drain(g.wss, { expectedDowntime: DOWNTIME, capacity: CAPACITY });
  }
  await stop(g);
  await sleep(DOWNTIME);
  g = await start(port, mode !== 'plain restart');
  const restartedAt = Date.now();
  const horizon = restartedAt + 180_000;
  while (g.connections.length < CLIENTS && Date.now() < horizon) await sleep(50);
  const perSecond = new Map<number, number>();
  for (const t of g.connections) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
  const figure: HerdFigure = {
    mode,
    clients: CLIENTS,
    capacity: CAPACITY,
    downtime: DOWNTIME,
    limit: (1000 * CLIENTS) / CAPACITY,
    allBackAfter: g.connections.length >= CLIENTS ? Math.max(...g.connections) - restartedAt : null,
    peakAdmittedPerSecond: Math.max(0, ...perSecond.values()),
    admitted: g.connections.length,
  };
  for (const s of sockets) s.close();
  await sleep(200);
  await stop(g);
  return figure;
}

const figures: HerdFigure[] = [];
for (const mode of ['plain restart', 'crash, then admission()', 'drain(), then admission()'] as const) {
  say(`herd: ${mode}, ${String(CLIENTS)} clients, ${String(CAPACITY)}/s, ${String(DOWNTIME)} ms down`);
  const f = await run(mode);
  figures.push(f);
  say(
    `  all back ${f.allBackAfter === null ? 'never' : `${String(f.allBackAfter)} ms`} after the restart (${f.allBackAfter === null ? '∞' : (f.allBackAfter / f.limit).toFixed(2)} × N/C), peak ${String(f.peakAdmittedPerSecond)} admitted/s (${(f.peakAdmittedPerSecond / CAPACITY).toFixed(2)} × C)`,
  );
}
mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench/results/herd.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, figures }, null, 1)}\n`,
);
process.exit(0);
