/** Renders the storm benchmark's figures: tables per scenario, the jitter-mode choice, and the distance to the limit. */
import { renderTable } from '../../src/tools/simulator/storm-table.js';
import { type SeedRange, type StormSeedsSummary, stormSeedsTable } from '../../src/tools/simulator/storm-seeds.js';
import type { StormBenchResult } from '../storm/storm-bench.js';

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const s1 = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'never');
const x2 = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '∞');
const pct = (r: number): string => `${(100 * r).toFixed(r < 0.001 && r > 0 ? 3 : 2)} %`;

/** The peers' libraries (the other contestants are redialer's own policies). */
const PEERS = [
  'grpc-js',
  'reconnecting-websocket',
  'reconnecting-websocket-process',
  'partysocket',
  'socket.io',
  'signalr',
];
const MODES: readonly (readonly [string, string])[] = [
  ['redialer-grpc', 'episode, uniform (default)'],
  ['redialer-grpc-episode-log', 'episode, log-uniform'],
  ['redialer-grpc-episode-period', 'episode, one period (opt-in)'],
  ['redialer-grpc-independent', 'independent (protocol page)'],
];

function title(s: StormBenchResult): string {
  const { scenario } = s;
  const hints = scenario.serverHints === 'none' ? '' : `, server hints: ${scenario.serverHints}`;
  return `${n0(scenario.clients)} clients, ${String(scenario.outage / 1000)} s outage, ${n0(scenario.capacity)} handshakes/s, server ${scenario.server === 'refuse' ? 'refuses' : 'stalls'} over-budget attempts${hints}`;
}

function find(s: StormBenchResult, policy: string): StormSeedsSummary | undefined {
  return s.summaries.find((x) => x.policy === policy);
}

const limit = (s: StormBenchResult): number => (1000 * s.scenario.clients) / s.scenario.capacity;
const mean = (r: SeedRange): number => r.mean;

function choiceTable(refuse: readonly StormBenchResult[]): string {
  const rows = refuse.map((s) => {
    const base = find(s, 'grpc-js');
    const cells = MODES.map(([policy]) => {
      const x = find(s, policy);
      if (x === undefined || base === undefined) return '';
      return `${s1(x.p100.mean)} (${x2(x.p100.mean / base.p100.mean)}), ${n0(x.wasted.mean)} wasted`;
    });
    const def = find(s, 'redialer-grpc');
    const better =
      def === undefined
        ? []
        : s.summaries
            .filter((x) => PEERS.includes(x.policy) && x.p100.mean < def.p100.mean && x.wasted.mean < def.wasted.mean)
            .map((x) => x.policy);
    return [
      `${String(s.scenario.outage / 1000)} s`,
      base === undefined ? '' : s1(base.p100.mean),
      ...cells,
      better.length === 0 ? 'none' : better.join(', '),
    ];
  });
  return renderTable(
    [
      [
        'outage',
        'grpc-js 100 % back',
        ...MODES.map(([, label]) => `${label}: 100 % back (÷ grpc-js), wasted`),
        'peers both faster and less wasteful than the default',
      ],
      ...rows,
    ],
    true,
  );
}

function spreadTable(refuse: readonly StormBenchResult[]): string {
  const rows = refuse.map((s) => {
    const a = find(s, 'redialer-grpc');
    const b = find(s, 'redialer-grpc-spread');
    if (a === undefined || b === undefined) return [];
    return [
      `${String(s.scenario.outage / 1000)} s`,
      n0(a.peakPerSecond.mean),
      n0(b.peakPerSecond.mean),
      s1(a.p100.mean),
      s1(b.p100.mean),
      n0(a.wasted.mean),
      n0(b.wasted.mean),
    ];
  });
  return renderTable(
    [
      [
        'outage',
        'whole-run peak/s: default',
        'with reconnectSpread 5 s',
        '100 % back: default',
        'with spread',
        'wasted: default',
        'with spread',
      ],
      ...rows.filter((r) => r.length > 0),
    ],
    true,
  );
}

