/**
 * The schedule invariant of every component that starts request attempts (`retry()`,
 * `retryBackoff()`, `failover()`, the BullMQ strategy), as a pure checker over what a test recorded:
 * each attempt's start and end on the virtual clock, how it ended, and the server hint it carried.
 *
 * Within a failure episode (reset by a success), after the k-th consecutive failure:
 * - the next start is at least the policy's k-th shortest wait after the failed attempt's start
 *   (the policy unfolded with `random = () => 0`);
 * - it keeps to the attempt-spacing floor, where the component has one (a token bucket of `burst`
 *   starts refilled one per `interval` ms: starts j..i, n of them, span at least (n − burst) × interval);
 * - after a valid server hint h (cut to the component's ceiling c), it is at least the failure's time
 *   + min(h, c);
 * - it is at most the latest of: the failure's time (an attempt that outlived its wait is retried at
 *   once), the failed attempt's start + the policy's k-th longest wait (`random = () => 1`), the floor,
 *   and the failure's time + the hint's upper bound (min(1.2 h, c): spread upwards, never past c);
 * - an attempt marked `final` (a broken policy, a server that said "stop") has no successor.
 * Every bound allows 1 ms of tolerance for rounding, no more.
 * @module
 */
import type { AttemptSpacing, BackoffPolicy } from '../../src/index.js';

/** The rounding tolerance of every bound, ms. */
export const TOLERANCE_MS = 1;

/** A server hint as bounds on the wait it asks for, measured from the failure (the attempt's end). */
export interface HintBounds {
  /** The least wait honoured: min(hint, ceiling). */
  readonly atLeast: number;
  /** The most the wait may be stretched to by the hint: min(hint × 1.2, ceiling). */
  readonly atMost: number;
}

/** One attempt, as a test records it. */
export interface AttemptRecord {
  readonly start: number;
  /** When it succeeded, failed or was cut. */
  readonly end: number;
  /** `cut`: aborted by the component (a hedge that lost); neither a success nor a failure. */
  readonly outcome: 'success' | 'failure' | 'cut';
  /** A failure that starts a new episode (a stream delivered a value, then failed). */
  readonly freshEpisode?: boolean;
  /** The server's hint on this failure, if it carried a valid one. */
  readonly hint?: HintBounds;
  /**
   * Whether the policy starts afresh after this failure (gRFC A6 after a pushback): `true`, or
   * `'either'` where both restarting and going on are allowed (each bound takes the looser of the two).
   */
  readonly restartsBackoff?: boolean | 'either';
  /** No attempt may follow this failure; says why. */
  readonly final?: string;
}

/** The bounds a component's schedule must keep. */
export interface ScheduleRules {
  /** The shortest allowed wait after the k-th consecutive failure (k from 1). */
  readonly shortest: (k: number) => number;
  /** The longest allowed wait after the k-th consecutive failure. */
  readonly longest: (k: number) => number;
  /** The attempt-spacing floor, if the component has one. */
  readonly spacing?: AttemptSpacing;
  /** Whether to check upper bounds (off where other work may delay an attempt, as in failover). @defaultValue true */
  readonly upper?: boolean;
}

/** One broken bound. */
export interface Violation {
  /** The index (in the list given) of the attempt that started too early or too late. */
  readonly attempt: number;
  readonly rule: 'policy-minimum' | 'spacing-floor' | 'server-hint' | 'upper-bound' | 'after-final';
  readonly detail: string;
}

/** The waits of `policy` for the first `steps` consecutive failures, with a constant random source. */
export function unfoldDelays(policy: BackoffPolicy, random: number, steps: number): number[] {
  const source = (): number => random;
  const out: number[] = [];
  let step = policy.first(source);
  for (let i = 0; i < steps; i++) {
    if (i > 0) step = step.next(source);
    out.push(step.delay);
  }
  return out;
}

/**
 * The rules of a policy: its k-th shortest and longest waits, each optionally capped (the BullMQ
 * strategy's `maxDelay`), unfolded lazily.
 */
export function policyRules(
  policy: BackoffPolicy,
  extra: Omit<ScheduleRules, 'shortest' | 'longest'> & { readonly cap?: number } = {},
): ScheduleRules {
  const { cap = Infinity, ...rest } = extra;
  const memo = (r: number): ((k: number) => number) => {
    let delays: number[] = [];
    return (k) => {
      if (delays.length < k) delays = unfoldDelays(policy, r, Math.max(k, 2 * delays.length));
      return Math.min(cap, delays[k - 1] ?? NaN);
    };
  };
  return { shortest: memo(0), longest: memo(1), ...rest };
}

