/**
 * Running a script of test/fixtures/ in a child Node process, from the repository root: the checks
 * that need a process of their own (does Node exit by itself, is a value collectable) and run against
 * dist/.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { refusedPort } from './refused-port.js';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const run = promisify(execFile);

/** The path of a script in test/fixtures/. */
export const fixture = (name: string): string => join(root, 'test/fixtures', name);

/** Throws a clear error when `entry` (a file under dist/) has not been built. */
export function requireDist(entry = 'dist/index.js'): void {
  if (!existsSync(join(root, entry))) throw new Error('dist/ is missing: run `npm run build` (npm test does)');
}

/** Runs Node with `args` from the repository root; rejects as execFile does (a kill included). */
export function runNode(args: string[], timeout: number): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { timeout, cwd: root });
}

/**
 * Runs the fixture `file` (against dist/) retrying against a refused port, and expects Node to exit by
 * itself while it still retries: the attempts went on until the event loop had nothing else.
 */
export async function expectToExitWhileRetrying(file: string): Promise<void> {
  requireDist('dist/adapters/grpc/index.js');
  const port = await refusedPort();
  const { stdout } = await runNode([fixture(file), String(port)], 15_000);
  expect(stdout).toMatch(/exited in (TRANSIENT_FAILURE|CONNECTING) after attempt [2-9]/);
}

/**
 * Declares the test "`what`, retrying against a refused port": the fixture `file` runs as in
 * {@link expectToExitWhileRetrying} and Node must exit by itself.
 */
export function itExitsWhileRetrying(what: string, file: string): void {
  it(`${what}, retrying against a refused port`, async () => {
    await expectToExitWhileRetrying(file);
  });
}
