/**
 * `ConnectionBanner` for people who do not see it: in headless Chromium at 390 px wide, over a
 * ReconnectingWebSocket on the browser's WebSocket and a real `ws` server on 127.0.0.1, through every
 * phase — a first connection that keeps failing, connected, an outage, offline, back, a permanent
 * close and "Try again". At each phase the banner's accessibility tree (Playwright's ARIA snapshot) is
 * recorded; every change of the live region is logged, and the page's layout shifts are summed.
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

noticeIfNoChromium("redialer/react's ConnectionBanner accessibility test");

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

interface TestWindow {
  test: { announced: string[]; shift(): number; phase(): string };
}

const entry = (url: string): string => `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { ReconnectingWebSocket } from ${JSON.stringify(path('../../../src/adapters/websocket/index.ts'))};
import { ConnectionBanner } from ${JSON.stringify(path('../../../src/adapters/react/index.ts'))};
import { BANNER_CSS } from ${JSON.stringify(path('../../../examples/connection-banner.tsx'))};

const style = document.createElement('style');
style.textContent = BANNER_CSS + 'body { margin: 0; font: 16px/1.5 sans-serif; } .connection-banner { overflow: hidden; white-space: nowrap; }';
document.head.append(style);
let shift = 0;
const shifts = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) { shift += e.value; shifts.push(e.sources.map((s) => (s.node?.nodeName ?? '?') + ':' + (s.node?.textContent ?? '') + ' ' + JSON.stringify(s.previousRect) + '→' + JSON.stringify(s.currentRect))); } }).observe({ type: 'layout-shift', buffered: true });
const socket = new ReconnectingWebSocket(${JSON.stringify(url)}, [], {
  minReconnectionDelay: 3000, maxReconnectionDelay: 3000, reconnectionDelayJitter: 0, minUptime: 100,
});
const announced = [];
function App() {
  return h('div', null,
    h(ConnectionBanner, { source: socket, graceMs: 300, reconnectedMs: 1000 }),
    h('main', null, h('h1', null, 'Chat'), h('p', { id: 'content' }, 'Messages go here.')));
}
createRoot(document.getElementById('root')).render(h(App));
const watch = () => {
  const region = document.querySelector('.connection-banner [role="status"]');
  if (region === null) { requestAnimationFrame(watch); return; }
  new MutationObserver(() => {
    if (announced.at(-1) !== region.textContent) announced.push(region.textContent);
  }).observe(region, { subtree: true, childList: true, characterData: true });
};
watch();
window.test = {
  announced,
  shift: () => shift,
  shifts,
  phase: () => document.querySelector('.connection-banner')?.dataset.phase + '/' + document.querySelector('.connection-banner')?.dataset.visible,
};
`;

const WAIT_MS = 20_000;

describe.skipIf(!hasChromium)('ConnectionBanner in headless Chromium at 390 px', () => {
  let dir: string | undefined;
  let context: BrowserContext | undefined;
  const servers: TestServer[] = [];

  afterAll(async () => {
    await context?.close();
    for (const server of servers) await server.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, WAIT_MS);

  it('a banner for every phase with its action; phase changes announced, never the countdown; no layout shift', async () => {
    // A port that refuses: the page's first connection fails until the server starts on it.
    const probe = await startServer(0);
    const port = probe.port;
    await probe.stop();
    dir = await mkdtemp(join(tmpdir(), 'redialer-banner-'));
    await writeFile(join(dir, 'entry.js'), entry(`ws://127.0.0.1:${String(port)}/`));
    const bundle = await build({
      entryPoints: [join(dir, 'entry.js')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"development"' },
      write: false,
      logLevel: 'silent',
      nodePaths: [path('../../../node_modules')],
    });
    context = await launchChromium(join(dir, 'profile'), { viewport: { width: 390, height: 844 } });
    const page: Page = context.pages()[0] ?? (await context.newPage());
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.setContent('<!doctype html><div id="root"></div>');
    await page.addScriptTag({ content: bundle.outputFiles[0]?.text ?? '' });
    const banner = page.locator('.connection-banner');
    const phase = (expected: string) =>
      page.waitForFunction((p) => (window as unknown as TestWindow).test.phase() === p, expected, {
        timeout: WAIT_MS,
      });
    const tree: Record<string, string> = {};

    // 1. The first connection keeps failing: "Connecting" with a countdown and "Retry now".
    await phase('connecting/true');
    tree['connecting'] = await banner.ariaSnapshot();
    // Let the countdown tick (3 s waits): ticks must not reach the live region.
    await page.waitForFunction(
      () => /in [12] s/.test(document.querySelector('.connection-banner')?.textContent ?? ''),
      undefined,
      { timeout: WAIT_MS },
    );

    // 2. The server starts: connected, nothing shown.
    let server = await startServer(port);
    servers.push(server);
    await page.locator('.connection-banner button').click(); // "Retry now"
    await phase('connected/false');
    await page.waitForFunction(() => document.querySelector('.connection-banner')?.textContent === '', undefined, {
      timeout: WAIT_MS,
    });
    tree['connected'] = await banner.ariaSnapshot();

    // 3. An outage: "Reconnecting" with a countdown.
    await server.stop();
    await phase('reconnecting/true');
    tree['reconnecting'] = await banner.ariaSnapshot();
    await page.waitForFunction(
      () => /in [12] s/.test(document.querySelector('.connection-banner')?.textContent ?? ''),
      undefined,
      { timeout: WAIT_MS },
    );

    // 4. Offline: "Waiting for network…" at once; back online with the server up: "Reconnected".
    await context.setOffline(true);
    await phase('offline/true');
    tree['offline'] = await banner.ariaSnapshot();
    server = await startServer(port);
    servers.push(server);
    await context.setOffline(false);
    await phase('connected/false');
    await page.waitForFunction(
      () => document.querySelector('.connection-banner')?.textContent === 'Reconnected',
      undefined,
      { timeout: WAIT_MS },
    );
    tree['reconnected'] = await banner.ariaSnapshot();

    // 5. A permanent close (4401): "Connection lost" with "Try again", which starts again.
    await new Promise((resolve) => setTimeout(resolve, 300)); // past minUptime
    for (const client of server.clients) client.close(4401, 'unauthorized');
    await phase('failed/true');
    tree['failed'] = await banner.ariaSnapshot();
    await page.getByRole('button', { name: 'Try again' }).click();
    await phase('connected/false');

    const announced = await page.evaluate(() => (window as unknown as TestWindow).test.announced);
    const shift = await page.evaluate(() => (window as unknown as TestWindow).test.shift());
    // What moved, if anything did: the element, its text and its boxes before and after.
    if (shift > 0)
      console.log(
        JSON.stringify(await page.evaluate(() => (window as unknown as { test: { shifts: unknown } }).test.shifts)),
      );
    console.log(
      `ConnectionBanner at 390 px: ${String(announced.length)} live-region changes ${JSON.stringify(announced)}; layout shift ${String(shift)}\n` +
        Object.entries(tree)
          .map(([name, aria]) => `${name}:\n${aria}`)
          .join('\n'),
    );
    expect(problems).toEqual([]);
    expect(tree['connecting']).toMatch(/- status: Connecting\n/);
    expect(tree['connecting']).toMatch(/- button "Retry now"/);
    expect(tree['reconnecting']).toMatch(/- status: Reconnecting\n/);
    expect(tree['reconnecting']).toMatch(/- button "Retry now"/);
    expect(tree['offline']).toMatch(/- status: Waiting for network…/);
    expect(tree['offline']).not.toMatch(/button/);
    expect(tree['reconnected']).toMatch(/- status: Reconnected/);
    expect(tree['failed']).toMatch(/- status: "?Connection lost: .*4401/);
    expect(tree['failed']).toMatch(/- button "Try again"/);
    expect(tree['connected']).not.toMatch(/button|Connecting|Reconnecting/);
    // The live region changed with the phases only: no number, no countdown, no flash per attempt.
    expect(announced.some((text) => /\d+ s/.test(text))).toBe(false);
    expect(announced.filter((text) => text !== '')).toEqual([
      'Connecting',
      'Connected',
      'Reconnecting',
      'Waiting for network…',
      'Reconnecting', // online again: attempting while the outage is still shown
      'Reconnected',
      expect.stringMatching(/^Connection lost: .*4401/),
      'Reconnected', // after "Try again"
    ]);
    expect(shift).toBe(0);
    await page.close();
  }, 90_000);
});
