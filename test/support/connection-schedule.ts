/**
 * The schedule invariant that every component starting connection attempts must keep, as a pure
 * function over a recorded trace: when each attempt started, and how and when it ended. It knows
 * nothing of the component that made the trace (a ConnectionManager on virtual time, a server counting
 * real connections); it reads only the documented rules:
 *
 * 1. Lower bounds. Within a backoff cycle, the wait from one start to the next is at least the
 *    policy's k-th shortest delay (the policy unfolded with `random = () => 0`) after the k-th
 *    consecutive failure. A connection READY for less than `minUptime` counts as a failure, also when
 *    the server ended it gracefully, unless a grace credit is there: the credit is earned when a
 *    connection ends after staying READY ≥ minUptime, and a graceful end before minUptime consumes it
 *    and resets the cycle. Such a failure's wait counts from the connection's end, not its start.
 *    After any reset the next start is still ≥ the last start + the shortest first delay (with
 *    `backoffAfterLoss`, ≥ the loss + the shortest first delay, the loss being the new cycle's first
 *    failure). A server hint h (ms) puts the next start at ≥ the failure + min(h, ceiling); a hint
 *    of 0, a negative one, NaN or anything but a number asks for nothing. The floor on attempt starts
 *    (`attemptSpacing`: `burst` back to back, then one per `interval` ms) holds throughout.
 * 2. Upper bound. No wait, from the end of an attempt to the next start (or to the end of the trace
 *    when none followed), exceeds max(the policy's longest delay, the hint ceiling, the floor's
 *    interval) + reconnectSpread. The ceiling is `maxRetryAfter`, by default max(the policy's
 *    `bounds.max`, 120 s).
 * 3. One at a time: no attempt starts before the one before it has ended.
 * 4. Moments worth retrying (`wakes`: the network came back, the page was shown) and offline spells
 *    (`offline`), where the trace has them. A wake during a wait may end it early and restart the
 *    cycle, but never before the server's hint or the floor on attempt starts. No attempt starts
 *    while offline; a wait that ran into an offline spell is measured for invariant 2 from the end of
 *    the spell.
 *
 * Where the rules leave a choice, the checker follows every reading and lets the next start be as
 * early as the most permissive one allows: a graceful end with the credit there may reset the cycle
 * or count as a failure (a component may not see the end as graceful), an uptime within the
 * tolerance of minUptime may or may not have been stable, and a credit is never revoked. So a
 * violation is a broken rule, not a reading.
 * Times are in ms; a tolerance of 1 ms (rounding) applies to every comparison unless the rules say
 * otherwise (a trace measured at a real server needs more for the network's latency).
 */
import { type AttemptSpacing, type BackoffPolicy, type RandomSource } from '../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, MAX_DELAY_MS } from '../../src/core/index.js';

/** The least default hint ceiling: a policy with a shorter cap still honours a hint up to 120 s. */
export const HINT_CEILING_FLOOR = 120_000;

/** How an attempt ended. */
export type AttemptEnd =
  /**
   * It ended before it was established: refused, closed, failed, or cut by the client at its deadline.
   * `delegated`: the connector keeps its own backoff (a happyEyeballs pass that failed with an
   * AllAddressesFailedError), so the policy sets no lower bound on the wait that follows; it still
   * counts as a failure of the cycle.
   */
  | {
      readonly kind: 'failed';
      readonly at: number;
      readonly hint?: unknown;
      readonly delegated?: boolean;
    }
  /**
   * It was established at `readyAt` (HTTP/2 SETTINGS, WebSocket open) and the server or the network
   * ended it at `at`; `graceful` when the server may have ended it gracefully (GOAWAY NO_ERROR, a
   * WebSocket close 1000/1001).
   */
  | {
      readonly kind: 'lost';
      readonly readyAt: number;
      readonly at: number;
      readonly graceful: boolean;
      readonly hint?: unknown;
    }
  /** The client ended it for a reason of its own, not its schedule: shutdown, or another address won. */
  | { readonly kind: 'stopped'; readonly at: number };

/** One attempt: when it started, and its end (none while it is still open at the end of the trace). */
export interface TracedAttempt {
  readonly start: number;
  readonly end?: AttemptEnd | undefined;
}

/** The attempts of one component (one manager), oldest first, and when the recording stopped. */
export interface ScheduleTrace {
  readonly attempts: readonly TracedAttempt[];
  readonly end: number;
  /** When something worth retrying at once happened (online, the page shown), oldest first. */
  readonly wakes?: readonly number[] | undefined;
  /** The spells the host was offline, `[from, to)`, oldest first; `to` is Infinity if it stayed offline. */
  readonly offline?: readonly OfflineSpell[] | undefined;
}

