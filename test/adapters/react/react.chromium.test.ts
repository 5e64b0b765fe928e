/**
 * redialer/react really rendered: its ConnectionBanner (useConnectionStatus and
 * useRetryCountdown) in headless Chromium over a ReconnectingWebSocket on the browser's WebSocket,
 * against a real `ws` server on 127.0.0.1 that the test stops and restarts. The page is hydrated from
 * react-dom/server's HTML; every change of the banners is logged in the page with its time, and the
 * assertions read that log and the DOM. Skipped, with a notice, where no Chromium is installed.
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AddressInfo, WebSocketServer } from 'ws';
import { ConnectionBanner } from '../../../src/adapters/react/index.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../../support/chromium.js';

noticeIfNoChromium("redialer/react's headless Chromium test");

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/** One logged change of the page: the first banner's text and data, and the socket's state then. */
interface Entry {
  at: number;
  text: string;
  phase: string;
  visible: string;
  /** Whether the second banner (same source) showed exactly the same thing: no tearing. */
  same: boolean;
  state: string;
  retryAt: number | null;
  since: number;
}
interface TestWindow {
  test: {
    log: Entry[];
    countdownRenders(): number;
    /** When each attempt started, and when each connection was lost (page clock). */
    starts: number[];
    losses: number[];
    socket: { snapshot: { state: string; nextAttemptAt?: number } };
  };
}

// Two banners over one socket, and a countdown component whose renders are counted. 5 s grace (the
// default); "Reconnected" for 1.5 s.
const entry = (url: string): string => `
import { createElement as h } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { ReconnectingWebSocket } from ${JSON.stringify(path('../../../src/adapters/websocket/index.ts'))};
import { ConnectionBanner, useConnectionStatus, useRetryCountdown } from ${JSON.stringify(path('../../../src/adapters/react/index.ts'))};

const socket = new ReconnectingWebSocket(${JSON.stringify(url)}, [], { minUptime: 500 });
const starts = [];
const losses = [];
let up = false;
socket.state$.subscribe((s) => {
  if (s.state === 'CONNECTING') starts.push(s.since);
  if (s.state === 'READY') up = true;
  else if (up) { up = false; losses.push(s.since); }
});
let countdownRenders = 0;
function Countdown({ source }) {
  countdownRenders += 1;
  const seconds = useRetryCountdown(useConnectionStatus(source).retryAt);
  return h('span', { id: 'countdown' }, seconds === undefined ? '' : String(seconds));
}
function App({ source }) {
  return h('main', null, h('div', { id: 'one' }, h(ConnectionBanner, { source, reconnectedMs: 1500 })),
    h('div', { id: 'two' }, h(ConnectionBanner, { source, reconnectedMs: 1500 })), h(Countdown, { source }));
}
const log = [];
const root = document.getElementById('root');
const record = () => {
  const one = document.querySelector('#one .connection-banner');
  const two = document.querySelector('#two .connection-banner');
  if (one === null) return;
  const s = socket.snapshot;
  const item = { at: Date.now(), text: one.textContent, phase: one.dataset.phase, visible: one.dataset.visible,
    same: two !== null && one.outerHTML === two.outerHTML, state: s.state, since: s.since,
    retryAt: s.state === 'TRANSIENT_FAILURE' ? s.nextAttemptAt : null };
  const last = log.at(-1);
  if (last === undefined || last.text !== item.text || last.phase !== item.phase || last.visible !== item.visible) log.push(item);
};
new MutationObserver(record).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
window.test = { log, starts, losses, countdownRenders: () => countdownRenders, socket };
hydrateRoot(root, h(App, { source: socket }), {
  onRecoverableError: (error) => { console.error('hydration: ' + String(error)); },
});
`;

async function startServer(port: number, onConnection: () => void): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port });
  await once(wss, 'listening');
  wss.on('connection', onConnection);
  return wss;
}

/** Stops the server: every client is cut (close 1006 in the browser) and the port refuses. */
async function stopServer(wss: WebSocketServer): Promise<void> {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => {
    wss.close(() => {
      resolve();
    });
  });
}

// Each wait is for an event (a banner change, a log entry); its bound only says how long a loaded machine may
// take. 18.9 s for the whole test was measured on a busy 2-core machine, so every wait gets a minute.
const WAIT_MS = 60_000;

