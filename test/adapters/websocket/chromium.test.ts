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
import { type TestServer, startServer } from '../../support/websocket/ws-server.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../../support/chromium.js';

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

/** The fidelity page: the native WebSocket and redialer side by side, the heartbeat, a refused port. */
const FIDELITY_PAGE = (urls: { echo: string; silent: string; refused: string }) => `<!doctype html>
<meta charset="utf-8">
<title>redialer/websocket fidelity</title>
<script type="module">
  import { ReconnectingWebSocket } from './redialer-websocket.js';
  const urls = ${JSON.stringify(urls)};
  const out = { payloads: {}, heartbeat: {}, refused: [] };
  window.out = out;
  const opened = (ws) => new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }));
  const errorName = (fn) => { try { fn(); return 'none'; } catch (error) { return error.constructor.name; } };
  // 1. What send() puts on the wire for values that are not strings: the native WebSocket, then redialer.
  const native = new WebSocket(urls.echo + 'native');
  await opened(native);
  native.send(12345); native.send(null); native.send(undefined);
  out.payloads.nativeNoArgument = errorName(() => native.send());
  const socket = new ReconnectingWebSocket(urls.echo + 'redialer');
  await new Promise((resolve) => { socket.onopen = resolve; });
  socket.send(12345); socket.send(null); socket.send(undefined);
  out.payloads.redialerNoArgument = errorName(() => socket.send());
  native.close(); socket.close();
  // 2. Heartbeat with an application ping: kept alive by pongs (not dispatched), closed when silent.
  const heartbeat = { interval: 200, timeout: 200, ping: 'ping', isPong: (data) => data === 'pong' };
  const alive = new ReconnectingWebSocket(urls.echo + 'pong', null, { heartbeat });
  const messages = [];
  alive.onmessage = (event) => messages.push(event.data);
  await new Promise((resolve) => { alive.onopen = resolve; });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  out.heartbeat.aliveState = alive.snapshot.state;
  out.heartbeat.aliveMessages = messages.length;
  alive.close();
  const silent = new ReconnectingWebSocket(urls.silent, null, { heartbeat });
  await new Promise((resolve) => { silent.onclose = (event) => { if (event.code === 4000) resolve(); }; });
  out.heartbeat.silentError = silent.snapshot.lastError?.name;
  out.heartbeat.silence = silent.snapshot.lastError?.silence;
  silent.close();
  // A heartbeat without ping, which here could only close a quiet, healthy connection: refused.
  try {
    new ReconnectingWebSocket(urls.echo + 'quiet', null, { heartbeat: { interval: 3000, timeout: 2000 } });
    out.heartbeat.withoutPing = 'accepted';
  } catch (error) {
    out.heartbeat.withoutPing = error.constructor.name + ': ' + error.message;
  }
  // 3. A refused port: error then close 1006 for each attempt, retried on the backoff.
  const refused = new ReconnectingWebSocket(urls.refused, null, { minReconnectionDelay: 50, maxReconnectionDelay: 100 });
  refused.onerror = () => out.refused.push('error');
  await new Promise((resolve) => {
    refused.onclose = (event) => {
      out.refused.push('close ' + event.code);
      if (out.refused.length === 4) { refused.close(); resolve(); }
    };
  });
  out.done = true;
</script>`;

interface PageApi {
  redialer: { socket: { close(): void; readyState: number }; states: string[]; opens(): number; native(): boolean };
}

interface FidelityApi {
  out: {
    done?: true;
    payloads: { nativeNoArgument: string; redialerNoArgument: string };
    heartbeat: { aliveState: string; aliveMessages: number; silentError: string; silence: number; withoutPing: string };
    refused: string[];
  };
}

