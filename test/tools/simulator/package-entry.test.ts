/**
 * The `redialer` executable. Runs against dist/ (the test script builds first); the simulator
 * subpath's imports are checked with the other entries in test/package.test.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };

beforeAll(() => {
  if (!existsSync(join(root, 'dist/tools/simulator/index.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
});

describe('the redialer executable', () => {
  const bin = join(root, pkg.bin['redialer'] ?? 'missing');

  it('is built with a node shebang', () => {
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('runs a small storm and exits 0; bad usage exits 2', async () => {
    const { stdout } = await run(
      process.execPath,
      [bin, 'simulate', '--clients', '50', '--outage', '3', '--capacity', '10', '--policy', 'full-jitter'],
      { timeout: 15_000 },
    );
    expect(stdout).toMatch(/^policy\s+peak\/s[\s\S]*\nfull-jitter\s/);
    await expect(
      run(process.execPath, [bin, 'simulate', '--capacity', 'lots'], { timeout: 15_000 }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--capacity must be an integer/) as unknown,
    });
  });
});
