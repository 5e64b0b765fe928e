/**
 * Several seeds of one storm: one seed decides statistics such as "the last client back", so the
 * figures are reported as mean and range over seeds.
 * @module
 */
import type { StormResult } from './storm-result.js';
import { renderTable } from './storm-table.js';

/** Mean, least and greatest of one figure over seeds; Infinity when some seed never got there. */
export interface SeedRange {
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/** The figures of one policy in one scenario over several seeds. */
export interface StormSeedsSummary {
  readonly policy: string;
  readonly description: string;
  readonly clients: number;
  readonly outage: number;
  readonly capacity: number;
  readonly server: StormResult['server'];
  readonly serverHints: StormResult['serverHints'];
  readonly seeds: readonly number[];
  /** Most attempts in one second over the whole run. */
  readonly peakPerSecond: SeedRange;
  /** Most attempts in one second from the server's return on. */
  readonly peakAfterReturn: SeedRange;
  /** Attempts while the server was down. */
  readonly attemptsWhileDown: SeedRange;
  /** Attempts refused or stalled over the budget after the return. */
  readonly wasted: SeedRange;
  /** Time from the return until 50 % were back, ms. */
  readonly p50: SeedRange;
  /** Time from the return until 99 % were back, ms. */
  readonly p99: SeedRange;
  /** Time from the return until all were back, ms. */
  readonly p100: SeedRange;
  /** Mean attempts per client. */
  readonly attemptsPerClient: SeedRange;
  /** Clients never back, summed over seeds. */
  readonly neverBack: number;
}

function range(values: readonly number[]): SeedRange {
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { mean, min: Math.min(...values), max: Math.max(...values) };
}

/** Summarizes runs of one policy and scenario that differ only in their seed. */
export function summarizeSeeds(results: readonly StormResult[]): StormSeedsSummary {
  const first = results[0];
  if (first === undefined) throw new RangeError('redialer: summarizeSeeds needs at least one result');
  for (const r of results) {
    if (
      r.policy !== first.policy ||
      r.outage !== first.outage ||
      r.clients !== first.clients ||
      r.capacity !== first.capacity
    ) {
      throw new RangeError(`redialer: summarizeSeeds mixes scenarios (${first.policy} and ${r.policy})`);
    }
  }
  const time = (t: number | null): number => t ?? Infinity;
  return {
    policy: first.policy,
    description: first.description,
    clients: first.clients,
    outage: first.outage,
    capacity: first.capacity,
    server: first.server,
    serverHints: first.serverHints,
    seeds: results.map((r) => r.seed),
    peakPerSecond: range(results.map((r) => r.peakPerSecond)),
    peakAfterReturn: range(results.map((r) => r.peakAfterReturn)),
    attemptsWhileDown: range(results.map((r) => r.attemptsWhileDown)),
    wasted: range(results.map((r) => r.wasted)),
    p50: range(results.map((r) => time(r.reconnectedIn.p50))),
    p99: range(results.map((r) => time(r.reconnectedIn.p99))),
    p100: range(results.map((r) => time(r.reconnectedIn.p100))),
    attemptsPerClient: range(results.map((r) => r.attemptsPerClient.mean)),
    neverBack: results.reduce((n, r) => n + r.clients - r.reconnected, 0),
  };
}

/** Column headers of {@link stormSeedsTable}. */
export const STORM_SEEDS_COLUMNS: readonly string[] = Object.freeze([
  'policy',
  'attempts while down',
  'wasted after return',
  'peak/s after return',
  'whole-run peak/s',
  '50 % back',
  '99 % back',
  '100 % back',
  'attempts/client',
]);

const count = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'never');
const secs = (ms: number): string => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : 'never');

function cell(r: SeedRange, format: (n: number) => string, unit = ''): string {
  if (r.min === r.max) return `${format(r.mean)}${unit}`;
  return `${format(r.mean)}${unit} [${format(r.min)}–${format(r.max)}]`;
}

/** One row per summary, in column order: "mean [min–max]". */
export function stormSeedsRows(summaries: readonly StormSeedsSummary[]): string[][] {
  return summaries.map((s) => [
    s.policy,
    cell(s.attemptsWhileDown, count),
    cell(s.wasted, count),
    cell(s.peakAfterReturn, count),
    cell(s.peakPerSecond, count),
    cell(s.p50, secs, Number.isFinite(s.p50.mean) ? ' s' : ''),
    cell(s.p99, secs, Number.isFinite(s.p99.mean) ? ' s' : ''),
    Number.isFinite(s.p100.max) ? cell(s.p100, secs, ' s') : `never (${count(s.neverBack / s.seeds.length)} left)`,
    cell(s.attemptsPerClient, (n) => n.toFixed(2)),
  ]);
}

/**
 * Formats summaries as an aligned text table or a Markdown table; each cell is the mean over seeds
 * with the range in brackets when the seeds differ.
 */
export function stormSeedsTable(
  summaries: readonly StormSeedsSummary[],
  { markdown = false }: { readonly markdown?: boolean } = {},
): string {
  return renderTable([STORM_SEEDS_COLUMNS.slice(), ...stormSeedsRows(summaries)], markdown);
}
