/**
 * The attempts-per-second plot of a set of storm runs.
 * @module
 */
import { smallMultiplesSvg } from './plot/small-multiples-svg.js';
import type { StormResult } from './storm-result.js';

/** Options of {@link stormSvg}. */
export interface StormSvgOptions {
  /**
   * `shared`: one time axis for every panel (to compare how long each takes); `per-panel`: each
   * panel ends shortly after its own last attempt, so a fast policy is not squeezed into a corner.
   * @defaultValue 'shared'
   */
  readonly xRange?: 'shared' | 'per-panel';
  /** Width in px; the layout (legend, title, ticks) adapts down to about 320. @defaultValue 900 */
  readonly width?: number;
}

function seconds(ms: number | null, after: string): string {
  return ms === null ? 'not all back' : `all back ${(ms / 1000).toFixed(1)} s ${after}`;
}

/**
 * Attempts per second over time, one panel per policy (titled with its peak after the return and
 * when every client was back), on a symmetric log scale (0 and 1 apart), with the server's return
 * and its capacity marked and labelled, a legend, and a `<title>`/`<desc>` that state the scenario.
 */
export function stormSvg(results: readonly StormResult[], options: StormSvgOptions = {}): string {
  const first = results[0];
  const outage = first?.outage ?? 0;
  const capacity = first?.capacity;
  const scenario =
    first === undefined
      ? 'no runs'
      : `${first.clients.toLocaleString('en-US')} clients lose their server for ${String(outage / 1000)} s; ` +
        `it comes back accepting ${first.capacity.toLocaleString('en-US')} handshakes per second`;
  const summaries = results.map(
    (r) =>
      `${r.policy}: peak ${r.peakAfterReturn.toLocaleString('en-US')} attempts/s after the return, ${seconds(r.reconnectedIn.p100, 'after the return')}, ${r.wasted.toLocaleString('en-US')} wasted attempts`,
  );
  return smallMultiplesSvg(
    results.map((r) => ({
      name: r.policy,
      note: `peak ${r.peakAfterReturn.toLocaleString('en-US')}/s after return · ${seconds(r.reconnectedIn.p100, 'later')}`,
      points: r.perSecond.map((n, second) => [second, n] as const),
    })),
    {
      title: `Reconnect storm: ${scenario}`,
      description: `Attempts per second, one panel per policy. ${summaries.join('. ')}.`,
      xLabel: 'seconds since the server went down',
      yLabel: 'attempts per second',
      logY: true,
      sharedX: options.xRange !== 'per-panel',
      ...(options.width === undefined ? {} : { width: options.width }),
      marker: { x: outage / 1000, label: `server back at ${String(outage / 1000)} s` },
      ...(capacity === undefined
        ? {}
        : {
            reference: { y: capacity, unit: '/s', label: `capacity: ${capacity.toLocaleString('en-US')} handshakes/s` },
          }),
    },
  );
}
