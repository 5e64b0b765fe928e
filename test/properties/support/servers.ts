/**
 * What the schedule properties generate for the servers: hints on when to come back (valid or not),
 * how long a server takes to answer and how long a connection stays up, and the rule by which a
 * server plays its script of behaviours.
 */
import fc from 'fast-check';
import type { Subscription } from 'rxjs';
import type { AttemptEnd } from '../../support/connection-schedule.js';
import { MAX_ATTEMPTS } from './generated.js';

/** A server's hint on when to come back: the value it means (for the checker) and how it is written. */
export interface Hint {
  /** ms; 0, negative, NaN and strings ask for nothing. */
  readonly value: number | string;
  /** As a close reason or GOAWAY debug data reads it (parseCloseReasonDelay's format). */
  readonly text: string;
}

export const hint: fc.Arbitrary<Hint> = fc.oneof(
  fc.constantFrom<Hint>(
    { value: 0, text: 'retry-after=0' },
    { value: -5000, text: 'retry-after=-5' },
    { value: Number.NaN, text: 'retry-after=NaN' },
    { value: 'soon', text: 'retry-after=soon' },
    { value: 1e30, text: `retry-after=1${'0'.repeat(30)}ms` },
  ),
  fc.integer({ min: 1, max: 200_000 }).map((ms) => ({ value: ms, text: `retry-after=${String(ms)}ms` })),
  fc.integer({ min: 1, max: 200 }).map((s) => ({ value: s * 1000, text: `retry-after=${String(s)}` })),
);

/** A hint, or none: the server says nothing about when to come back. */
export const maybeHint = fc.option(hint, { nil: undefined });

/** The hint of 1e30 ms (issue 29: a client parked for 24.8 days). */
export const HUGE_HINT: Hint = { value: 1e30, text: `retry-after=1${'0'.repeat(30)}ms` };

/** How long a server takes to answer an attempt, ms. */
export const latency = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }));

/** How long a connection stays up: at once, under and over any minUptime. */
export const uptime = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 2000 }),
  fc.integer({ min: 5000, max: 12_000 }),
);

/**
 * What a server does with its `n`-th connection (from 0): the script's behaviours in turn, and past
 * MAX_ATTEMPTS `silent` (it stops answering), so that even a schedule with no floor ends.
 */
export function nthBehaviour<B>(script: readonly B[], n: number, silent: B, fallback: B = silent): B {
  return n >= MAX_ATTEMPTS ? silent : (script[n % script.length] ?? fallback);
}

/** A server that never answers. */
export interface BlackHole {
  readonly kind: 'black-hole';
}

export const blackHole: fc.Arbitrary<BlackHole> = fc.constant({ kind: 'black-hole' });

/**
 * A server that accepts after `after` ms, keeps the connection up for `uptime` ms, then ends it as
 * its field `K` says, with a hint or none.
 */
export type Up<K extends string, V> = {
  readonly kind: 'up';
  readonly after: number;
  readonly uptime: number;
  readonly hint: Hint | undefined;
} & Readonly<Record<K, V>>;

/** Any Up: any latency, uptime and hint, and how it ends (its field `key`) drawn by `end`. */
export function up<K extends string, V>(key: K, end: fc.Arbitrary<V>): fc.Arbitrary<Up<K, V>> {
  return fc
    .tuple(latency, uptime, end, maybeHint)
    .map(([after, upFor, how, hint]) => ({ kind: 'up', after, uptime: upFor, [key]: how, hint }) as Up<K, V>);
}

/** One connection as a generated server records it, with the server's timers for it. */
export interface ServedAttempt {
  readonly start: number;
  readyAt?: number;
  end?: AttemptEnd;
  open: boolean;
  readonly timers: Subscription[];
}

/** Schedules `act` `delay` ms from now on the server's clock. */
export type At = (delay: number, act: () => void) => void;

/**
 * Plays an Up on the server's clock: `after` ms from now the connection is ready (`readyAt` is
 * recorded, then `ready()`), and `uptime` ms later the server ends it (`ends(readyAt)`).
 */
export function playUp(
  b: { readonly after: number; readonly uptime: number },
  record: { readyAt?: number },
  timeline: { readonly at: At; readonly now: () => number },
  { ready, ends }: { readonly ready: () => void; readonly ends: (readyAt: number) => void },
): void {
  timeline.at(b.after, () => {
    record.readyAt = timeline.now();
    ready();
    timeline.at(b.uptime, () => {
      ends(record.readyAt ?? 0);
    });
  });
}