/** A spell offline: from `from` up to (not including) `to`. */
export interface OfflineSpell {
  readonly from: number;
  readonly to: number;
}

/** The rules the component was configured with; see the module notes. */
export interface ScheduleRules {
  readonly backoff: BackoffPolicy;
  readonly minUptime: number;
  /** @defaultValue 0 */
  readonly reconnectSpread?: number | undefined;
  /** @defaultValue {@link DEFAULT_ATTEMPT_SPACING}; `{ interval: 0 }` for none */
  readonly attemptSpacing?: Partial<AttemptSpacing> | undefined;
  /**
   * The component counts the loss of a stable connection as the first failure of the cycle it
   * starts (the manager's `backoffAfterLoss`): the next start is ≥ the loss + the shortest first
   * delay, and the cycle goes on from one failure. @defaultValue false
   */
  readonly backoffAfterLoss?: boolean | undefined;
  /** The hint ceiling. @defaultValue max(backoff.bounds.max, 120 s) */
  readonly maxRetryAfter?: number | undefined;
  /** @defaultValue 1 */
  readonly tolerance?: number | undefined;
}

/** The delays of `policy` after 1, 2, … `count` consecutive failures, unfolded with `random`. */
export function unfoldDelays(policy: BackoffPolicy, random: RandomSource, count: number): number[] {
  const delays: number[] = [];
  let step = policy.first(random);
  for (let i = 0; i < count; i++) {
    if (i > 0) step = step.next(random);
    delays.push(Math.min(MAX_DELAY_MS, Math.max(0, step.delay)));
  }
  return delays;
}

/** What a server's hint asks for, in ms: the value if it is a number > 0 (Infinity included), else 0. */
export function hintOf(value: unknown): number {
  return typeof value === 'number' && value > 0 ? value : 0;
}

interface Resolved {
  readonly shortest: (k: number) => number;
  readonly longest: number;
  readonly ceiling: number;
  /** The longest wait allowed after any end. */
  readonly upper: number;
  readonly minUptime: number;
  readonly backoffAfterLoss: boolean;
  readonly spacing: AttemptSpacing;
  readonly tolerance: number;
}

function resolveRules(rules: ScheduleRules, count: number): Resolved {
  const steps = Math.max(1, count);
  const shortest = unfoldDelays(rules.backoff, () => 0, steps);
  const longest = Math.max(rules.backoff.bounds?.max ?? 0, ...unfoldDelays(rules.backoff, () => 1, steps));
  const ceiling = rules.maxRetryAfter ?? Math.max(rules.backoff.bounds?.max ?? longest, HINT_CEILING_FLOOR);
  const tolerance = rules.tolerance ?? 1;
  const spacing = { ...DEFAULT_ATTEMPT_SPACING, ...rules.attemptSpacing };
  // The floor delays a start by at most one interval after the start before it.
  const floor = spacing.burst === Infinity ? 0 : spacing.interval;
  return {
    shortest: (k) => shortest[Math.min(k, steps) - 1] ?? 0,
    longest,
    ceiling,
    upper: Math.max(longest, ceiling, floor) + (rules.reconnectSpread ?? 0) + tolerance,
    minUptime: rules.minUptime,
    backoffAfterLoss: rules.backoffAfterLoss ?? false,
    spacing,
    tolerance,
  };
}

/**
 * The longest wait `rules` allow after any end (invariant 2), tolerance included: a run that sees no
 * attempt for longer than this after a failure has found a wait the schedule does not allow.
 */
export function longestAllowedWait(rules: ScheduleRules): number {
  return resolveRules(rules, 64).upper;
}

const ms = (value: number): string => `${String(Math.round(value * 1000) / 1000)} ms`;

/** What the rules allow after one ended attempt. */
interface Step {
  /** The earliest the next attempt may start. */
  readonly earliest: number;
  readonly why: string;
  /** Whether the cycle restarted (the next attempt is the first of a new cycle), by every reading or by some. */
  readonly reset: 'yes' | 'maybe' | 'no';
}

/** Where a cycle stands: consecutive failures, and whether a grace credit is there. */
interface Cycle {
  readonly k: number;
  readonly credit: boolean;
}

/** One reading of an ended attempt: the earliest next start it allows, and the cycle after it. */
interface Reading {
  readonly earliest: number;
  readonly why: string;
  readonly cycle: Cycle;
}

