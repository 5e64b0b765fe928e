/**
 * Debian's Chromium for the browser tests: where it is, whether it is there (a test that needs it is
 * skipped with a visible notice when it is not), and how to start it headless on this closed network.
 */
import { existsSync } from 'node:fs';
import { type BrowserContext, chromium } from 'playwright-core';

/** The Chromium binary: `REDIALER_CHROMIUM`, or Debian's `/usr/bin/chromium`. */
export const CHROMIUM = process.env['REDIALER_CHROMIUM'] ?? '/usr/bin/chromium';

/** Whether {@link CHROMIUM} exists. */
export const hasChromium = existsSync(CHROMIUM);

/** Headless flags; without the background-networking ones Chromium keeps dialling out. */
export const CHROMIUM_ARGS: readonly string[] = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]);

/** Warns, once per test file, that `what` is skipped because no Chromium is installed. */
export function noticeIfNoChromium(what: string): void {
  if (!hasChromium) {
    console.warn(
      `redialer: SKIPPING ${what}: no Chromium at ${CHROMIUM} (install Debian's "chromium" package, or set REDIALER_CHROMIUM)`,
    );
  }
}

/** Starts headless Chromium with a fresh profile in `profileDir`. */
export function launchChromium(
  profileDir: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
    ...(options.viewport === undefined ? {} : { viewport: options.viewport }),
  });
}
