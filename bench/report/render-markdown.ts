/** Renders the measured figures as the generated part of BENCHMARKS.md. */
import type { AwsStudyResult } from '../aws/aws-study.js';
import type { BundleSizeReport } from '../size/bundle-size.js';
import type { LoopbackFigure } from '../loopback/loopback-bench.js';
import type { OverheadResult } from '../overhead/overhead-bench.js';
import type { StormBenchResult } from '../storm/storm-bench.js';
import { stormSection } from './storm-section.js';
import type { Environment } from '../support/environment.js';
import { median } from '../support/median.js';

export interface BenchReport {
  readonly environment: Environment;
  readonly quick: boolean;
  readonly seconds: number;
  readonly aws?: AwsStudyResult;
  readonly storms?: readonly StormBenchResult[];
  readonly overhead?: OverheadResult;
  readonly loopback?: readonly LoopbackFigure[];
}

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function awsSection(aws: AwsStudyResult, dir: string): string {
  const names = [...new Set(aws.points.map((p) => p.strategy))];
  const ns = [...new Set(aws.points.map((p) => p.clients))];
  const cell = (name: string, n: number, key: 'calls' | 'completion'): string => {
    const p = aws.points.find((q) => q.strategy === name && q.clients === n);
    return p === undefined ? '' : n0(p[key]);
  };
  return [
    `### 1. The AWS backoff-and-jitter study, reproduced`,
    '',
    `${String(aws.options.runs)} runs per point, seed ${String(aws.options.seed)}; one-way delay |Normal(10 ms, 2 ms)|, base 5 ms, cap 2 s.`,
    '',
    'Mean calls (writes that reached the server):',
    '',
    table(
      ['N', ...names],
      ns.map((n) => [String(n), ...names.map((s) => cell(s, n, 'calls'))]),
    ),
    '',
    'Mean completion time (ms):',
    '',
    table(
      ['N', ...names],
      ns.map((n) => [String(n), ...names.map((s) => cell(s, n, 'completion'))]),
    ),
    '',
    `![calls per N](${dir}/aws-calls.svg)`,
    `![completion time per N](${dir}/aws-time.svg)`,
    `![writes over time at N = ${String(aws.options.seriesClients)}](${dir}/aws-writes.svg)`,
    '',
    "The post's claims against these numbers:",
    '',
    table(
      ['claim', 'measured', 'holds?'],
      aws.claims.map((c) => [c.claim, c.measured, c.holds ? 'yes' : '**no**']),
    ),
  ].join('\n');
}

function overheadSection(o: OverheadResult): string {
  const timer = o.heap.find((h) => h.subject.includes('BackoffTimeout'));
  const grpcCycles = o.cycles.find((c) => c.subject.includes('BackoffTimeout'));
  const count = o.heap[0]?.count ?? 0;
  const cyc = o.cycles[0];
  return [
    '### 3. Overhead',
    '',
    `${n0(count)} objects of each kind in one process, waiting in backoff (timer armed for an hour) unless the row says otherwise. ` +
      'The floor is a grpc-js `BackoffTimeout` with its timer armed: a bare backoff timer. ' +
      '`npm run bench:heap -- --state backoff` lists what the bytes of one manager are.',
    '',
    table(
      ['subject', 'retained bytes each', 'creation µs each', '÷ grpc-js BackoffTimeout (heap)'],
      o.heap.map((h) => [
        h.subject,
        n0(h.bytesPerObject),
        h.createMicros.toFixed(2),
        timer === undefined ? '' : ratio(h.bytesPerObject, timer.bytesPerObject),
      ]),
    ),
    '',
    `Reconnect cycles per second with real timers (${n0(cyc?.instances ?? 0)} instances, every attempt fails at once, zero backoff, redialer's floor on attempt starts turned off):`,
    '',
    table(
      ['subject', 'failed attempts per second', '÷ grpc-js BackoffTimeout'],
      o.cycles.map((c) => [
        c.subject,
        n0(c.cyclesPerSecond),
        grpcCycles === undefined ? '' : ratio(c.cyclesPerSecond, grpcCycles.cyclesPerSecond),
      ]),
    ),
    '',
    `State transitions per second (the peers have no virtual clock to compare with): pure \`transition()\` ${n0(o.transitions.pureFunction)}; ` +
      `one ConnectionManager on a virtual clock through fail/retry cycles ${n0(o.transitions.managerFailRetry)}, through connect/READY/lost cycles ${n0(o.transitions.managerReadyLost)}. ` +
      `Creating and connecting ${n0(count)} managers from one options object on one virtual clock: ${o.fleetCreateConnectMicros.toFixed(2)} µs each.`,
  ].join('\n');
}

