/**
 * examples/status-badge.ts in headless Chromium: the badge counts down while a manager waits and
 * "Retry now" starts the next attempt before the wait is over. Skipped, with a notice, where no
 * Chromium is installed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../support/chromium.js';

noticeIfNoChromium("the status badge's headless Chromium test");

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

// A manager whose first two attempts fail and whose third connects (Retry now resets the attempt
// number, so the page counts them itself); 3 s initial backoff.
const ENTRY = `
import { Observable } from 'rxjs';
import { ConnectionManager, grpcBackoff } from ${JSON.stringify(path('../../src/index.ts'))};
import { mountStatusBadge } from ${JSON.stringify(path('../../examples/status-badge.ts'))};
const starts = [];
let waitUntil = null;
const manager = new ConnectionManager({
  backoff: grpcBackoff({ initialBackoff: 3000 }),
  connector: () => new Observable((subscriber) => {
    starts.push(Date.now());
    if (starts.length < 3) subscriber.error(new Error('refused'));
    else subscriber.next('connected');
  }),
});
manager.state$.subscribe((s) => { waitUntil = s.state === 'TRANSIENT_FAILURE' ? s.nextAttemptAt : null; });
mountStatusBadge(document.getElementById('badge'), manager);
manager.connect();
window.example = { starts, waitUntil: () => waitUntil };
`;

interface ExampleWindow {
  example: { starts: number[]; waitUntil(): number | null };
}

describe.skipIf(!hasChromium)('examples/status-badge.ts in headless Chromium', () => {
  let dir: string | undefined;
  let context: BrowserContext | undefined;

  afterAll(async () => {
    await context?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('shows the countdown, and Retry now attempts at once until connected', async () => {
    dir = await mkdtemp(join(tmpdir(), 'redialer-badge-'));
    await writeFile(join(dir, 'entry.js'), ENTRY);
    const bundle = await build({
      entryPoints: [join(dir, 'entry.js')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      nodePaths: [path('../../node_modules')],
    });
    const script = bundle.outputFiles[0]!.text;
    context = await launchChromium(join(dir, 'profile'));
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setContent('<!doctype html><p id="badge"></p>');
    await page.addScriptTag({ content: script });

    const badge = page.locator('#badge');
    await expect.poll(() => badge.getAttribute('data-state')).toBe('TRANSIENT_FAILURE');
    expect(await badge.locator('span').textContent()).toMatch(/^Reconnecting in [1-3] s$/);
    expect(await badge.locator('button').isVisible()).toBe(true);

    for (const attempt of [2, 3]) {
      const waitUntil = await page.evaluate(() => (window as unknown as ExampleWindow).example.waitUntil());
      await badge.locator('button').click();
      await page.waitForFunction((n) => (window as unknown as ExampleWindow).example.starts.length === n, attempt, {
        timeout: 10_000,
      });
      const started = await page.evaluate((n) => (window as unknown as ExampleWindow).example.starts[n - 1]!, attempt);
      expect(started).toBeLessThan(waitUntil!);
    }
    await expect.poll(() => badge.getAttribute('data-state')).toBe('READY');
    expect(await badge.locator('span').textContent()).toBe('Connected');
    expect(await badge.locator('button').isVisible()).toBe(false);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