/** The readings the rules allow for `a`, ended with `end`, from `cycle`. */
function readings(a: TracedAttempt, end: AttemptEnd, cycle: Cycle, r: Resolved): Reading[] {
  // A failed attempt's wait counts from its start; a connection lost before minUptime's, from its end.
  const failure = (why: string, from = a.start): Reading => {
    const k = cycle.k + 1;
    return {
      earliest: from + r.shortest(k),
      why: `the shortest wait after failure ${String(k)} of the cycle${why}`,
      cycle: { k, credit: cycle.credit },
    };
  };
  const restart = (credit: boolean): Reading =>
    r.backoffAfterLoss && end.kind === 'lost'
      ? {
          earliest: end.at + r.shortest(1),
          why: 'one shortest first wait after the loss (the cycle restarted with the loss as its first failure)',
          cycle: { k: 1, credit },
        }
      : {
          earliest: a.start + r.shortest(1),
          why: 'one shortest first wait after the last start (the cycle restarted)',
          cycle: { k: 0, credit },
        };
  switch (end.kind) {
    case 'failed':
      return end.delegated === true
        ? [{ earliest: -Infinity, why: '', cycle: { k: cycle.k + 1, credit: cycle.credit } }]
        : [failure('')];
    case 'stopped':
      return [{ earliest: -Infinity, why: '', cycle: { k: 0, credit: cycle.credit } }];
    case 'lost': {
      const uptime = end.at - end.readyAt;
      if (uptime >= r.minUptime) return [restart(true)];
      const list = [
        failure(
          ` (READY ${ms(uptime)}, under minUptime ${ms(r.minUptime)}${end.graceful && !cycle.credit ? ', graceful, no credit' : ''}), from its end`,
          end.at,
        ),
      ];
      // Within the tolerance of minUptime the connection may have counted as stable; a graceful end
      // with the credit there resets the cycle (a component may also count it as a failure).
      if (uptime >= r.minUptime - r.tolerance) list.push(restart(true));
      if (end.graceful && cycle.credit) list.push(restart(false));
      return list;
    }
  }
}

/**
 * Walks the attempts by the cycle rules: for each ended attempt, what the rules allow after it.
 * Where the rules leave a choice (see {@link readings}), every reading is followed as long as the
 * trace agrees with it: a reading whose earliest next start the trace undercuts is dropped, and the
 * next start breaks the rules only when it undercuts every reading.
 */