type LoopbackRun = LoopbackFigure['runs'][number];

/** "median (min–max)" of `xs`. */
function spreadOf(xs: readonly number[], digits = 0): string {
  if (xs.length === 0) return '';
  const fmt = (x: number): string => (digits === 0 ? n0(x) : x.toFixed(digits));
  return xs.length === 1 ? fmt(xs[0] ?? NaN) : `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
}

/** "median (min–max)" of one field over a figure's runs alone. */
function spread(f: LoopbackFigure, pick: (r: LoopbackRun) => number, digits = 0): string {
  return spreadOf(f.runs.map(pick), digits);
}

/** Client CPU per reconnected connection, µs, in each of `runs`. */
const cpuPerReconnect = (f: LoopbackFigure, runs: readonly LoopbackRun[]): number[] =>
  runs.map((r) => (r.cpuMs * 1000) / f.connections);

/** Each round's CPU of `f` divided by that of `plain` in the same round. */
function roundRatios(f: LoopbackFigure, plain: LoopbackFigure): number[] {
  return f.together.flatMap((r, i) => {
    const base = plain.together[i];
    return base === undefined ? [] : [r.cpuMs / base.cpuMs];
  });
}

function loopbackSection(l: readonly LoopbackFigure[]): string {
  const first = l[0];
  const rounds = first?.together.length ?? 0;
  const alone = first?.runs.length ?? 0;
  const plainOf = (f: LoopbackFigure): LoopbackFigure | undefined =>
    l.find((p) => p.connections === f.connections && p.subject.startsWith('plain'));
  const ratios = l.flatMap((f) => {
    const plain = plainOf(f);
    if (plain === undefined || plain === f) return [];
    const time = median(f.runs.map((r) => r.allReadyAfter)) / median(plain.runs.map((r) => r.allReadyAfter));
    return [
      `${f.subject} at ${n0(f.connections)}: CPU ${spreadOf(roundRatios(f, plain), 2)}×, time to all READY ${time.toFixed(2)}×`,
    ];
  });
  return [
    '### 4. Loopback reality check',
    '',
    `A real grpc-js server on 127.0.0.1 (own process) restarts after ${String((first?.downtime ?? 0) / 1000)} s down; connections had been up for 6 s. ` +
      `Each connection is driven through the shipped adapters (\`http2Connector\` in a \`ConnectionManager\`, and \`ManagedChannel\`) and, for comparison, as a plain grpc-js channel with its own subchannel pool, each subject in a client process of its own that collects its garbage before each storm. ` +
      `After ${String(first?.warmUp.rounds ?? 0)} unreported warm-up rounds of ${n0(first?.warmUp.connections ?? 0)} connections per subject (so that V8 has optimized the reconnect path), two kinds of run: ` +
      `**CPU** from ${String(rounds)} round${rounds === 1 ? '' : 's'} in which every subject's fleet goes through the same outage at the same time (CPU time is counted per process, and a drift of the machine weighs on all alike; the ratio is taken within each round); ` +
      `**times and event-loop delay** from ${String(alone)} run${alone === 1 ? '' : 's'} of each subject alone, in turn (each subject first, second and last once), whose CPU is shown too. ` +
      `Dials are the TCP connections a client opened from the restart until all were READY again: the failed ones while the server was down, and the reconnections. Median (min–max).`,
    '',
    table(
      [
        'subject',
        'connections',
        '50 % READY after return (ms), alone',
        '100 % READY after return (ms), alone',
        'event-loop delay p99 (ms), alone',
        'TCP dials per connection, alone',
        'client CPU per reconnect (µs), alone',
        'client CPU per reconnect (µs), together',
        'CPU ÷ plain grpc-js, same round together',
      ],
      l.map((f) => {
        const plain = plainOf(f);
        return [
          f.subject,
          n0(f.connections),
          spread(f, (r) => r.halfReadyAfter),
          spread(f, (r) => r.allReadyAfter),
          spread(f, (r) => r.loopDelayP99, 1),
          spread(f, (r) => r.dials / f.connections, 2),
          spreadOf(cpuPerReconnect(f, f.runs)),
          spreadOf(cpuPerReconnect(f, f.together)),
          plain === undefined || plain === f ? '' : `${spreadOf(roundRatios(f, plain), 2)}×`,
        ];
      }),
    ),
    '',
    ratios.length > 0 ? `Medians, redialer ÷ plain grpc-js: ${ratios.join('; ')}.` : '',
  ].join('\n');
}

