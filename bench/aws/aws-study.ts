/**
 * Reproduces the AWS "Exponential Backoff And Jitter" study with redialer's policies and checks the
 * post's claims against the numbers.
 */
import { seededRandom } from '../../src/testing/seeded-random.js';
import { lineChartSvg } from '../../src/tools/simulator/plot/line-chart-svg.js';
import { smallMultiplesSvg } from '../../src/tools/simulator/plot/small-multiples-svg.js';
import { idleShare, logLogSlope } from '../support/fit.js';
import { absNormal } from '../support/normal-delay.js';
import { AWS_STRATEGIES } from './aws-strategies.js';
import { runOcc } from './occ-simulation.js';

export interface AwsStudyOptions {
  readonly clients: readonly number[];
  readonly runs: number;
  readonly seed: number;
  /** N of the write-timestamp series. */
  readonly seriesClients: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface AwsPoint {
  readonly strategy: string;
  readonly clients: number;
  /** Mean over the runs. */
  readonly calls: number;
  /** Mean completion time over the runs, ms. */
  readonly completion: number;
}

export interface AwsClaim {
  readonly claim: string;
  readonly measured: string;
  readonly holds: boolean;
}

export interface AwsStudyResult {
  readonly options: Omit<AwsStudyOptions, 'onProgress'>;
  readonly points: readonly AwsPoint[];
  /** Server times of every write in the first run at `seriesClients`, per strategy. */
  readonly series: Readonly<Record<string, readonly number[]>>;
  readonly claims: readonly AwsClaim[];
}

export function runAwsStudy(options: AwsStudyOptions): AwsStudyResult {
  const points: AwsPoint[] = [];
  const series: Record<string, number[]> = {};
  const total = AWS_STRATEGIES.length * options.clients.length;
  let done = 0;
  for (const [s, strategy] of AWS_STRATEGIES.entries()) {
    for (const clients of options.clients) {
      // One stream per (strategy, N), so adding a strategy does not shift the others' numbers.
      const random = seededRandom(options.seed * 1_000_003 + s * 1009 + clients);
      const delay = absNormal(random, 10, 2);
      let calls = 0;
      let completion = 0;
      for (let run = 0; run < options.runs; run++) {
        const writes: number[] = [];
        const record = run === 0 && clients === options.seriesClients;
        const result = runOcc({
          clients,
          policy: strategy.policy,
          random,
          delay,
          ...(record ? { onWrite: (t: number) => writes.push(t) } : {}),
        });
        if (record) series[strategy.name] = writes;
        calls += result.calls;
        completion += result.completion;
      }
      points.push({
        strategy: strategy.name,
        clients,
        calls: calls / options.runs,
        completion: completion / options.runs,
      });
      options.onProgress?.(++done, total);
    }
  }
  const { clients, runs, seed, seriesClients } = options;
  return {
    options: { clients, runs, seed, seriesClients },
    points,
    series,
    claims: judgeClaims(points, series, options.seriesClients),
  };
}

function at(points: readonly AwsPoint[], strategy: string, clients: number): AwsPoint {
  const p = points.find((q) => q.strategy === strategy && q.clients === clients);
  if (p === undefined) throw new Error(`no point for ${strategy} at N=${String(clients)}`);
  return p;
}

function slope(points: readonly AwsPoint[], strategy: string, key: 'calls' | 'completion'): number {
  const largest = Math.max(...points.map((p) => p.clients));
  const mine = points.filter((p) => p.strategy === strategy && p.clients >= largest / 3);
  return logLogSlope(
    mine.map((p) => p.clients),
    mine.map((p) => p[key]),
  );
}

function judgeClaims(
  points: readonly AwsPoint[],
  series: Readonly<Record<string, readonly number[]>>,
  n: number,
): AwsClaim[] {
  const f = (x: number): string => x.toFixed(2);
  const callsAt = (s: string): number => at(points, s, n).calls;
  const timeAt = (s: string): number => at(points, s, n).completion;
  // Exponents are fitted on the upper half of N, where the asymptotic growth shows.
  const noneCalls = slope(points, 'no backoff', 'calls');
  const noneTime = slope(points, 'no backoff', 'completion');
  const expoVsNone = callsAt('exponential') / callsAt('no backoff');
  const fullVsExpo = callsAt('full jitter') / callsAt('exponential');
  const idle = Object.fromEntries(Object.entries(series).map(([k, v]) => [k, idleShare(v, 10)]));
  const jittered = ['full jitter', 'equal jitter', 'decorrelated jitter'];
  const expoIdle = idle['exponential'] ?? 0;
  const jitterSlopes = ['exponential', ...jittered].map((s) => [s, slope(points, s, 'calls')] as const);
  return [
    {
      claim: 'Without backoff, calls grow about as N² and completion time about linearly.',
      measured: `calls ~ N^${f(noneCalls)}, time ~ N^${f(noneTime)}`,
      holds: noneCalls > 1.7 && noneCalls < 2.3 && noneTime > 0.7 && noneTime < 1.3,
    },
    {
      claim: 'Capped exponential backoff alone helps only a little.',
      measured: `at N=${String(n)}: ${f(expoVsNone)}× the calls of no backoff, ${f(timeAt('exponential') / timeAt('no backoff'))}× the time`,
      holds: expoVsNone > 0.5,
    },
    {
      claim: 'Un-jittered backoff leaves clusters of calls with idle gaps between them; with jitter the gaps vanish.',
      measured: `share of idle 10 ms slots between first and last write at N=${String(n)}: exponential ${f(expoIdle)}, ${jittered
        .map((s) => `${s} ${f(idle[s] ?? 0)}`)
        .join(', ')}`,
      holds: expoIdle > 0.5 && jittered.every((s) => (idle[s] ?? 1) < expoIdle / 2),
    },
    {
      claim: `At ${String(n)} clients full jitter needs less than half the calls of un-jittered backoff.`,
      measured: `full jitter / exponential calls = ${f(fullVsExpo)}`,
      holds: fullVsExpo < 0.5,
    },
    {
      claim: 'No variant changes the N² nature of the work.',
      measured: jitterSlopes.map(([s, k]) => `${s} ~ N^${f(k)}`).join(', '),
      holds: jitterSlopes.every(([, k]) => k > 1.7),
    },
    {
      claim:
        'Equal jitter does slightly more work than full jitter and takes longer; full jitter does less work than decorrelated but takes slightly longer.',
      measured: `at N=${String(n)}: calls full ${callsAt('full jitter').toFixed(0)}, equal ${callsAt('equal jitter').toFixed(0)}, decorrelated ${callsAt('decorrelated jitter').toFixed(0)}; time full ${timeAt('full jitter').toFixed(0)} ms, equal ${timeAt('equal jitter').toFixed(0)} ms, decorrelated ${timeAt('decorrelated jitter').toFixed(0)} ms`,
      holds:
        callsAt('equal jitter') > callsAt('full jitter') &&
        timeAt('equal jitter') > timeAt('full jitter') &&
        callsAt('full jitter') < callsAt('decorrelated jitter') &&
        timeAt('full jitter') > timeAt('decorrelated jitter'),
    },
  ];
}

/** The three plots: calls per N, completion per N, writes over time at the series N. */
export function awsSvgs(result: AwsStudyResult): { calls: string; time: string; series: string } {
  const names = [...new Set(result.points.map((p) => p.strategy))];
  const line = (key: 'calls' | 'completion') =>
    names.map((name) => ({
      name,
      points: result.points.filter((p) => p.strategy === name).map((p) => [p.clients, p[key]] as const),
    }));
  const n = result.options.seriesClients;
  const bucket = 10;
  const seriesLines = Object.entries(result.series).map(([name, times]) => {
    const counts: number[] = [];
    for (const t of times) {
      const b = Math.floor(t / bucket);
      while (counts.length <= b) counts.push(0);
      counts[b] = (counts[b] ?? 0) + 1;
    }
    return { name, points: counts.map((c, i) => [i * bucket, c] as const) };
  });
  return {
    calls: lineChartSvg(line('calls'), {
      title: `Calls per N (mean of ${String(result.options.runs)} runs)`,
      xLabel: 'clients (N)',
      yLabel: 'calls (writes reaching the server)',
    }),
    time: lineChartSvg(line('completion'), {
      title: `Completion time per N (mean of ${String(result.options.runs)} runs)`,
      xLabel: 'clients (N)',
      yLabel: 'ms until the last client is done',
    }),
    series: smallMultiplesSvg(seriesLines, {
      title: `Writes per 10 ms over time, N = ${String(n)}, one run`,
      xLabel: 'ms since start (each panel its own scale)',
      yLabel: 'writes per 10 ms',
      sharedX: false,
    }),
  };
}
