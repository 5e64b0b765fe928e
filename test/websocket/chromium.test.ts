/**
 * End to end in headless Chromium: a page loads the adapter (bundled with rxjs by esbuild), connects
 * with the browser's native WebSocket, and reconnects through redialer after the server restarts.
 * Skipped, with a notice, where no Chromium is installed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from './support/ws-server.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../support/chromium.js';

noticeIfNoChromium('the headless Chromium test');


const PAGE = (wsUrl: string) => `<!doctype html>
<meta charset="utf-8">
<title>redialer/websocket</title>
<script type="module">
  import { ReconnectingWebSocket } from './redialer-websocket.js';
  const states = [];
  let opens = 0;
  // No WebSocket option: the page's native WebSocket.
  const socket = new ReconnectingWebSocket(${JSON.stringify(wsUrl)}, undefined, {
    minReconnectionDelay: 100,
    maxReconnectionDelay: 500,
    connectionTimeout: 3000,
  });
  socket.state$.subscribe((s) => states.push(s.state));
  socket.onopen = () => {
    opens += 1;
    socket.send('hello ' + opens);
  };
  window.redialer = { socket, states, opens: () => opens, native: () => socket.snapshot.state === 'READY' && socket.snapshot.connection instanceof WebSocket };
</script>`;

interface PageApi {
  redialer: { socket: { close(): void; readyState: number }; states: string[]; opens(): number; native(): boolean };
}

describe('in headless Chromium', () => {
  let dir: string | undefined;
  let http: Server | undefined;
  let context: BrowserContext | undefined;
  const servers: TestServer[] = [];
  let bundledInputs: string[] = [];

  beforeAll(async () => {
    if (!hasChromium) return;
    dir = await mkdtemp(join(tmpdir(), 'redialer-chromium-'));
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../../src/websocket/index.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      outfile: join(dir, 'redialer-websocket.js'),
      logLevel: 'silent',
      metafile: true,
    });
    bundledInputs = Object.keys(result.metafile.inputs);
  });

  afterAll(async () => {
    await context?.close();
    for (const server of servers) await server.stop();
    if (http !== undefined) await new Promise<void>((resolve) => http?.close(() => { resolve(); }));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)('the browser bundle holds the adapter and rxjs, and neither ws nor a Node built-in', () => {
    expect(bundledInputs.some((f) => f.includes('src/websocket/reconnecting-websocket.ts'))).toBe(true);
    expect(bundledInputs.some((f) => f.includes('node_modules/rxjs/'))).toBe(true);
    expect(bundledInputs.filter((f) => f.includes('node_modules/ws/') || f.startsWith('node:'))).toEqual([]);
  });

  it.skipIf(!hasChromium)(
    "a page's native WebSocket reconnects through redialer after the server restarts",
    async () => {
      const bundleDir = dir ?? '';
      const first = await startServer();
      servers.push(first);
      http = createServer((request, response) => {
        if (request.url === '/redialer-websocket.js') {
          readFile(join(bundleDir, 'redialer-websocket.js')).then(
            (body) => response.writeHead(200, { 'content-type': 'text/javascript' }).end(body),
            (error: unknown) => response.writeHead(500).end(String(error)),
          );
        } else {
          response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE(first.url));
        }
      });
      http.listen(0, '127.0.0.1');
      await new Promise((resolve) => http?.once('listening', resolve));
      const pageUrl = `http://127.0.0.1:${String((http.address() as AddressInfo).port)}/`;

      context = await launchChromium(join(bundleDir, 'profile'));
      const page = context.pages()[0] ?? (await context.newPage());
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(pageUrl);

      await page.waitForFunction(() => (window as unknown as PageApi).redialer.opens() === 1, undefined, { timeout: 15_000 });
      expect(await page.evaluate(() => (window as unknown as PageApi).redialer.native())).toBe(true);

      await first.stop(); // the server goes away (connections dropped) ...
      await page.waitForFunction(() => (window as unknown as PageApi).redialer.states.includes('TRANSIENT_FAILURE'), undefined, {
        timeout: 15_000,
      });
      const second = await startServer(first.port); // ... and comes back on the same port
      servers.push(second);
      await page.waitForFunction(() => (window as unknown as PageApi).redialer.opens() === 2, undefined, { timeout: 15_000 });

      for (let i = 0; i < 100 && second.received.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(first.received).toEqual(['hello 1']);
      expect(second.received).toEqual(['hello 2']);
      const states = await page.evaluate(() => (window as unknown as PageApi).redialer.states);
      expect(states.slice(0, 3)).toEqual(['CONNECTING', 'READY', 'TRANSIENT_FAILURE']); // subscribed after the constructor's connect()
      expect(states.filter((s) => s === 'READY')).toHaveLength(2);
      expect(states.at(-1)).toBe('READY');

      await page.evaluate(() => {
        (window as unknown as PageApi).redialer.socket.close();
      });
      await page.waitForFunction(() => (window as unknown as PageApi).redialer.socket.readyState === 3, undefined, { timeout: 5000 });
      expect(pageErrors).toEqual([]);
    },
    90_000,
  );
});