export function renderResults(report: BenchReport, dir: string): string {
  const e = report.environment;
  const parts = [
    `Measured ${e.date.slice(0, 10)} at commit \`${e.commit}\`${e.dirty ? ' (with local changes)' : ''}, Node ${e.node}, ${String(e.cores)} × ${e.cpu}${report.quick ? ', **quick mode**' : ''}; the whole run took ${report.seconds.toFixed(0)} s. Raw figures: \`${dir}/*.json\`.`,
    '',
  ];
  if (report.aws !== undefined) parts.push(awsSection(report.aws, dir), '');
  if (report.storms !== undefined) parts.push(stormSection(report.storms, dir), '');
  if (report.overhead !== undefined) parts.push(overheadSection(report.overhead), '');
  if (report.loopback !== undefined) parts.push(loopbackSection(report.loopback), '');
  return parts.join('\n');
}

/**
 * The sections of a partial run (`--only`), each headed by when and where it was measured: they replace
 * the sections of the same number in the generated block and leave the others as they are.
 */
export function renderSections(report: BenchReport, dir: string): string[] {
  const e = report.environment;
  const stamp = `_Measured ${e.date.slice(0, 10)} at commit \`${e.commit}\`${e.dirty ? ' (with local changes)' : ''}, Node ${e.node}, ${String(e.cores)} × ${e.cpu}${report.quick ? ', **quick mode**' : ''}, in a run of this section alone._`;
  const sections: string[] = [];
  const add = (text: string): void => {
    const [heading, ...rest] = text.split('\n');
    sections.push([heading, '', stamp, ...rest].join('\n'));
  };
  if (report.aws !== undefined) add(awsSection(report.aws, dir));
  if (report.storms !== undefined) add(stormSection(report.storms, dir));
  if (report.overhead !== undefined) add(overheadSection(report.overhead));
  if (report.loopback !== undefined) add(loopbackSection(report.loopback));
  return sections;
}

/**
 * Replaces, inside the generated block of `document`, each section of `sections` (`### N. …` up to the
 * next `### ` heading or the block's end) with the new one of the same number.
 */
export function spliceSections(document: string, sections: readonly string[]): string {
  let out = document;
  for (const section of sections) {
    const number = /^### (\d+)\./.exec(section)?.[1];
    const i = number === undefined ? -1 : out.indexOf(`\n### ${number}. `);
    const end = out.indexOf(END);
    if (i < 0 || end < i) throw new Error(`bench: no section ${String(number)} in the generated block to replace`);
    const next = out.indexOf('\n### ', i + 1);
    const j = next >= 0 && next < end ? next : end - 1;
    out = `${out.slice(0, i + 1)}${section.trimEnd()}\n${out.slice(j)}`;
  }
  return out;
}

export const START = '<!-- results:start (generated by npm run bench; edits inside are overwritten) -->';
export const END = '<!-- results:end -->';

/** Replaces the generated block of `document` (or appends one). */
export function spliceResults(document: string, results: string): string {
  const block = `${START}\n${results}\n${END}`;
  const i = document.indexOf(START);
  const j = document.indexOf(END);
  if (i < 0 || j < i) return `${document.trimEnd()}\n\n${block}\n`;
  return `${document.slice(0, i)}${block}${document.slice(j + END.length)}`;
}

