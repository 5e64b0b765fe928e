/**
 * `npm run size`: measures the bundle sizes (bundle-size.ts), writes bench/results/bundle-size.json
 * and regenerates the sizes block of BENCHMARKS.md with the budgets of bench/size/budgets.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIZES_END, SIZES_START, renderBundleSizes, spliceBlock } from '../report/render-markdown.js';
import { measureBundleSizes } from './bundle-size.js';

const root = process.cwd();
const report = await measureBundleSizes(root);
writeFileSync(join(root, 'bench/results/bundle-size.json'), `${JSON.stringify(report, null, 1)}\n`);
const budgets = JSON.parse(readFileSync(join(root, 'bench/size/budgets.json'), 'utf8')) as Record<string, number>;
const appBudgets = JSON.parse(readFileSync(join(root, 'bench/size/app-budgets.json'), 'utf8')) as Record<
  string,
  number
>;
const target = join(root, 'BENCHMARKS.md');
const document = readFileSync(target, 'utf8');
writeFileSync(target, spliceBlock(document, SIZES_START, SIZES_END, renderBundleSizes(report, budgets, appBudgets)));
process.stderr.write('size: wrote bench/results/bundle-size.json and the sizes block of BENCHMARKS.md\n');
