/**
 * `npm run bench:loopback-pair [-- --subject ManagedChannel --connections 1000 --rounds 16]`: the
 * loopback storm with two subjects side by side over many rounds (`runLoopbackPair`), for a CPU
 * difference smaller than `npm run bench`'s eight rounds can resolve. The subject is divided by plain
 * grpc-js channels. Prints the per-round ratios and writes bench/results/loopback-pair.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoopbackPair } from './loopback-bench.js';
import { median } from '../support/median.js';

const { values } = parseArgs({
  options: { subject: { type: 'string' }, connections: { type: 'string' }, rounds: { type: 'string' } },
});
const subject = `redialer ${values.subject ?? 'ManagedChannel'}`;
const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};
const result = await runLoopbackPair({
  subjects: [subject, 'plain @grpc/grpc-js channels'],
  connections: Number(values.connections ?? 1000),
  downtime: 3000,
  rounds: Number(values.rounds ?? 16),
  say,
});
const all = [...result.firstHalf, ...result.secondHalf];
const describe = (xs: readonly number[]): string =>
  `median ${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}), below 1 in ${String(xs.filter((x) => x < 1).length)} of ${String(xs.length)}`;
say(`${subject} ÷ plain grpc-js, client CPU per storm of ${String(result.connections)} connections:`);
say(`  first half:  ${describe(result.firstHalf)}`);
say(`  second half: ${describe(result.secondHalf)}`);
say(`  all rounds:  ${describe(all)}`);
mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench/results/loopback-pair.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...result }, null, 1)}\n`,
);