export const SIZES_START = '<!-- sizes:start (generated by npm run size; edits inside are overwritten) -->';
export const SIZES_END = '<!-- sizes:end -->';

/** Replaces the block between `start` and `end` in `document` (or appends one). */
export function spliceBlock(document: string, start: string, end: string, text: string): string {
  const block = `${start}\n${text}\n${end}`;
  const i = document.indexOf(start);
  const j = document.indexOf(end);
  if (i < 0 || j < i) return `${document.trimEnd()}\n\n${block}\n`;
  return `${document.slice(0, i)}${block}${document.slice(j + end.length)}`;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} kB`;

/** The sizes block: each subpath against its budget, then the peers measured the same way. */
export function renderBundleSizes(
  report: BundleSizeReport,
  budgets: Readonly<Record<string, number>>,
  appBudgets: Readonly<Record<string, number>>,
): string {
  const size = (name: string): number | undefined =>
    report.subpaths.find((s) => s.subpath === name)?.rxjsExternal.gzip ??
    report.peers.find((p) => p.name === name)?.gzip;
  const withRxjs = (name: string): number | undefined => report.subpaths.find((s) => s.subpath === name)?.withRxjs.gzip;
  const compare = (ours: string, peer: string): string => {
    const a = size(ours);
    const b = size(peer);
    const c = withRxjs(ours);
    if (a === undefined || b === undefined || c === undefined) return '';
    return `\`${ours}\` ÷ ${peer}: ${ratio(a, b)} with rxjs external, ${ratio(c, b)} with rxjs bundled`;
  };
  return [
    `esbuild ${report.esbuild}; each entry bundled whole (\`export * as entry from …\`), minified, ESM, browser`,
    'conditions, then gzipped at level 9. Optional peers and Node built-ins are external. The budget (gzipped,',
    'rxjs external) is what CI enforces (`test/package/bundle-size.test.ts`, budgets in',
    '`bench/size/budgets.json`).',
    '',
    table(
      ['subpath', 'runs on', 'min', 'min + gzip', 'budget', 'min + gzip, with rxjs'],
      report.subpaths.map((s) => [
        `\`${s.subpath}\``,
        s.platform === 'node' ? 'Node' : 'browser, Node',
        kb(s.rxjsExternal.minified),
        kb(s.rxjsExternal.gzip),
        budgets[s.subpath] === undefined ? '–' : kb(budgets[s.subpath] ?? 0),
        kb(s.withRxjs.gzip),
      ]),
    ),
    '',
    'The peers, measured the same way (their whole entry, all their dependencies bundled):',
    '',
    table(
      ['package', 'version', 'min', 'min + gzip'],
      report.peers.map((p) => [p.name, p.version, kb(p.minified), kb(p.gzip)]),
    ),
    '',
    'Apps, as a page bundles them: each imports one thing and uses it (the WebSocket apps all make the',
    'same three calls: construct, `addEventListener("message")`, `send`), so the bundler keeps only what',
    'that use reaches, rxjs included, resolved as bundlers resolve it by default (its `esm5` build). Same',
    'esbuild settings; the budgets (`bench/size/app-budgets.json`) are enforced by the same test.',
    '',
    table(
      ['app', 'uses', 'min', 'min + gzip', 'budget', '÷ partysocket'],
      report.apps.map((a) => {
        const party = report.apps.find((p) => p.name === 'partysocket')?.gzip;
        return [
          `\`${a.name}\``,
          a.uses,
          kb(a.minified),
          kb(a.gzip),
          appBudgets[a.name] === undefined ? '–' : kb(appBudgets[a.name] ?? 0),
          party === undefined ? '–' : ratio(a.gzip, party),
        ];
      }),
    ),
    '',
    [
      compare('redialer/websocket', 'reconnecting-websocket'),
      compare('redialer/retry', 'p-retry'),
      compare('redialer/retry', 'cockatiel'),
    ]
      .filter((line) => line !== '')
      .map((line) => `- ${line}.`)
      .join('\n'),
  ].join('\n');
}