/** The earliest start of attempt `j` (an index into `starts`) that `spacing` allows. */
export function spacingFloor(starts: readonly number[], j: number, spacing: AttemptSpacing | undefined): number {
  if (spacing === undefined || spacing.interval === 0 || spacing.burst === Infinity) return -Infinity;
  let floor = -Infinity;
  for (let i = j - spacing.burst; i >= 0; i--) {
    floor = Math.max(floor, (starts[i] ?? -Infinity) + (j - i + 1 - spacing.burst) * spacing.interval);
  }
  return floor;
}

const fmt = (ms: number): string => (Number.isFinite(ms) ? String(Math.round(ms * 1000) / 1000) : String(ms));

/**
 * A failure's position in its episode: the k it may have (1-based). More than one where the
 * component may either restart its policy or go on (`restartsBackoff: 'either'`).
 */
interface FailureState {
  readonly ks: readonly number[];
}

/** The shortest wait allowed after a failure in `state`: the least over its possible positions. */
function shortestAfter(state: FailureState, rules: ScheduleRules): number {
  return Math.min(...state.ks.map((k) => rules.shortest(k)));
}

/** The longest wait allowed after a failure in `state`: the most over its possible positions. */
function longestAfter(state: FailureState, rules: ScheduleRules): number {
  return Math.max(...state.ks.map((k) => rules.longest(k)));
}

/** Walks the attempts in start order and returns each failure's position in its episode (undefined for successes and cuts). */
function episodeIndices(attempts: readonly AttemptRecord[]): (FailureState | undefined)[] {
  let ks: readonly number[] = [0];
  return attempts.map((a) => {
    if (a.outcome === 'cut') return undefined;
    if (a.outcome === 'success') {
      ks = [0];
      return undefined;
    }
    if (a.freshEpisode === true) ks = [0];
    ks = ks.map((k) => k + 1);
    const state = { ks };
    if (a.restartsBackoff === true) ks = [0];
    else if (a.restartsBackoff === 'either') ks = [...new Set([0, ...ks])];
    return state;
  });
}

/**
 * The latest time at which the successor of the failure `a` may start, before the spacing floor: its
 * end, its start + the longest wait, its end + the hint's upper bound.
 */
function latestRetry(a: AttemptRecord, state: FailureState, rules: ScheduleRules): number {
  return Math.max(
    a.end,
    a.start + longestAfter(state, rules),
    a.hint === undefined ? -Infinity : a.end + a.hint.atMost,
  );
}

/**
 * Checks one component's attempts (in start order) against `rules`; returns every broken bound,
 * an empty list when the schedule keeps them all. Cut attempts count for the spacing floor only.
 */
export function checkRequestSchedule(attempts: readonly AttemptRecord[], rules: ScheduleRules): Violation[] {
  const out: Violation[] = [];
  const starts = attempts.map((a) => a.start);
  const indices = episodeIndices(attempts);
  for (let j = 1; j < attempts.length; j++) {
    const floor = spacingFloor(starts, j, rules.spacing);
    const next = attempts[j];
    if (next === undefined) continue;
    if (next.start < floor - TOLERANCE_MS) {
      out.push({
        attempt: j,
        rule: 'spacing-floor',
        detail: `started at ${fmt(next.start)}, before the spacing floor ${fmt(floor)}`,
      });
    }
  }
  // The successor of each failure: the next attempt that is not a cut.
  for (let i = 0; i < attempts.length; i++) {
    const a = attempts[i];
    const state = indices[i];
    if (a === undefined || state === undefined) continue;
    let j = i + 1;
    while (attempts[j]?.outcome === 'cut') j++;
    const next = attempts[j];
    if (next === undefined) continue;
    const label = `after failure ${state.ks.join(' or ')} (attempt ${String(i)}: ${fmt(a.start)}–${fmt(a.end)})`;
    if (a.final !== undefined) {
      out.push({ attempt: j, rule: 'after-final', detail: `started at ${fmt(next.start)} ${label}: ${a.final}` });
      continue;
    }
    const shortest = shortestAfter(state, rules);
    const minimum = a.start + shortest;
    if (!(next.start >= minimum - TOLERANCE_MS)) {
      out.push({
        attempt: j,
        rule: 'policy-minimum',
        detail: `started at ${fmt(next.start)} ${label}, ${fmt(next.start - a.start)} ms after its start; the policy's shortest wait is ${fmt(shortest)} ms`,
      });
    }
    if (a.hint !== undefined && next.start < a.end + a.hint.atLeast - TOLERANCE_MS) {
      out.push({
        attempt: j,
        rule: 'server-hint',
        detail: `started at ${fmt(next.start)} ${label}, ${fmt(next.start - a.end)} ms after the failure; the server asked for ${fmt(a.hint.atLeast)} ms`,
      });
    }
    if (rules.upper !== false) {
      const latest = Math.max(latestRetry(a, state, rules), spacingFloor(starts, j, rules.spacing));
      if (!(next.start <= latest + TOLERANCE_MS)) {
        out.push({
          attempt: j,
          rule: 'upper-bound',
          detail: `started at ${fmt(next.start)} ${label}, ${fmt(next.start - a.start)} ms after its start and ${fmt(next.start - a.end)} ms after the failure; the latest allowed start is ${fmt(latest)} (longest wait ${fmt(longestAfter(state, rules))} ms${a.hint === undefined ? '' : `, hint at most ${fmt(a.hint.atMost)} ms`})`,
        });
      }
    }
  }
  return out;
}

