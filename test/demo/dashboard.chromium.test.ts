/**
 * The dashboard end to end in headless Chromium: the demo runs in this process (its real servers,
 * proxies and clients), the page connects to it through redialer in the browser. Skipped, with a
 * notice, where no Chromium is installed. The screenshot is kept in test-results/.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoOutcome, type RunningDemo, runDemo } from '../../demo/run-demo.js';
import { FAST_SCENARIO } from '../../demo/scenario.js';
import { buildDemo, root } from './support.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../support/chromium.js';

noticeIfNoChromium("the dashboard's headless Chromium test");

interface Badge {
  state: string;
  attempt: number;
  nextAttemptAt: number | null;
}
interface HistoryEntry {
  at: number;
  state: string;
}
interface DemoWindow {
  redialerDemo: { badges: Map<string, Badge>; history: Record<string, HistoryEntry[]> };
}

/** The badge's data as the page holds it. */
const badge = (page: Page, id: string): Promise<Badge | undefined> =>
  page.evaluate((which) => (window as unknown as DemoWindow).redialerDemo.badges.get(which), id);

const waitForState = (page: Page, id: string, state: string): Promise<unknown> =>
  page.waitForSelector(`.card[data-client="${id}"] .badge[data-state="${state}"]`, { timeout: 20_000 });

/** Waits for TRANSIENT_FAILURE with more than `ms` left before the next attempt. */
const waitForLongWait = (page: Page, id: string, ms: number): Promise<unknown> =>
  page.waitForFunction(
    ([which, least]) => {
      const b = (window as unknown as DemoWindow).redialerDemo.badges.get(which);
      return b?.state === 'TRANSIENT_FAILURE' && b.nextAttemptAt !== null && b.nextAttemptAt - Date.now() > least;
    },
    [id, ms] as const,
    { timeout: 30_000, polling: 50 },
  );

const countdown = async (page: Page, id: string): Promise<number> => {
  const text = (await page.textContent(`.card[data-client="${id}"] .countdown`)) ?? '';
  const match = /^reconnecting in (\d+\.\d) s$/.exec(text);
  expect(match, `countdown text: ${JSON.stringify(text)}`).not.toBeNull();
  return Number(match![1]);
};

/** Clicks "Retry now" during a wait and returns [when the wait would have ended, when the next attempt began]. */
async function retryNow(page: Page, id: string): Promise<[number, number]> {
  const before = await badge(page, id);
  const scheduled = before!.nextAttemptAt!;
  const seen = await page.evaluate(
    (which) => (window as unknown as DemoWindow).redialerDemo.history[which]!.length,
    id,
  );
  await page.click(`.card[data-client="${id}"] button.retry`);
  const started = await page.waitForFunction(
    ([which, from]) =>
      (window as unknown as DemoWindow).redialerDemo.history[which]!.slice(from).find((h) => h.state === 'CONNECTING')
        ?.at,
    [id, seen] as const,
    { timeout: 10_000, polling: 20 },
  );
  return [scheduled, (await started.jsonValue())!];
}