function limitTable(results: readonly StormBenchResult[]): string {
  const policies = [...new Set(results.flatMap((s) => s.summaries.map((x) => x.policy)))];
  const head = [
    'policy',
    ...results.map(
      (s) =>
        `${String(s.scenario.outage / 1000)} s${s.scenario.serverHints === 'none' ? '' : ` ${s.scenario.serverHints}`}`,
    ),
  ];
  const rows = policies.map((policy) => [
    policy,
    ...results.map((s) => {
      const x = find(s, policy);
      if (x === undefined) return '';
      return `${x2(mean(x.p100) / limit(s))} · ${pct(mean(x.wasted) / s.scenario.clients)}`;
    }),
  ]);
  return renderTable([head, ...rows], true);
}

/** The generated storm section of BENCHMARKS.md. */
export function stormSection(storms: readonly StormBenchResult[], dir: string): string {
  const first = storms[0];
  if (first === undefined) return '';
  const refuse = storms.filter((s) => s.scenario.server === 'refuse' && s.scenario.serverHints === 'none');
  const stall = storms.filter((s) => s.scenario.server === 'stall');
  const hints = storms.filter((s) => s.scenario.serverHints !== 'none');
  const seeds = first.scenario.seeds;
  /** One scenario: its title, its table over the seeds and the chart of the first seed. */
  const scenarioBlock = (s: (typeof storms)[number]): string[] => [
    `**${title(s)}**`,
    '',
    stormSeedsTable(s.summaries, { markdown: true }),
    '',
    `![attempts per second, seed ${String(seeds[0])}](${dir}/storm-${s.scenario.id}.svg)`,
    '',
  ];
  const parts = [
    '### 2. Reconnect storm',
    '',
    `Every cell is the mean over seeds ${seeds.join(', ')} with the range in brackets; times are from the server's return. The columns are defined under "What is measured".`,
    '',
    '#### The server refuses attempts over its budget at once',
    '',
  ];
  for (const s of refuse) parts.push(...scenarioBlock(s));
  parts.push(
    '#### Which jitter mode is the default: the numbers',
    '',
    "Time until all are back (mean over seeds, and its ratio to grpc-js in the same run) and wasted attempts, for each of `grpcBackoff`'s jitter modes; the last column lists the peers that are both faster and less wasteful than the default.",
    '',
    choiceTable(refuse),
    '',
    '#### What `reconnectSpread` does to the peak',
    '',
    spreadTable(refuse),
    '',
    '#### The server stalls attempts over its budget (a full SYN backlog)',
    '',
    "An over-budget attempt is never answered and lasts until the client's own connect timeout (redialer: max(deadline, 20 s); reconnecting-websocket 4 s; socket.io 20 s; SignalR 100 s; grpc-js has none, so the operating system's 127 s).",
    '',
  );
  for (const s of stall) parts.push(...scenarioBlock(s));
  parts.push(
    '#### Server-side herd control (`redialer/server`)',
    '',
    "`announce`: the server closes every connection at the outage with a retry hint of outage + U(0, 1.1 × N/C) (`drain()`); `admission`: after its return the server answers each attempt over its budget with that client's own slot (`admission()`). `redialer-grpc` takes a hint as a floor (the default); `redialer-grpc-exact` opts in to `serverHints: 'exact'`.",
    '',
  );
  for (const s of hints) parts.push(`**${title(s)}**`, '', stormSeedsTable(s.summaries, { markdown: true }), '');
  parts.push(
    '#### How close to the limit',
    '',
    'The physical limit is N/C seconds to bring everyone back with nothing wasted. Each cell: time to 100 % ÷ N/C · wasted ÷ N (means over seeds), from the runs above.',
    '',
    limitTable(refuse),
    '',
    'With a stalling server:',
    '',
    limitTable(stall),
    '',
    'With server-side herd control:',
    '',
    limitTable(hints),
  );
  return parts.join('\n');
}
