/**
 * `npm run bench [-- --quick] [-- --only aws,storm,overhead,loopback]`: runs the benchmarks, writes
 * JSON and SVG under bench/results/ (bench/results/quick/ in quick mode) and the figures into
 * BENCHMARKS.md (full mode) or bench/results/quick/BENCHMARKS.md (quick mode).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { awsSvgs, runAwsStudy } from './aws/aws-study.js';
import { runLoopback } from './loopback/loopback-bench.js';
import { runOverhead } from './overhead/overhead-bench.js';
import {
  type BenchReport,
  START,
  renderResults,
  renderSections,
  spliceResults,
  spliceSections,
} from './report/render-markdown.js';
import { runStormScenarios } from './storm/storm-bench.js';
import { stormScenarios } from './storm/storm-scenarios.js';
import { environment } from './support/environment.js';

const SECTIONS = ['aws', 'storm', 'overhead', 'loopback'] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, only: { type: 'string' } } });
const quick = values.quick ?? false;
const only = (values.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim());
for (const s of only) {
  if (!(SECTIONS as readonly string[]).includes(s)) {
    process.stderr.write(`bench: --only ${JSON.stringify(s)} is not a section; choose from ${SECTIONS.join(', ')}\n`);
    process.exit(2);
  }
}
const wanted = (s: Section): boolean => only.includes(s);
const root = process.cwd();
const dir = quick ? 'bench/results/quick' : 'bench/results';
mkdirSync(join(root, dir), { recursive: true });
const write = (name: string, text: string): void => {
  writeFileSync(join(root, dir, name), text);
};
const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

const started = performance.now();
const env = environment();
const report: { -readonly [K in keyof BenchReport]: BenchReport[K] } = { environment: env, quick, seconds: 0 };

if (wanted('aws')) {
  say('aws: backoff-and-jitter study');
  const clients = quick ? [10, 50, 100, 150] : Array.from({ length: 15 }, (_, i) => 10 * (i + 1));
  const aws = runAwsStudy({
    clients,
    runs: quick ? 10 : 100,
    seed: 1,
    seriesClients: 100,
    onProgress: (done, total) => {
      process.stderr.write(`\r  ${String(done)}/${String(total)} points`);
    },
  });
  say('');
  report.aws = aws;
  write('aws.json', `${JSON.stringify(aws, null, 1)}\n`);
  const svgs = awsSvgs(aws);
  write('aws-calls.svg', svgs.calls);
  write('aws-time.svg', svgs.time);
  write('aws-writes.svg', svgs.series);
}

if (wanted('storm')) {
  const scenarios = stormScenarios(quick);
  say(
    `storm: ${String(scenarios.length)} scenarios, ${String(scenarios.reduce((n, s) => n + s.policies.length * s.seeds.length, 0))} runs`,
  );
  report.storms = await runStormScenarios(scenarios, (done, total) => {
    process.stderr.write(`\r  ${String(done)}/${String(total)} runs`);
  });
  say('');
  for (const s of report.storms) write(`storm-${s.scenario.id}.svg`, s.svg);
  write(
    'storm.json',
    `${JSON.stringify(
      report.storms.map((s) => ({ scenario: s.scenario, summaries: s.summaries })),
      null,
      1,
    )}\n`,
  );
}

if (wanted('overhead')) {
  say('overhead: heap, creation, cycles');
  report.overhead = await runOverhead({ count: quick ? 10_000 : 100_000, cycleSeconds: quick ? 0.5 : 2 });
  write('overhead.json', `${JSON.stringify(report.overhead, null, 1)}\n`);
}

if (wanted('loopback')) {
  say('loopback: grpc-js server restart through the real adapters');
  report.loopback = await runLoopback({
    sizes: quick ? [100] : [1000, 5000],
    downtime: quick ? 1000 : 3000,
    // CPU from rounds with every subject at once; times from runs alone, each subject first, second
    // and last once (see runLoopback).
    rounds: quick ? 1 : 8,
    aloneRuns: quick ? 1 : 3,
    say,
  });
  write('loopback.json', `${JSON.stringify(report.loopback, null, 1)}\n`);
}

report.seconds = (performance.now() - started) / 1000;
write('environment.json', `${JSON.stringify({ ...env, quick, seconds: report.seconds, sections: only }, null, 1)}\n`);
const relative = quick ? '.' : 'bench/results';
const target = quick ? join(root, dir, 'BENCHMARKS.md') : join(root, 'BENCHMARKS.md');
const previous = existsSync(target) ? readFileSync(target, 'utf8') : '# Benchmarks\n';
// A full run replaces the whole generated block; a run of some sections (--only) replaces only those.
const partial = values.only !== undefined && only.length < SECTIONS.length && previous.includes(START);
writeFileSync(
  target,
  partial
    ? spliceSections(previous, renderSections(report, relative))
    : spliceResults(previous, renderResults(report, relative)),
);
say(
  `bench: done in ${report.seconds.toFixed(0)} s; wrote ${dir}/ and ${quick ? `${dir}/BENCHMARKS.md` : 'BENCHMARKS.md'}`,
);
// reconnecting-websocket's close() leaves its reconnect timers armed; do not wait for them.
process.exit(0);