describe.skipIf(!hasChromium)('the dashboard in headless Chromium', () => {
  let profile: string | undefined;
  let context: BrowserContext | undefined;
  let demo: RunningDemo | undefined;
  let finished: Promise<DemoOutcome> | undefined;
  const stop = new AbortController();

  beforeAll(async () => {
    const assetsDir = await buildDemo('demo-build-chromium');
    profile = await mkdtemp(join(tmpdir(), 'redialer-dashboard-'));
    await new Promise<void>((resolve, reject) => {
      finished = runDemo({
        scenario: FAST_SCENARIO,
        skipScript: true,
        serve: true,
        port: 0,
        assetsDir,
        out: { write: () => true },
        signal: stop.signal,
        onReady: (running) => {
          demo = running;
          resolve();
        },
      });
      finished.catch(reject);
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    stop.abort();
    await finished;
    if (profile !== undefined) await rm(profile, { recursive: true, force: true });
  });

  it('shows live badges; the page reconnects through redialer as the demo server restarts; Retry now starts an attempt at once', async () => {
    context = await launchChromium(profile!, { viewport: { width: 1200, height: 900 } });
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(demo!.dashboard.url);

    // The page loads: its own connection and both demo clients are READY; the simulator has plotted.
    await waitForState(page, 'page', 'READY');
    await waitForState(page, 'grpc', 'READY');
    await waitForState(page, 'websocket', 'READY');
    expect(await page.locator('#storm-plot svg').count()).toBe(1);
    expect(await page.getAttribute('#storm-plot svg', 'aria-labelledby')).toMatch(/^plot-\w+-title plot-\w+-desc$/);

    // The "± fraction" field shows only for gRPC's proportional jitter.
    expect(await page.isHidden('#fraction-field')).toBe(true);
    await page.selectOption('select[name="jitter"]', 'proportional');
    expect(await page.isVisible('#fraction-field')).toBe(true);
    await page.selectOption('select[name="jitter"]', 'none');
    expect(await page.isHidden('#fraction-field')).toBe(true);

    // The log counts seconds since the demo started, as the terminal does; counts are spelled right.
    const logLines = ((await page.textContent('#log')) ?? '').split('\n');
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(line).toMatch(/^ *\d+\.\d\d s {2}\S/);
    for (const meta of await page.locator('.card .meta').allTextContents())
      expect(meta).not.toMatch(/\b1 (attempts|backoff resets)\b/);

    // The demo server goes away: the page's badge leaves READY and counts down to its next attempt.
    await demo!.dashboard.pause();
    await waitForState(page, 'page', 'TRANSIENT_FAILURE');
    // Screen readers hear it through the polite live region.
    expect(await page.getAttribute('#announce', 'aria-live')).toBe('polite');
    await page.waitForFunction(
      () =>
        /^This page .*: (waiting to reconnect|connecting)/.test(document.getElementById('announce')?.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    );
    await waitForLongWait(page, 'page', 1500);
    const attempt = (await badge(page, 'page'))!.attempt;
    const first = await countdown(page, 'page');
    await page.waitForTimeout(400);
    const second = await countdown(page, 'page');
    expect((await badge(page, 'page'))!.attempt).toBe(attempt); // the same wait
    expect(second).toBeLessThan(first);

    // Retry now: the next attempt starts before the wait would have ended.
    const [scheduled, started] = await retryNow(page, 'page');
    expect(started).toBeLessThan(scheduled);

    // The demo server is back: READY again.
    await demo!.dashboard.resume();
    await waitForState(page, 'page', 'READY');
    const states = await page.evaluate(() =>
      (window as unknown as DemoWindow).redialerDemo.history['page']!.map((h) => h.state),
    );
    const lost = states.indexOf('TRANSIENT_FAILURE');
    expect(states.slice(0, lost)).toContain('READY');
    expect(lost).toBeGreaterThan(0);
    expect(states.at(-1)).toBe('READY');

    // A demo client: the proxy refuses, the badge counts down, Retry now (resetBackoff on the server) attempts at once.
    await page.click('.card[data-client="grpc"] button[data-fault="refuse"]');
    await waitForState(page, 'grpc', 'TRANSIENT_FAILURE');
    await waitForLongWait(page, 'grpc', 1000);
    const [grpcScheduled, grpcStarted] = await retryNow(page, 'grpc');
    expect(grpcStarted).toBeLessThan(grpcScheduled);
    await page.click('.card[data-client="grpc"] button[data-fault="pass"]');
    await waitForState(page, 'grpc', 'READY');

    await page.screenshot({ path: join(root, 'test-results/dashboard.png'), fullPage: true });

    // On a 390 px phone: nothing wider than the screen; the storm plot is redrawn for the width (the
    // form's defaults pass its own validation, or Simulate would do nothing).
    expect(await page.evaluate(() => (document.getElementById('storm-form') as HTMLFormElement).checkValidity())).toBe(
      true,
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#storm-form button[type="submit"]');
    await page.waitForFunction(
      () =>
        (document.querySelector('#storm-plot svg')?.getAttribute('width') ?? '') !== '' &&
        Number(document.querySelector('#storm-plot svg')!.getAttribute('width')) <= 390,
      undefined,
      { timeout: 30_000 },
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(root, 'test-results/dashboard-390.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
