/**
 * A list of cleanup steps run after each test, last added first, each awaited: servers, proxies,
 * clients and channels a test starts join it, so a failing test still leaves nothing behind. Call
 * it once at the top level of a test file.
 */
import { afterEach } from 'vitest';

export type Cleanup = (() => unknown)[];

export function cleanupAfterEach(): Cleanup {
  const cleanup: Cleanup = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  return cleanup;
}
