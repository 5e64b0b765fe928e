/**
 * The bundle-size check: each subpath, bundled whole by esbuild with rxjs external, stays within its
 * budget (bench/size/budgets.json), every subpath has one, each redialer app bundle (a page's use of
 * one thing, rxjs bundled) stays within its own (bench/size/app-budgets.json), and BENCHMARKS.md shows the committed
 * figures with the current budgets (regenerate with `npm run size`). Measured on dist/; runs once per CI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BundleSizeReport, measureBundleSizes } from '../../bench/size/bundle-size.js';
import { SIZES_END, SIZES_START, renderBundleSizes } from '../../bench/report/render-markdown.js';
import { repoRoot } from '../support/packed-package.js';

const skip = process.env['REDIALER_PACKAGE_CHECKS'] === 'skip';
if (skip) console.log('bundle-size: skipped (REDIALER_PACKAGE_CHECKS=skip; runs once per CI)');

const budgets = JSON.parse(readFileSync(join(repoRoot, 'bench/size/budgets.json'), 'utf8')) as Record<string, number>;
const appBudgets = JSON.parse(readFileSync(join(repoRoot, 'bench/size/app-budgets.json'), 'utf8')) as Record<
  string,
  number
>;
let measured: BundleSizeReport | undefined;

beforeAll(async () => {
  if (!skip) measured = await measureBundleSizes(repoRoot);
}, 120_000);

describe.skipIf(skip)('bundle size', () => {
  it('every subpath stays within its budget (gzipped, rxjs external)', () => {
    const over = measured!.subpaths
      .filter((s) => s.rxjsExternal.gzip > (budgets[s.subpath] ?? 0))
      .map(
        (s) => `${s.subpath}: ${String(s.rxjsExternal.gzip)} B > budget ${String(budgets[s.subpath] ?? 'missing')} B`,
      );
    expect(over).toEqual([]);
  });

  it('every redialer app stays within its budget (gzipped, everything it pulls bundled)', () => {
    const apps = measured!.apps.filter((a) => a.name.startsWith('redialer'));
    const over = apps
      .filter((a) => a.gzip > (appBudgets[a.name] ?? 0))
      .map((a) => `${a.name}: ${String(a.gzip)} B > budget ${String(appBudgets[a.name] ?? 'missing')} B`);
    expect(over).toEqual([]);
    expect(Object.keys(appBudgets).sort()).toEqual(apps.map((a) => a.name).sort());
  });

  it('every budget belongs to a subpath', () => {
    const subpaths = measured!.subpaths.map((s) => s.subpath).sort();
    expect(Object.keys(budgets).sort()).toEqual(subpaths);
  });

  it('BENCHMARKS.md shows the committed figures with the current budgets (npm run size)', () => {
    const committed = JSON.parse(
      readFileSync(join(repoRoot, 'bench/results/bundle-size.json'), 'utf8'),
    ) as BundleSizeReport;
    const document = readFileSync(join(repoRoot, 'BENCHMARKS.md'), 'utf8');
    const block = document.slice(
      document.indexOf(SIZES_START) + SIZES_START.length + 1,
      document.indexOf(SIZES_END) - 1,
    );
    expect(block).toBe(renderBundleSizes(committed, budgets, appBudgets));
  });
});
