/**
 * The attempts-per-second plot of a set of storm runs.
 * @module
 */
import { smallMultiplesSvg } from './small-multiples-svg.js';
import type { StormResult } from './storm-result.js';

/** Attempts per second over time, one panel per policy, log scale, with the return and the capacity marked. */
export function stormSvg(results: readonly StormResult[]): string {
  const first = results[0];
  const outage = first?.outage ?? 0;
  const title = first === undefined
    ? 'Reconnect storm'
    : `Reconnect storm: ${first.clients.toLocaleString('en-US')} clients, ${String(outage / 1000)} s outage, ${first.capacity.toLocaleString('en-US')} handshakes/s`;
  return smallMultiplesSvg(
    results.map((r) => ({ name: r.policy, points: r.perSecond.map((n, second) => [second, n] as const) })),
    {
      title,
      xLabel: 'seconds since the server went down',
      yLabel: 'attempts per second',
      logY: true,
      marker: { x: outage / 1000, label: 'server back' },
      ...(first === undefined ? {} : { reference: { y: first.capacity, label: 'handshakes the server accepts per second' } }),
    },
  );
}