describe('in headless Chromium', () => {
  let fidelityUrls = { echo: '', silent: '', refused: '' };
  let echoServer: TestServer | undefined;
  let silentServer: TestServer | undefined;

  /** An echo server that answers 'ping' with 'pong', a silent one, and a port that refuses. */
  async function fidelityServers(): Promise<typeof fidelityUrls> {
    echoServer = await startServer(0, (client) => {
      client.on('message', (data) => {
        const text = Buffer.from(data as Buffer).toString();
        if (text === 'ping') client.send('pong');
      });
    });
    silentServer = await startServer();
    const closed = await startServer();
    await closed.stop();
    servers.push(echoServer, silentServer);
    return { echo: echoServer.url, silent: silentServer.url, refused: closed.url };
  }

  let dir: string | undefined;
  let http: Server | undefined;
  let context: BrowserContext | undefined;
  const servers: TestServer[] = [];
  let bundledInputs: string[] = [];

  beforeAll(async () => {
    if (!hasChromium) return;
    dir = await mkdtemp(join(tmpdir(), 'redialer-chromium-'));
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../../../src/adapters/websocket/index.ts', import.meta.url))],
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
    if (http !== undefined)
      await new Promise<void>((resolve) =>
        http?.close(() => {
          resolve();
        }),
      );
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)('the browser bundle holds the adapter and rxjs, and neither ws nor a Node built-in', () => {
    expect(bundledInputs.some((f) => f.includes('src/adapters/websocket/reconnecting-websocket.ts'))).toBe(true);
    expect(bundledInputs.some((f) => f.includes('node_modules/rxjs/'))).toBe(true);
    expect(bundledInputs.filter((f) => f.includes('node_modules/ws/') || f.startsWith('node:'))).toEqual([]);
  });

  it.skipIf(!hasChromium)(
    "a page's native WebSocket reconnects through redialer after the server restarts",
    async () => {
      const bundleDir = dir ?? '';
      const first = await startServer();
      servers.push(first);
      fidelityUrls = await fidelityServers();
      http = createServer((request, response) => {
        if (request.url === '/fidelity') {
          response.writeHead(200, { 'content-type': 'text/html' }).end(FIDELITY_PAGE(fidelityUrls));
        } else if (request.url === '/redialer-websocket.js') {
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

      await page.waitForFunction(() => (window as unknown as PageApi).redialer.opens() === 1, undefined, {
        timeout: 15_000,
      });
      expect(await page.evaluate(() => (window as unknown as PageApi).redialer.native())).toBe(true);

      await first.stop(); // the server goes away (connections dropped) ...
      await page.waitForFunction(
        () => (window as unknown as PageApi).redialer.states.includes('TRANSIENT_FAILURE'),
        undefined,
        {
          timeout: 15_000,
        },
      );
      const second = await startServer(first.port); // ... and comes back on the same port
      servers.push(second);
      await page.waitForFunction(() => (window as unknown as PageApi).redialer.opens() === 2, undefined, {
        timeout: 15_000,
      });

      for (let i = 0; i < 250 && second.received.length === 0; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(first.received).toEqual(['hello 1']);
      expect(second.received).toEqual(['hello 2']);
      const states = await page.evaluate(() => (window as unknown as PageApi).redialer.states);
      expect(states.slice(0, 3)).toEqual(['CONNECTING', 'READY', 'TRANSIENT_FAILURE']); // subscribed after the constructor's connect()
      expect(states.filter((s) => s === 'READY')).toHaveLength(2);
      expect(states.at(-1)).toBe('READY');

      await page.evaluate(() => {
        (window as unknown as PageApi).redialer.socket.close();
      });
      await page.waitForFunction(() => (window as unknown as PageApi).redialer.socket.readyState === 3, undefined, {
        timeout: 5000,
      });
      expect(pageErrors).toEqual([]);
    },
    90_000,
  );

  it.skipIf(!hasChromium)(
    "the native WebSocket's payload conversion, the heartbeat with an application ping (and without one, refused), and refused attempts, in a page",
    async () => {
      const page = await context?.newPage();
      if (page === undefined || http === undefined)
        throw new Error('the first Chromium test did not set up the page server');
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`http://127.0.0.1:${String((http.address() as AddressInfo).port)}/fidelity`);
      await page.waitForFunction(() => (window as unknown as FidelityApi).out.done === true, undefined, {
        timeout: 30_000,
      });
      const out = await page.evaluate(() => (window as unknown as FidelityApi).out);
      expect(pageErrors).toEqual([]);
      // send() converts as the browser's WebSocket does: the server got the same text from both.
      const received = echoServer?.received ?? [];
      const natives = received.slice(0, 3);
      expect(natives).toEqual(['12345', 'null', 'undefined']);
      expect(received.slice(3, 6)).toEqual(natives);
      expect(out.payloads).toEqual({ nativeNoArgument: 'TypeError', redialerNoArgument: 'TypeError' });
      expect(out.heartbeat).toMatchObject({
        aliveState: 'READY',
        aliveMessages: 0,
        silentError: 'HeartbeatTimeoutError',
      });
      expect(out.heartbeat.silence).toBeGreaterThanOrEqual(400);
      expect(out.heartbeat.withoutPing).toMatch(/^TypeError: redialer: option "heartbeat" needs "ping" here/);
      expect(silentServer?.received.filter((m) => m === 'ping').length).toBeGreaterThanOrEqual(1);
      expect(out.refused).toEqual(['error', 'close 1006', 'error', 'close 1006']);
      await page.close();
    },
    60_000,
  );
});
