/**
 * Offline while the socket is open, in headless Chromium: `context.setOffline(true)` leaves the
 * page's WebSocket OPEN, so the status must say `offline` at once and what the page sends must be
 * held, not handed to a socket that may be dead; back online, the connection is verified (a heartbeat
 * round trip) or replaced (without a heartbeat) before the held messages go out — each once, in
 * order. A real `ws` server on 127.0.0.1 counts connections and what arrives. Skipped, with a
 * notice, where no Chromium is installed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../../support/websocket/ws-server.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../../support/chromium.js';

noticeIfNoChromium('the offline-while-open Chromium test');

const MESSAGES = 10;

/** The page: one socket, its status phases, and what each send() returned. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>offline while open</title>
<script type="module">
  import { ReconnectingWebSocket, connectionStatus } from './bundle.js';
  const params = new URLSearchParams(location.search);
  const heartbeat = params.get('heartbeat') === 'on'
    ? { interval: 60000, timeout: 1000, ping: 'ping', isPong: (data) => data === 'pong' }
    : false;
  const socket = new ReconnectingWebSocket(params.get('ws'), null, { heartbeat, minReconnectionDelay: 100 });
  const phases = [];
  connectionStatus(socket.state$).subscribe((s) => phases.push([s.phase, performance.now()]));
  const outcomes = [];
  window.offlineTest = {
    phases: () => phases.map(([phase]) => phase),
    phase: () => phases.at(-1)[0],
    send: (n) => { for (let i = 1; i <= n; i += 1) outcomes.push(socket.sendWithStatus('m' + i)); return outcomes; },
    connectedAt: () => phases.filter(([phase]) => phase === 'connected').at(-1)[1],
    now: () => performance.now(),
    close: () => socket.close(),
  };
</script>`;

describe('offline while the socket is open, in headless Chromium', () => {
  let dir: string | undefined;
  let http: Server | undefined;
  let context: BrowserContext | undefined;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    if (!hasChromium) return;
    dir = await mkdtemp(join(tmpdir(), 'redialer-offline-'));
    const src = fileURLToPath(new URL('../../../src/', import.meta.url));
    await build({
      stdin: {
        contents: `export { ReconnectingWebSocket } from './adapters/websocket/index.ts';
export { connectionStatus } from './index.ts';`,
        resolveDir: src,
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      outfile: join(dir, 'bundle.js'),
      logLevel: 'silent',
    });
    const bundle = join(dir, 'bundle.js');
    http = createServer((request, response) => {
      if (request.url === '/bundle.js') {
        readFile(bundle).then(
          (body) => response.writeHead(200, { 'content-type': 'text/javascript' }).end(body),
          (error: unknown) => response.writeHead(500).end(String(error)),
        );
      } else response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    http.listen(0, '127.0.0.1');
    await new Promise((resolve) => http?.once('listening', resolve));
    context = await launchChromium(join(dir, 'profile'));
  });

  afterAll(async () => {
    await context?.close();
    for (const server of servers) await server.stop();
    if (http !== undefined)
      await new Promise<void>((resolve) =>
        http?.close(() => {
          resolve();
        }),
      );
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  interface OfflineApi {
    offlineTest: {
      phases(): string[];
      phase(): string;
      send(n: number): string[];
      connectedAt(): number;
      now(): number;
      close(): void;
    };
  }
  const api = (page: Page) => ({
    phase: () => page.evaluate(() => (window as unknown as OfflineApi).offlineTest.phase()),
    waitForPhase: (phase: string) =>
      page.waitForFunction((p) => (window as unknown as OfflineApi).offlineTest.phase() === p, phase, {
        timeout: 15_000,
      }),
  });

  async function run(heartbeat: 'on' | 'off') {
    if (context === undefined || http === undefined) throw new Error('Chromium did not start');
    const server = await startServer(0, (client) => {
      client.on('message', (data) => {
        if (Buffer.from(data as Buffer).toString() === 'ping') client.send('pong');
      });
    });
    servers.push(server);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const port = (http.address() as AddressInfo).port;
    await page.goto(`http://127.0.0.1:${String(port)}/?heartbeat=${heartbeat}&ws=${encodeURIComponent(server.url)}`);
    const p = api(page);
    await p.waitForPhase('connected');

    await context.setOffline(true);
    await p.waitForPhase('offline');
    const outcomes = await page.evaluate((n) => (window as unknown as OfflineApi).offlineTest.send(n), MESSAGES);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const duringOffline = server.received.filter((m) => m !== 'ping');

    const onlineAt = await page.evaluate(() => (window as unknown as OfflineApi).offlineTest.now());
    await context.setOffline(false);
    await p.waitForPhase('connected');
    for (let i = 0; i < 250 && server.received.filter((m) => m !== 'ping').length < MESSAGES; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const connectedAt = await page.evaluate(() => (window as unknown as OfflineApi).offlineTest.connectedAt());
    const phases = await page.evaluate(() => (window as unknown as OfflineApi).offlineTest.phases());
    await page.evaluate(() => {
      (window as unknown as OfflineApi).offlineTest.close();
    });
    await page.close();
    expect(pageErrors).toEqual([]);
    return {
      outcomes,
      duringOffline,
      delivered: server.received.filter((m) => m !== 'ping'),
      pings: server.received.filter((m) => m === 'ping').length,
      connections: server.connections,
      phases,
      backAfter: Math.round(connectedAt - onlineAt),
    };
  }

  const expected = Array.from({ length: MESSAGES }, (_, i) => `m${String(i + 1)}`);

  it.skipIf(!hasChromium)(
    'without a heartbeat: offline at once, 10 messages held, then a prompt new connection carries each once, in order',
    async () => {
      const r = await run('off');
      console.log(
        `offline while open, no heartbeat: ${String(r.connections)} connections, back ${String(r.backAfter)} ms after online, phases ${r.phases.join(' → ')}`,
      );
      expect(r.outcomes).toEqual(expected.map(() => 'queued'));
      expect(r.duringOffline).toEqual([]);
      expect(r.delivered).toEqual(expected);
      expect(r.connections).toBe(2);
      expect(r.phases).toEqual(['connecting', 'connected', 'offline', 'reconnecting', 'connected']);
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    'with a heartbeat: offline at once, 10 messages held, then one ping verifies the same connection and it carries each once, in order',
    async () => {
      const r = await run('on');
      console.log(
        `offline while open, heartbeat: ${String(r.connections)} connections, ${String(r.pings)} pings, back ${String(r.backAfter)} ms after online, phases ${r.phases.join(' → ')}`,
      );
      expect(r.outcomes).toEqual(expected.map(() => 'queued'));
      expect(r.duringOffline).toEqual([]);
      expect(r.delivered).toEqual(expected);
      expect(r.connections).toBe(1);
      expect(r.pings).toBeGreaterThanOrEqual(1);
      expect(r.phases).toEqual(['connecting', 'connected', 'offline', 'connected']);
    },
    60_000,
  );
});