const log = (page: Page): Promise<Entry[]> => page.evaluate(() => (window as unknown as TestWindow).test.log);
const banner = (page: Page, phase: string, visible: boolean, timeout = WAIT_MS): Promise<unknown> =>
  page.waitForSelector(`#one .connection-banner[data-phase="${phase}"][data-visible="${String(visible)}"]`, {
    timeout,
    state: 'attached',
  });

describe.skipIf(!hasChromium)('redialer/react in headless Chromium against a real WebSocket server', () => {
  let dir: string | undefined;
  let context: BrowserContext | undefined;
  let server: WebSocketServer | undefined;
  let connections = 0;
  const onConnection = (): void => {
    connections += 1;
  };

  beforeAll(async () => {
    server = await startServer(0, onConnection);
  });

  afterAll(async () => {
    await context?.close();
    if (server !== undefined) await stopServer(server);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, WAIT_MS);

  it(
    'hides a blip, shows an outage after 5 s with a countdown that ticks once a second, "Waiting for network…" at once when offline',
    async () => {
      const port = (server!.address() as AddressInfo).port;
      dir = await mkdtemp(join(tmpdir(), 'redialer-react-'));
      await writeFile(join(dir, 'entry.js'), entry(`ws://127.0.0.1:${String(port)}/`));
      const bundle = await build({
        entryPoints: [join(dir, 'entry.js')],
        bundle: true,
        format: 'iife',
        platform: 'browser',
        jsx: 'automatic',
        define: { 'process.env.NODE_ENV': '"development"' }, // React's checks (getSnapshot caching, hydration) on
        write: false,
        logLevel: 'silent',
        nodePaths: [path('../../../node_modules')],
      });
      // The server's HTML: what react-dom/server renders without a live source (the server snapshots).
      const banners = renderToString(
        h(
          'main',
          null,
          ...['one', 'two'].map((id) =>
            h('div', { id, key: id }, h(ConnectionBanner, { source: null, reconnectedMs: 1500 })),
          ),
          h('span', { id: 'countdown' }, ''),
        ),
      );
      context = await launchChromium(join(dir, 'profile'));
      const page = context.pages()[0] ?? (await context.newPage());
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        // Chromium logs each refused WebSocket itself; anything else (React's warnings) is a problem.
        if (
          (message.type() === 'error' || message.type() === 'warning') &&
          !/^WebSocket connection to .* failed/.test(message.text())
        ) {
          problems.push(message.text());
        }
      });
      await page.setContent(`<!doctype html><div id="root">${banners}</div>`);
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });

      // Connected: the banner is empty and hidden, and nothing ticks.
      await banner(page, 'connected', false);
      expect(connections).toBe(1);
      const renders = await page.evaluate(() => (window as unknown as TestWindow).test.countdownRenders());
      await page.waitForTimeout(1500);
      expect(await page.evaluate(() => (window as unknown as TestWindow).test.countdownRenders())).toBe(renders);

      // A blip: the server goes away and is back at once; the client reconnects well within the grace period.
      await stopServer(server!);
      server = await startServer(port, onConnection);
      await page.waitForFunction(
        (n) =>
          (window as unknown as TestWindow).test.log
            .slice(n)
            .some((e) => e.state === 'READY' && e.phase === 'connected'),
        (await log(page)).length,
        { timeout: WAIT_MS, polling: 50 },
      );
      await page.waitForFunction(
        () => (window as unknown as TestWindow).test.log.some((e) => e.phase === 'reconnecting'),
        undefined,
        { timeout: WAIT_MS },
      );
      expect(connections).toBe(2);
      expect((await log(page)).filter((e) => e.visible === 'true')).toEqual([]);

      // An outage: hidden for 5 s from the loss, then "Reconnecting in N s · Retry now".
      const before = (await log(page)).length;
      await stopServer(server);
      await banner(page, 'reconnecting', true);
      const outage = (await log(page)).slice(before);
      const lostAt = await page.evaluate(() => (window as unknown as TestWindow).test.losses.at(-1)!);
      const shown = outage.find((e) => e.visible === 'true')!;
      expect(shown.at - lostAt).toBeGreaterThanOrEqual(5000); // never before the grace is over
      expect(outage.filter((e) => e.at < shown.at).every((e) => e.visible === 'false')).toBe(true);

      // The countdown: wait through at least three whole seconds of one wait; every number shown is the
      // whole seconds left until the socket's next attempt (rounded up), never less.
      await page.waitForFunction(
        () => {
          const entries = (window as unknown as TestWindow).test.log;
          const counts = entries.map((e) => /Reconnecting in (\d+) s/.exec(e.text)?.[1]).filter((n) => n !== undefined);
          return new Set(counts).size >= 3 && entries.at(-1)!.text.includes('Reconnecting in 1 s');
        },
        undefined,
        { timeout: WAIT_MS, polling: 50 },
      );
      const counting = (await log(page)).slice(before).filter((e) => /^Reconnecting in \d+ s/.test(e.text));
      for (const e of counting) {
        const shownSeconds = Number(/in (\d+) s/.exec(e.text)![1]);
        expect(e.retryAt, JSON.stringify(e)).not.toBeNull();
        const left = Math.ceil((e.retryAt! - e.at) / 1000);
        expect(shownSeconds - left, JSON.stringify(e)).toBeGreaterThanOrEqual(0);
        expect(shownSeconds - left, JSON.stringify(e)).toBeLessThanOrEqual(1);
      }
      const sequence = counting.map((e) => e.text);
      expect(sequence.length).toBeGreaterThanOrEqual(3);
      expect(await page.textContent('#one .connection-banner')).toMatch(/^Reconnecting in 1 s · Retry now$/);

      // In a long wait the server comes back; "Retry now" attempts at once instead of waiting:
      // "Reconnected", then nothing.
      const waiting = await page.waitForFunction(
        () => {
          const s = (window as unknown as TestWindow).test.socket.snapshot;
          return s.state === 'TRANSIENT_FAILURE' && s.nextAttemptAt! - Date.now() > 1500 ? s.nextAttemptAt : undefined;
        },
        undefined,
        { timeout: WAIT_MS, polling: 20 },
      );
      const waitUntil = (await waiting.jsonValue())!;
      server = await startServer(port, onConnection);
      const backFrom = (await log(page)).length;
      await page.click('#one .connection-banner button');
      await banner(page, 'connected', false);
      const lastStart = await page.evaluate(() => (window as unknown as TestWindow).test.starts.at(-1)!);
      expect(lastStart).toBeLessThan(waitUntil);
      await page.waitForFunction(
        (n) => (window as unknown as TestWindow).test.log.slice(n).some((e) => e.text === 'Reconnected'),
        backFrom,
        { timeout: WAIT_MS },
      );
      await page.waitForFunction(
        () => document.querySelector('#one .connection-banner')!.textContent === '',
        undefined,
        {
          timeout: WAIT_MS,
        },
      );
      expect(connections).toBe(3);

      // Offline: the browser goes offline and the connection drops; the socket waits for the network and
      // the banner says so at once (no grace), before any "Reconnecting" is shown.
      const offlineFrom = (await log(page)).length;
      await context.setOffline(true);
      await stopServer(server);
      server = await startServer(port, onConnection);
      await banner(page, 'offline', true);
      expect(await page.textContent('#one .connection-banner')).toBe('Waiting for network…');
      const offline = (await log(page)).slice(offlineFrom);
      expect(offline.find((e) => e.visible === 'true')?.phase).toBe('offline');
      const onlineFrom = (await log(page)).length;
      await context.setOffline(false);
      await banner(page, 'connected', false);
      await page.waitForFunction(
        (n) => (window as unknown as TestWindow).test.log.slice(n).some((e) => e.text === 'Reconnected'),
        onlineFrom,
        { timeout: WAIT_MS },
      );
      expect(connections).toBe(4);

      // Both banners rendered the same thing at every change (one cached status per source), and React
      // reported nothing (no uncached getSnapshot, no hydration mismatch).
      const all = await log(page);
      expect(all.filter((e) => !e.same)).toEqual([]);
      expect(problems).toEqual([]);
      console.log(
        `redialer/react in Chromium, the banner's texts in order: ${JSON.stringify([...new Set(all.map((e) => `${e.phase}/${e.visible}: ${e.text}`))])}`,
      );
    },
    4 * WAIT_MS,
  );
});
