/**
 * Follows one managed client: its snapshots become timeline entries and a badge status, and its
 * attempts, backoff resets and recoveries are counted for the summary.
 */
import type { ConnectionSnapshot, TraceEntry } from '../src/index.js';
import { formatDuration, formatIn } from '../src/internal/format-duration.js';
import type { ClientId, ClientStatus, FaultName, TimelineEntry } from './live-protocol.js';

/** A short description of what ended an attempt, e.g. `ECONNREFUSED` or `connection attempt 2 did not complete within 2.5 s`. */
export function describeError(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (typeof error === 'object') {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code === 'string') return code;
    if (typeof message === 'string') return message;
  }
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** The line a transition prints, e.g. `attempt 3 failed (ECONNREFUSED); next attempt in 1.3 s`. */
export function describeSnapshot(s: ConnectionSnapshot, now: number, previous?: ConnectionSnapshot['state']): string {
  const error = describeError(s.lastError);
  switch (s.state) {
    case 'CONNECTING':
      return `attempt ${String(s.attempt)}; cut ${formatIn(s.timeoutAt - now)} if no answer`;
    case 'READY':
      return `attempt ${String(s.attempt)} connected`;
    case 'TRANSIENT_FAILURE':
      if (previous === 'READY')
        return `connection lost (${error ?? 'closed'}); next attempt ${formatIn(s.nextAttemptAt - now)}`;
      return `attempt ${String(s.attempt)} ended (${error ?? 'closed'}); next attempt ${formatIn(s.nextAttemptAt - now)}`;
    case 'IDLE':
      return error === null ? 'idle' : `idle (${error})`;
    case 'SHUTDOWN':
      return `shut down (${s.reason})`;
  }
}

/** Counts and history of one client. */
export class ClientTrack {
  readonly entries: TimelineEntry[] = [];
  attempts = 0;
  resets = 0;
  /** When each READY began. */
  readonly readyAt: number[] = [];
  fault: FaultName = 'pass';
  #last: ConnectionSnapshot | undefined;
  #connectingSince: number | undefined;

  constructor(
    readonly id: ClientId,
    readonly label: string,
    readonly target: string,
  ) {}

  /** Records a snapshot; returns its timeline entry. */
  record(s: ConnectionSnapshot, now: number): TimelineEntry {
    const previous = this.#last?.state;
    this.#last = s;
    if (s.state === 'CONNECTING') this.attempts += 1;
    if (s.state === 'READY') this.readyAt.push(s.since);
    let detail = describeSnapshot(s, now, previous);
    // How long the attempt took: with several addresses, a dead first one shows here as the stagger.
    if (s.state === 'READY' && this.#connectingSince !== undefined)
      detail += ` after ${formatDuration(s.since - this.#connectingSince)}`;
    this.#connectingSince = s.state === 'CONNECTING' ? s.since : undefined;
    const entry: TimelineEntry = { at: s.since, client: this.id, state: s.state, detail };
    this.entries.push(entry);
    return entry;
  }

  /** Counts backoff resets from the manager's trace. */
  trace(entry: TraceEntry): void {
    if (entry.detail.includes('backoff reset')) this.resets += 1;
  }

  /** The badge's data. */
  get status(): ClientStatus {
    const s = this.#last;
    return {
      id: this.id,
      label: this.label,
      target: this.target,
      state: s?.state ?? 'IDLE',
      attempt: s?.attempt ?? 0,
      since: s?.since ?? 0,
      nextAttemptAt: s?.state === 'TRANSIENT_FAILURE' ? s.nextAttemptAt : null,
      timeoutAt: s?.state === 'CONNECTING' ? s.timeoutAt : null,
      error: describeError(s?.lastError),
      attempts: this.attempts,
      resets: this.resets,
      fault: this.fault,
    };
  }

  /** The first READY at or after `time`, if any. */
  readyAfter(time: number): number | undefined {
    return this.readyAt.find((t) => t >= time);
  }
}
