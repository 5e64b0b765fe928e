/**
 * `npm run bench:sse-refusing [-- --seconds 60]`: how often each Server-Sent Events client dials a
 * server that is down, over `seconds`: redialer's ReconnectingEventSource (defaults: gRPC's backoff)
 * and the `eventsource` npm package (4.x) in Node, and Chromium's own EventSource (Debian's
 * `chromium`, headless). Each client gets its own server on 127.0.0.1 that accepts every TCP
 * connection and resets it at once (what a crashed backend behind a port forward does), so the
 * attempts are counted as connections at the server. Prints the attempts and their times; writes
 * bench/results/sse-refusing.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EventSource as NpmEventSource } from 'eventsource';
import { chromium } from 'playwright-core';
import { ReconnectingEventSource } from '../../src/adapters/sse/index.js';

const { values } = parseArgs({ options: { seconds: { type: 'string' } } });
const seconds = Number(values.seconds ?? 60);
const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

/** A port that accepts and resets every connection, recording when each came (ms from `t0`). */
async function resetting(t0: number): Promise<{ server: Server; url: string; at: number[] }> {
  const at: number[] = [];
  const server = createServer((socket) => {
    at.push(Math.round(performance.now() - t0));
    socket.resetAndDestroy();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, at, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/events` };
}

const t0 = performance.now();
const ours = await resetting(t0);
const npm = await resetting(t0);
const native = await resetting(t0);
const page = createHttpServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<!doctype html><title>sse</title>');
});
page.listen(0, '127.0.0.1');
await new Promise((resolve) => page.once('listening', resolve));
const profile = mkdtempSync(join(tmpdir(), 'redialer-sse-bench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env['REDIALER_CHROMIUM'] ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking'],
});
const tab = await context.newPage();
await tab.goto(`http://127.0.0.1:${String((page.address() as AddressInfo).port)}/`);

const redialer = new ReconnectingEventSource(ours.url);
const theirs = new NpmEventSource(npm.url);
await tab.evaluate((url) => {
  (globalThis as { source?: EventSource }).source = new EventSource(url);
}, native.url);
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
redialer.close();
theirs.close();
const chromiumState = await tab.evaluate(() => (globalThis as { source?: EventSource }).source?.readyState);
await context.close();
rmSync(profile, { recursive: true, force: true });
for (const s of [ours.server, npm.server, native.server, page]) s.close();

const results = {
  'redialer ReconnectingEventSource': ours.at,
  'eventsource 4 (npm)': npm.at,
  'Chromium EventSource': native.at,
};
say(`attempts at a server that resets every connection, in ${String(seconds)} s:`);
for (const [name, at] of Object.entries(results)) {
  say(`  ${name}: ${String(at.length)} (at ${at.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s)`);
}
say(`  Chromium's readyState at the end: ${String(chromiumState)} (0 connecting, 2 closed)`);
mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench/results/sse-refusing.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, seconds, results }, null, 1)}\n`,
);
