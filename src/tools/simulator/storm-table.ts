/**
 * The results of several storm runs as a plain-text or Markdown table.
 * @module
 */
import type { StormResult } from './storm-result.js';

/** Column headers of {@link stormTable}. */
export const STORM_COLUMNS: readonly string[] = Object.freeze([
  'policy',
  'peak/s',
  'peak/s after return',
  'attempts while down',
  'wasted',
  '50 % back',
  '99 % back',
  '100 % back',
  'attempts/client (mean, max)',
]);

function seconds(ms: number | null): string {
  return ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** One row of figures per result, in column order. */
export function stormRows(results: readonly StormResult[]): string[][] {
  return results.map((r) => [
    r.policy,
    count(r.peakPerSecond),
    count(r.peakAfterReturn),
    count(r.attemptsWhileDown),
    count(r.wasted),
    seconds(r.reconnectedIn.p50),
    seconds(r.reconnectedIn.p99),
    r.reconnectedIn.p100 === null ? `never (${count(r.clients - r.reconnected)} left)` : seconds(r.reconnectedIn.p100),
    `${r.attemptsPerClient.mean.toFixed(2)}, ${String(r.attemptsPerClient.max)}`,
  ]);
}

/**
 * Formats results as an aligned text table (`markdown: false`) or a Markdown table.
 *
 * @example
 * ```ts
 * console.log(stormTable([simulateStorm({ policy: stormPolicy('full-jitter') })]));
 * ```
 */
export function stormTable(
  results: readonly StormResult[],
  { markdown = false }: { readonly markdown?: boolean } = {},
): string {
  return renderTable([STORM_COLUMNS.slice(), ...stormRows(results)], markdown);
}

/** Rows (the first is the header) as a Markdown table, or as text with the first column left-aligned and the rest right-aligned. */
export function renderTable(rows: readonly (readonly string[])[], markdown: boolean): string {
  if (markdown) {
    const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
    const [head = [], ...body] = rows;
    return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...body.map(line)].join('\n');
  }
  const columns = rows[0]?.length ?? 0;
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows
    .map((row) =>
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}
