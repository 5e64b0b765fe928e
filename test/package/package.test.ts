/**
 * The published shape of the package: exports map, CommonJS consumers, a browser-safe root entry,
 * the files whitelist and unref'd timers. Runs against dist/ (the test script builds first).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { externalPackages } from '../support/import-graph.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
  files: string[];
  sideEffects: boolean;
  peerDependencies: Record<string, string>;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
};

beforeAll(() => {
  if (!existsSync(join(root, 'dist/index.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
});

describe('exports map', () => {
  const entries = Object.entries(pkg.exports).filter(([key]) => key !== './package.json');

  it.each(entries)('%s points at built JavaScript and types', (_key, target) => {
    expect(typeof target).toBe('object');
    const { types, default: js } = target as { types: string; default: string };
    expect(existsSync(join(root, js)), js).toBe(true);
    expect(existsSync(join(root, types)), types).toBe(true);
  });

  it('is side-effect free and has rxjs as a peer', () => {
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.peerDependencies['rxjs']).toMatch(/^\^7\.8/);
  });
});

describe('CommonJS', () => {
  it('require("redialer") works from a CommonJS consumer', async () => {
    const { stdout, stderr } = await run(process.execPath, [join(root, 'test/fixtures/cjs-consumer.cjs')], {
      timeout: 15_000,
    });
    expect(JSON.parse(stdout)).toEqual({ state: 'CONNECTING', after: 'SHUTDOWN', pending: 0, sameRxjs: true });
    expect(stderr).not.toMatch(/Error/);
  });
});

describe('browser-safe entries import only what they declare', () => {
  it.each([
    ['dist/index.js', ['rxjs']],
    ['dist/testing/index.js', ['pure-rand', 'rxjs']],
    ['dist/adapters/websocket/index.js', ['rxjs']],
    ['dist/adapters/sse/index.js', ['rxjs']],
    ['dist/toolkits/retry/index.js', ['rxjs']],
    ['dist/tools/simulator/index.js', ['pure-rand', 'rxjs']],
    ['dist/adapters/react/index.js', ['react', 'rxjs']],
    ['dist/core/index.js', []],
  ] as const)('%s imports only %j', (entry, allowed) => {
    expect(externalPackages(join(root, entry))).toEqual(allowed);
  });

  it.each([
    // bullmq is an optional peer imported only here; ioredis is typed structurally and never imported.
    ['dist/toolkits/bullmq/index.js', ['bullmq', 'rxjs']],
    ['dist/toolkits/redis/index.js', ['node:crypto', 'rxjs']],
    // Node's http and ws are only types here: the helpers take the caller's server.
    ['dist/toolkits/server/index.js', []],
  ] as const)('the Node entry %s imports only %j', (entry, allowed) => {
    expect(externalPackages(join(root, entry))).toEqual(allowed);
  });

  it('bullmq and ioredis are optional peers', () => {
    const meta = (pkg as unknown as { peerDependenciesMeta: Record<string, { optional?: boolean }> })
      .peerDependenciesMeta;
    expect(meta['bullmq']?.optional).toBe(true);
    expect(meta['ioredis']?.optional).toBe(true);
  });

  it('react is an optional peer (>= 18) that only redialer/react imports', () => {
    expect(pkg.peerDependencies['react']).toBe('>=18');
    expect(
      (pkg as { peerDependenciesMeta?: Record<string, { optional?: boolean }> }).peerDependenciesMeta?.['react']
        ?.optional,
    ).toBe(true);
    for (const entry of [
      'dist/index.js',
      'dist/testing/index.js',
      'dist/adapters/websocket/index.js',
      'dist/adapters/sse/index.js',
      'dist/toolkits/retry/index.js',
      'dist/tools/simulator/index.js',
    ]) {
      expect(externalPackages(join(root, entry))).not.toContain('react');
    }
  });

  it("the simulator's pure-rand is a runtime dependency", () => {
    expect(pkg.dependencies?.['pure-rand']).toBeDefined();
  });
});

describe('files whitelist', () => {
  it('packs dist, the user docs, the examples and the benchmark figures they link to', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      timeout: 60_000,
    });
    const [report] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    const shipped =
      /^(dist\/|docs\/[^/]+\.md$|examples\/|bench\/results\/[^/]+\.svg$|(README|BENCHMARKS|RELIABILITY|CHANGELOG)\.md$|LICENSE$|package\.json$)/;
    const outside = report.files.map((f) => f.path).filter((p) => !shipped.test(p));
    expect(outside).toEqual([]);
    expect(report.files.some((f) => f.path === 'dist/index.d.ts')).toBe(true);
    expect(report.files.some((f) => f.path === 'CHANGELOG.md')).toBe(true);
  });
});

describe('unref', () => {
  it('a manager with unref: true lets Node exit by itself while it keeps retrying', async () => {
    const { stdout } = await run(process.execPath, [join(root, 'test/fixtures/unref-exit.mjs')], { timeout: 15_000 });
    expect(stdout).toMatch(/exited in (TRANSIENT_FAILURE|CONNECTING)/);
  });
});
