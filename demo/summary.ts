/**
 * The figures the demo ends with: per client, attempts, backoff resets and the time from each
 * recovery (server reachable again) to READY.
 */
import type { ClientTrack } from './client-track.js';
import type { Traffic } from './demo-rig.js';
import type { Phase } from './scenario.js';
import { strip, timelineCells } from './terminal-view.js';

/** When a recovery phase began. */
export interface Recovery {
  readonly phase: string;
  readonly at: number;
}

/** One client's figures. */
export interface ClientSummary {
  readonly id: string;
  readonly attempts: number;
  readonly resets: number;
  /** ms from each recovery to READY; null: not back before the demo ended. */
  readonly recoveredIn: readonly (number | null)[];
}

/** All the figures. */
export interface DemoSummary {
  readonly duration: number;
  readonly recoveries: readonly Recovery[];
  readonly clients: readonly ClientSummary[];
  readonly traffic: Traffic;
}

/** Computes the figures; a recovery counts only READY before the next fault began. */
export function summarize(
  clients: readonly ClientTrack[],
  recoveries: readonly Recovery[],
  phaseStarts: readonly { phase: Phase; at: number }[],
  traffic: Traffic,
  startedAt: number,
  endedAt: number,
): DemoSummary {
  return {
    duration: endedAt - startedAt,
    recoveries,
    traffic: { ...traffic },
    clients: clients.map((c) => ({
      id: c.id,
      attempts: c.attempts,
      resets: c.resets,
      recoveredIn: recoveries.map((r) => {
        const next = phaseStarts.find((p) => p.at > r.at && !p.phase.recovery)?.at ?? endedAt;
        const ready = c.readyAfter(r.at);
        return ready !== undefined && ready <= next ? ready - r.at : null;
      }),
    })),
  };
}

const secs = (ms: number | null): string => (ms === null ? 'not back' : `${(ms / 1000).toFixed(2)} s`);

/** The summary as text, with each client's whole timeline. */
export function formatSummary(
  summary: DemoSummary,
  clients: readonly ClientTrack[],
  startedAt: number,
  endedAt: number,
  differences: readonly string[],
  color: boolean,
): string {
  const columns = summary.recoveries.map((r) => `back after "${r.phase}"`);
  const header = [
    'client'.padEnd(10),
    'attempts'.padStart(8),
    'backoff resets'.padStart(14),
    ...columns.map((c) => c.padStart(Math.max(c.length, 10))),
  ];
  const rows = summary.clients.map((c) => [
    c.id.padEnd(10),
    String(c.attempts).padStart(8),
    String(c.resets).padStart(14),
    ...c.recoveredIn.map((ms, i) => secs(ms).padStart(Math.max(columns[i]?.length ?? 0, 10))),
  ]);
  const cell = Math.max(250, Math.ceil((endedAt - startedAt) / 60 / 250) * 250);
  const lines = [
    `Summary after ${(summary.duration / 1000).toFixed(1)} s`,
    ...[header, ...rows].map((r) => `  ${r.join('  ')}`),
    '',
    `  timeline, one cell = ${String(cell / 1000)} s (${color ? 'green READY, yellow CONNECTING, red TRANSIENT_FAILURE' : '# READY, c CONNECTING, x TRANSIENT_FAILURE, . IDLE'}):`,
    ...clients.map((c) => `  ${c.id.padEnd(10)} ${strip(timelineCells(c.entries, startedAt, endedAt, cell), color)}`),
    '',
    `  gRPC calls over the managed channel: ${String(summary.traffic.grpcOk)} answered, ${String(summary.traffic.grpcFailed)} failed`,
    '    (UNAVAILABLE at once in TRANSIENT_FAILURE, or the 1 s deadline while an attempt hung)',
    `  WebSocket messages echoed: ${String(summary.traffic.echoes)}`,
    `  settings that differ from gRPC's defaults:`,
    ...differences.map((d) => `    ${d}`),
  ];
  return lines.join('\n');
}