/** One provider attempt of a failover call. */
export interface ProviderAttemptRecord extends AttemptRecord {
  readonly provider: string;
}

/** One failover call: when it began, and its attempts in start order. */
export interface CallRecord {
  readonly start: number;
  readonly attempts: readonly ProviderAttemptRecord[];
}

/**
 * Checks a run of sequential failover calls. Per provider, across calls: the lower bounds of
 * {@link checkRequestSchedule} (a provider's next attempt against its own last start). Per call: the
 * spacing floor, and, for every start made while nothing of the call was in flight, the upper bound:
 * no later than the moment the call went idle, the floor, or the soonest provider's latest allowed
 * retry (an untried or last-successful provider may start at once).
 */
export function checkFailoverSchedule(
  calls: readonly CallRecord[],
  rules: ReadonlyMap<string, ScheduleRules>,
  spacing: AttemptSpacing,
): Violation[] {
  const out: Violation[] = [];
  const all = calls.flatMap((c) => c.attempts);
  const byProvider = new Map<string, { record: ProviderAttemptRecord; seq: number }[]>();
  all.forEach((record, seq) => {
    const list = byProvider.get(record.provider) ?? [];
    list.push({ record, seq });
    byProvider.set(record.provider, list);
  });
  /** For each global index: the latest time by which the provider's next attempt may start (−∞: any time). */
  const readyBy = new Map<number, number>();
  for (const [provider, list] of byProvider) {
    const own = rules.get(provider);
    if (own === undefined) throw new Error(`no rules for provider ${provider}`);
    const records = list.map((x) => x.record);
    for (const v of checkRequestSchedule(records, { shortest: own.shortest, longest: own.longest, upper: false })) {
      const seq = list[v.attempt]?.seq ?? -1;
      out.push({ ...v, attempt: seq, detail: `provider ${provider}: ${v.detail}` });
    }
    const indices = episodeIndices(records);
    let last = -Infinity;
    list.forEach(({ record, seq }, i) => {
      const state = indices[i];
      if (record.outcome === 'success') last = -Infinity;
      else if (record.outcome === 'failure' && state !== undefined) {
        last = record.final === undefined ? latestRetry(record, state, own) : Infinity;
      }
      readyBy.set(seq, last);
    });
  }
  let offset = 0;
  for (const call of calls) {
    const starts = call.attempts.map((a) => a.start);
    call.attempts.forEach((a, j) => {
      const seq = offset + j;
      const floor = spacingFloor(starts, j, spacing);
      if (a.start < floor - TOLERANCE_MS) {
        out.push({
          attempt: seq,
          rule: 'spacing-floor',
          detail: `provider ${a.provider} started at ${fmt(a.start)}, before the call's spacing floor ${fmt(floor)}`,
        });
      }
      const earlier = call.attempts.slice(0, j);
      if (earlier.some((e) => e.end > a.start)) return;
      const idleSince = Math.max(call.start, ...earlier.map((e) => e.end));
      let soonest = Infinity;
      for (const list of byProvider.values()) {
        const before = list.filter((x) => x.seq < seq && x.record.outcome !== 'cut').at(-1);
        soonest = Math.min(soonest, before === undefined ? -Infinity : (readyBy.get(before.seq) ?? -Infinity));
      }
      if (rules.size > byProvider.size) soonest = -Infinity; // a provider never tried may start at once
      const latest = Math.max(idleSince, floor, soonest);
      if (!(a.start <= latest + TOLERANCE_MS)) {
        out.push({
          attempt: seq,
          rule: 'upper-bound',
          detail: `provider ${a.provider} started at ${fmt(a.start)}; the call was idle from ${fmt(idleSince)} and the soonest provider was due by ${fmt(soonest)} (floor ${fmt(floor)})`,
        });
      }
    });
    offset += call.attempts.length;
  }
  return out;
}
