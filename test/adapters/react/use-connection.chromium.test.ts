/**
 * `useConnection` and `useConnectionEvents` really rendered, under StrictMode (whose development-only
 * unmount and remount would open a second connection), in headless Chromium over the browser's
 * WebSocket, against a real `ws` server on 127.0.0.1 that counts connections: one connection for the
 * page, `lost` and `restored` across a server restart, and none left after the root unmounts.
 * Skipped, with a notice, where no Chromium is installed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../../support/chromium.js';
import { type TestServer, startServer } from '../../support/websocket/ws-server.js';

noticeIfNoChromium("redialer/react's useConnection Chromium test");

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

interface TestWindow {
  test: {
    made: number;
    events: string[];
    phases: string[];
    closedAfterUnmount(): boolean | undefined;
    unmount(): void;
  };
}

const entry = (url: string): string => `
import { createElement as h, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ReconnectingWebSocket } from ${JSON.stringify(path('../../../src/adapters/websocket/index.ts'))};
import { useConnection, useConnectionEvents, useConnectionStatus } from ${JSON.stringify(path('../../../src/adapters/react/index.ts'))};

const test = { made: 0, events: [], phases: [], sockets: [] };
function Feed({ url }) {
  const socket = useConnection(() => {
    test.made += 1;
    const made = new ReconnectingWebSocket(url, [], { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
    test.sockets.push(made);
    return made;
  }, [url]);
  useConnectionEvents(socket, (event) => test.events.push(event.type), { graceMs: 300 });
  const status = useConnectionStatus(socket, { graceMs: 300 });
  if (test.phases.at(-1) !== status.phase) test.phases.push(status.phase);
  return h('p', { id: 'phase' }, status.phase);
}
const root = createRoot(document.getElementById('root'));
root.render(h(StrictMode, null, h(Feed, { url: ${JSON.stringify(url)} })));
window.test = {
  get made() { return test.made; },
  events: test.events,
  phases: test.phases,
  closedAfterUnmount: () => test.sockets.at(-1)?.snapshot.state === 'SHUTDOWN',
  unmount: () => root.unmount(),
};
`;

const WAIT_MS = 20_000;

describe.skipIf(!hasChromium)('useConnection under StrictMode in headless Chromium', () => {
  let dir: string | undefined;
  let context: BrowserContext | undefined;
  const servers: TestServer[] = [];

  afterAll(async () => {
    await context?.close();
    for (const server of servers) await server.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, WAIT_MS);

  it('one connection under StrictMode; lost and restored across a restart; closed when the root unmounts', async () => {
    const first = await startServer(0);
    servers.push(first);
    const port = first.port;
    const connections = (): number => servers.reduce((n, server) => n + server.connections, 0);
    dir = await mkdtemp(join(tmpdir(), 'redialer-use-connection-'));
    await writeFile(join(dir, 'entry.js'), entry(`ws://127.0.0.1:${String(port)}/`));
    const bundle = await build({
      entryPoints: [join(dir, 'entry.js')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      define: { 'process.env.NODE_ENV': '"development"' }, // StrictMode's double effects are development-only
      write: false,
      logLevel: 'silent',
      nodePaths: [path('../../../node_modules')],
    });
    const script = bundle.outputFiles[0]?.text ?? '';
    context = await launchChromium(join(dir, 'profile'));
    const page: Page = context.pages()[0] ?? (await context.newPage());
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.setContent('<!doctype html><div id="root"></div>');
    await page.addScriptTag({ content: script });
    await page.waitForSelector('#phase:text("connected")', { timeout: WAIT_MS });
    await new Promise((resolve) => setTimeout(resolve, 500)); // a second connection would show by now
    expect(connections()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as TestWindow).test.made)).toBe(1);

    await first.stop();
    await page.waitForFunction(() => (window as unknown as TestWindow).test.events.includes('lost'), undefined, {
      timeout: WAIT_MS,
    });
    const second = await startServer(port);
    servers.push(second);
    await page.waitForFunction(() => (window as unknown as TestWindow).test.events.includes('restored'), undefined, {
      timeout: WAIT_MS,
    });
    expect(connections()).toBe(2);
    const events = await page.evaluate(() => (window as unknown as TestWindow).test.events);
    expect(events).toEqual(['lost', 'restored']);

    await page.evaluate(() => {
      (window as unknown as TestWindow).test.unmount();
    });
    await page.waitForFunction(() => (window as unknown as TestWindow).test.closedAfterUnmount() === true, undefined, {
      timeout: WAIT_MS,
    });
    for (let i = 0; i < 100 && second.clients.size > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second.clients.size).toBe(0);
    expect(await page.evaluate(() => (window as unknown as TestWindow).test.made)).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