function walk(attempts: readonly TracedAttempt[], r: Resolved, wakes: readonly number[] = []): (Step | undefined)[] {
  let cycles: Cycle[] = [{ k: 0, credit: false }];
  return attempts.map((a, i) => {
    const end = a.end;
    if (end === undefined) return undefined;
    const hint = end.kind === 'stopped' ? 0 : hintOf(end.hint);
    const hinted = hint > 0 ? end.at + Math.min(hint, r.ceiling) : -Infinity;
    const hintWhy = `the server's hint of ${ms(hint)}${hint > r.ceiling ? ` cut to ${ms(r.ceiling)}` : ''} after the failure`;
    const next = attempts[i + 1]?.start;
    // The first wake in the wait (before the next start) may have ended it and restarted the cycle.
    const wake = wakes.find((w) => w >= end.at - r.tolerance && (next === undefined || w <= next + r.tolerance));
    const woken: Reading[] =
      wake === undefined
        ? []
        : cycles.map((cycle) => ({
            earliest: wake,
            why: `a wake at ${ms(wake)} (the cycle restarted)`,
            cycle: { k: 0, credit: cycle.credit },
          }));
    const options = [...cycles.flatMap((cycle) => readings(a, end, cycle, r)), ...woken].map((o) =>
      hinted > o.earliest ? { ...o, earliest: hinted, why: hintWhy } : o,
    );
    const most = options.reduce((best, o) => (o.earliest < best.earliest ? o : best));
    const agreed = next === undefined ? options : options.filter((o) => next >= o.earliest - r.tolerance);
    const seen = new Set<string>();
    cycles = (agreed.length > 0 ? agreed : options)
      .map((o) => o.cycle)
      .filter((c) => {
        const key = `${String(c.k)}/${String(c.credit)}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    const restarted = cycles.filter((c) => c.k === 0).length;
    const reset = restarted === cycles.length ? 'yes' : restarted > 0 ? 'maybe' : 'no';
    return { earliest: most.earliest, why: most.why, reset };
  });
}

/** Starts that the floor on attempt starts (a token bucket) did not allow. */
function spacingViolations(starts: readonly number[], r: Resolved): string[] {
  const { burst, interval } = r.spacing;
  if (interval === 0 || burst === Infinity) return [];
  const out: string[] = [];
  let tokens = burst;
  let at = -Infinity;
  starts.forEach((start, i) => {
    if (at !== -Infinity) tokens = Math.min(burst, tokens + (start - at) / interval);
    if (tokens < 1 - r.tolerance / interval) {
      out.push(
        `attempt ${String(i + 1)} at ${ms(start)}: the floor on attempt starts (${String(burst)} back to back, then one per ${ms(interval)}) allowed it no sooner than ${ms(at + (1 - tokens) * interval)}`,
      );
    }
    tokens -= 1;
    at = start;
  });
  return out;
}

/** The first few violations, and how many more there were. */
function summarise(violations: readonly string[], most = 4): string[] {
  if (violations.length <= most) return [...violations];
  return [...violations.slice(0, most), `… and ${String(violations.length - most)} more`];
}

function orderViolations(list: readonly TracedAttempt[], i: number, name: string): string[] {
  const a = list[i];
  const next = list[i + 1];
  if (a === undefined || next === undefined) return [];
  if (a.end === undefined)
    return [`${name} ${String(i + 2)} began at ${ms(next.start)} while ${name} ${String(i + 1)} was open`];
  if (next.start < a.end.at)
    return [
      `${name} ${String(i + 2)} began at ${ms(next.start)}, before ${name} ${String(i + 1)} ended at ${ms(a.end.at)}`,
    ];
  return [];
}

/** Starts made while the host was offline. */
function offlineViolations(trace: ScheduleTrace, r: Resolved, name: string): string[] {
  const spells = trace.offline ?? [];
  return trace.attempts.flatMap((a, i) => {
    const spell = spells.find((s) => a.start > s.from + r.tolerance && a.start < s.to - r.tolerance);
    return spell === undefined
      ? []
      : [`${name} ${String(i + 1)} at ${ms(a.start)}: while offline (from ${ms(spell.from)} to ${ms(spell.to)})`];
  });
}

/** Where a wait that began at `from` is measured from for invariant 2: after any offline spell it ran into. */
function waitFrom(from: number, until: number, spells: readonly OfflineSpell[]): number {
  let at = from;
  for (const s of spells) if (s.from <= until && s.to > at) at = Math.max(at, s.to);
  return at;
}

function checkSchedule(trace: ScheduleTrace, r: Resolved, name = 'attempt'): string[] {
  const { attempts } = trace;
  const out: string[] = offlineViolations(trace, r, name);
  const steps = walk(attempts, r, trace.wakes);
  attempts.forEach((a, i) => {
    out.push(...orderViolations(attempts, i, name));
    const step = steps[i];
    const end = a.end;
    if (step === undefined || end === undefined) return;
    const next = attempts[i + 1];
    if (next !== undefined && next.start < step.earliest - r.tolerance) {
      out.push(
        `${name} ${String(i + 2)} at ${ms(next.start)}: ${ms(next.start - a.start)} after ${name} ${String(i + 1)} began (ended ${end.kind} at ${ms(end.at)}), under ${ms(step.earliest - a.start)}: ${step.why}`,
      );
    }
    if (end.kind === 'stopped') return;
    const until = next?.start ?? trace.end;
    const from = waitFrom(end.at, until, trace.offline ?? []);
    if (until - from > r.upper) {
      const after = from > end.at ? `back online at ${ms(from)}` : `${name} ${String(i + 1)} ended (${end.kind})`;
      out.push(
        next === undefined
          ? `no ${name} in the ${ms(until - from)} after ${after}${from > end.at ? '' : ` at ${ms(end.at)}`}; no wait may exceed ${ms(r.upper)}`
          : `${name} ${String(i + 2)} at ${ms(next.start)}: ${ms(until - from)} after ${after}; no wait may exceed ${ms(r.upper)}`,
      );
    }
  });
  out.push(
    ...spacingViolations(
      attempts.map((a) => a.start),
      r,
    ),
  );
  return out;
}

/**
 * The ways in which `trace` breaks the schedule `rules` allow (invariants 1 to 3 of the module
 * notes), the first few of them in words; empty when it keeps to it.
 */
export function scheduleViolations(trace: ScheduleTrace, rules: ScheduleRules): string[] {
  return summarise(checkSchedule(trace, resolveRules(rules, trace.attempts.length + 1)));
}

/** One address's attempt in a race, and the pass (the manager's attempt, by index) it belonged to. */
export interface AddressAttempt extends TracedAttempt {
  readonly pass: number;
}

/**
 * A race over several addresses (happyEyeballs under a ConnectionManager): the manager's attempts,
 * one pass over the addresses each, and each address's own attempts.
 */
export interface RaceTrace {
  readonly passes: readonly TracedAttempt[];
  readonly addresses: readonly (readonly AddressAttempt[])[];
  readonly end: number;
}

/**
 * The ways in which a race breaks its documented schedule: the passes keep the manager's schedule
 * (a pass that failed with the connector's own backoff is `delegated`); each address keeps its own
 * backoff — after its k-th consecutive failure it starts again no sooner than the policy's k-th
 * shortest delay after its last start, or its hint — and a cycle restart of the manager, a connection
 * of its own or a lost race start its backoff afresh; a pass fails only once every address has failed
 * or is backing off, so a failed pass that ends more than the longest wait after an address's failure
 * without trying it has let that address wait too long. No address has two attempts open at a time.
 */
export function raceViolations(trace: RaceTrace, rules: ScheduleRules): string[] {
  const count = Math.max(trace.passes.length, ...trace.addresses.map((list) => list.length)) + 1;
  const r = resolveRules(rules, count);
  const out = checkSchedule({ attempts: trace.passes, end: trace.end }, r, 'pass');
  // Whether the manager's cycle restarted after each pass: happyEyeballs then starts every address afresh.
  const restarts = walk(trace.passes, r).map((step) => step?.reset ?? 'no');
  trace.addresses.forEach((list, n) => {
    const name = `address #${String(n + 1)}`;
    // The address's consecutive failures, by each reading of the restarts still open.
    let failures: number[] = [0];
    list.forEach((a, i) => {
      out.push(...orderViolations(list, i, `${name} attempt`));
      const end = a.end;
      if (end === undefined) return;
      const next = list[i + 1];
      const between = restarts.slice(a.pass, next?.pass ?? restarts.length);
      const restarted = between.includes('yes') ? 'yes' : between.includes('maybe') ? 'maybe' : 'no';
      if (end.kind !== 'failed') {
        // Its own connection, or a lost race: its backoff starts afresh (the passes' schedule governs).
        failures = [0];
        return;
      }
      failures = failures.map((k) => k + 1);
      const hint = hintOf(end.hint);
      const hinted = hint > 0 ? end.at + Math.min(hint, r.ceiling) : -Infinity;
      const options = failures.map((k) => {
        const backoff = a.start + r.shortest(k);
        return hinted > backoff
          ? {
              k,
              earliest: hinted,
              why: `its server's hint of ${ms(hint)}${hint > r.ceiling ? ` cut to ${ms(r.ceiling)}` : ''}`,
            }
          : { k, earliest: backoff, why: `its shortest wait after failure ${String(k)}` };
      });
      if (next !== undefined && restarted === 'no') {
        const agreed = options.filter((o) => next.start >= o.earliest - r.tolerance);
        if (agreed.length > 0) failures = agreed.map((o) => o.k);
        else {
          const most = options.reduce((best, o) => (o.earliest < best.earliest ? o : best));
          out.push(
            `${name} attempt ${String(i + 2)} at ${ms(next.start)}: ${ms(next.start - a.start)} after its attempt ${String(i + 1)} began, under ${ms(most.earliest - a.start)}: ${most.why}`,
          );
        }
      } else if (next !== undefined) {
        failures = options.filter((o) => next.start >= o.earliest - r.tolerance).map((o) => o.k);
      }
      if (restarted === 'yes') failures = [0];
      else if (restarted === 'maybe') failures = [...new Set([...failures, 0])];
      const nextStart = next?.start ?? Infinity;
      const due = end.at + r.upper;
      const skipped = trace.passes.findIndex(
        (p, index) =>
          index > a.pass &&
          p.start < nextStart &&
          p.end?.kind === 'failed' &&
          p.end.delegated === true &&
          p.end.at >= due &&
          !list.some((x) => x.pass === index),
      );
      if (skipped >= 0) {
        out.push(
          `${name}: pass ${String(skipped + 1)} failed at ${ms(trace.passes[skipped]?.end?.at ?? 0)} without trying it, ${ms((trace.passes[skipped]?.end?.at ?? 0) - end.at)} after its failure at ${ms(end.at)}; no wait may exceed ${ms(r.upper)}`,
        );
      }
    });
  });
  return summarise(out);
}
