/**
 * One schedule invariant, proven on every component that starts request attempts: `retry()`,
 * `retryBackoff()`, `failover()`, `circuitBreaker()` probes and the BullMQ strategy, each driven on
 * virtual time against generated policies, server hints and scripts of failures and successes (the
 * bounds and their checker are in test/support/request-schedule.ts):
 * - within a failure episode (reset by a success), the k-th wait, from an attempt's start to the
 *   next start, is at least the policy's k-th shortest delay and keeps to the attempt-spacing floor;
 * - after a valid server hint h, the next start is at least the failure's time + min(h, ceiling);
 * - no wait is longer than the policy's k-th longest delay or the bounded hint (+1 ms);
 * - a policy that throws or returns NaN, Infinity, a string or undefined ends the retrying: no
 *   further attempt, the call rejects with a BackoffPolicyError (the breaker: it stays open, no
 *   probe), never a 0 ms wait;
 * - nothing is left running once the call settles (no timer on the virtual clock).
 * Each component is driven with three kinds of script, so that one defect cannot hide another:
 * attempts that take time without hints (waits from the start), instant failures with hints (the
 * hint rule alone), and both at once.
 *
 * Cases per run: 6,150 over 22 properties — retry() 1,150, retryBackoff() 1,150, failover() 1,350,
 * circuitBreaker() 850, the BullMQ strategy 1,650. fast-check draws a new seed each run.
 */
import fc from 'fast-check';
import { defer, type Observable, concat, mergeMap, of, throwError, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  type AttemptSpacing,
  type Backoff,
  type BackoffPolicy,
  constantBackoff,
  exponentialBackoff,
  grpcBackoff,
  retryAfter,
} from '../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, GRPC_JITTER_MODES, JITTER_KINDS, MAX_DELAY_MS } from '../../src/core/index.js';
import { jobRetries } from '../../src/toolkits/bullmq/index.js';
import {
  circuitBreaker,
  type BreakerSnapshot,
  type FailoverOptions,
  type FailoverProvider,
  failover,
  grpcRetryPolicy,
  HttpResponseError,
  retry,
  retryBackoff,
  type RetryPolicyOptions,
} from '../../src/toolkits/retry/index.js';
import { createVirtualClock, type VirtualClock } from '../../src/testing/index.js';
import { seededRandom } from '../support/seeded-random.js';
import {
  type AttemptRecord,
  type CallRecord,
  checkFailoverSchedule,
  checkRequestSchedule,
  type HintBounds,
  policyRules,
  type ProviderAttemptRecord,
  TOLERANCE_MS,
} from '../support/request-schedule.js';

/** The virtual wall clock starts in 2030, so that Retry-After dates mean something. */
const EPOCH = Date.UTC(2030, 0, 1);
/** The defaults of each ceiling on server hints, as documented. */
const RETRY_MAX_RETRY_AFTER = 60_000;
const JOB_MAX_RETRY_AFTER = 3_600_000;
const JOB_MAX_DELAY = 3_600_000;

// ---------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------

type PolicySpec =
  | {
      readonly kind: 'grpc';
      readonly initialBackoff: number;
      readonly multiplier: number;
      readonly jitter: number;
      readonly extra: number;
      readonly jitterMode: (typeof GRPC_JITTER_MODES)[number];
    }
  | {
      readonly kind: 'exponential';
      readonly initialDelay: number;
      readonly multiplier: number;
      readonly extra: number;
      readonly jitter: (typeof JITTER_KINDS)[number];
    }
  | { readonly kind: 'constant'; readonly delay: number }
  | {
      readonly kind: 'grpc-retry';
      readonly initialBackoff: number;
      readonly extra: number;
      readonly backoffMultiplier: number;
      readonly jitter: number | 'full';
      readonly maxAttempts: number;
    };

const grpcSpec = fc.record({
  kind: fc.constant('grpc' as const),
  initialBackoff: fc.integer({ min: 0, max: 1000 }),
  multiplier: fc.constantFrom(1, 1.6, 2, 3),
  jitter: fc.constantFrom(0, 0.2, 0.5, 1),
  extra: fc.integer({ min: 0, max: 4000 }),
  jitterMode: fc.constantFrom(...GRPC_JITTER_MODES),
});
const exponentialSpec = fc.record({
  kind: fc.constant('exponential' as const),
  initialDelay: fc.integer({ min: 0, max: 1000 }),
  multiplier: fc.constantFrom(1, 1.5, 2, 3),
  extra: fc.integer({ min: 0, max: 4000 }),
  jitter: fc.constantFrom(...JITTER_KINDS),
});
const constantSpec = fc.record({ kind: fc.constant('constant' as const), delay: fc.integer({ min: 0, max: 2000 }) });
const grpcRetrySpec = fc.record({
  kind: fc.constant('grpc-retry' as const),
  initialBackoff: fc.integer({ min: 1, max: 1000 }),
  extra: fc.integer({ min: 0, max: 4000 }),
  backoffMultiplier: fc.constantFrom(1, 1.5, 2),
  jitter: fc.constantFrom(0, 0.2, 'full' as const),
  maxAttempts: fc.integer({ min: 2, max: 5 }),
});

/** grpcBackoff, exponentialBackoff with each jitter kind, constantBackoff; and gRPC's retry policy where it applies. */
const policySpec = (withGrpcRetry: boolean): fc.Arbitrary<PolicySpec> =>
  withGrpcRetry
    ? fc.oneof(grpcSpec, exponentialSpec, constantSpec, grpcRetrySpec)
    : fc.oneof(grpcSpec, exponentialSpec, constantSpec);

function grpcRetryOptions(spec: PolicySpec & { kind: 'grpc-retry' }) {
  return grpcRetryPolicy({
    maxAttempts: spec.maxAttempts,
    initialBackoff: spec.initialBackoff,
    maxBackoff: spec.initialBackoff + spec.extra,
    backoffMultiplier: spec.backoffMultiplier,
    jitter: spec.jitter,
    retryableStatusCodes: ['UNAVAILABLE'],
  });
}

function makePolicy(spec: PolicySpec): BackoffPolicy {
  switch (spec.kind) {
    case 'grpc':
      return grpcBackoff({
        initialBackoff: spec.initialBackoff,
        multiplier: spec.multiplier,
        jitter: spec.jitter,
        maxBackoff: spec.initialBackoff + spec.extra,
        jitterMode: spec.jitterMode,
      });
    case 'exponential':
      return exponentialBackoff({
        initialDelay: spec.initialDelay,
        multiplier: spec.multiplier,
        maxDelay: spec.initialDelay + spec.extra,
        jitter: spec.jitter,
      });
    case 'constant':
      return constantBackoff(spec.delay);
    case 'grpc-retry':
      return grpcRetryOptions(spec).backoff;
  }
}

/** How a broken policy breaks: it throws, or returns a delay that is not a finite number. */
type Breakage = 'throw' | 'NaN' | 'Infinity' | 'string' | 'undefined';
const breakage = fc.constantFrom<Breakage>('throw', 'NaN', 'Infinity', 'string', 'undefined');

/** Where a broken policy broke: the scheduler time and the event sequence number, and what it threw. */
interface Broke {
  at: number;
  seq: number;
  thrown: unknown;
  /** What the run's `mark()` said then (the breaker: how many states it had published). */
  mark: number;
}

/**
 * `policy`, broken from its `step`-th step on (1-based). `onBreak` is told when the component asks
 * for the broken step.
 */
function brokenPolicy(policy: BackoffPolicy, step: number, how: Breakage, onBreak: (thrown: unknown) => void) {
  const bad = (): Backoff => {
    const thrown = new Error(`the policy is broken at step ${String(step)}`);
    onBreak(how === 'throw' ? thrown : undefined);
    if (how === 'throw') throw thrown;
    const delay = { NaN: NaN, Infinity: Infinity, string: '100', undefined }[how] as unknown as number;
    return { delay, next: bad };
  };
  const wrap = (inner: Backoff, n: number): Backoff => ({
    delay: inner.delay,
    next: (random) => (n + 1 >= step ? bad() : wrap(inner.next(random), n + 1)),
  });
  const broken: BackoffPolicy = { first: (random) => (step <= 1 ? bad() : wrap(policy.first(random), 1)) };
  return broken;
}

// ---------------------------------------------------------------------------------------------
// Server hints and failures
// ---------------------------------------------------------------------------------------------

type HintSpec =
  | { readonly kind: 'none' }
  /** Retry-After as delay-seconds (huge digit runs included). */
  | { readonly kind: 'seconds'; readonly text: string }
  /** Retry-After as an HTTP date, `offset` seconds from the failure (past dates included). */
  | { readonly kind: 'date'; readonly offset: number }
  /** Retry-After text that is neither form. */
  | { readonly kind: 'garbage'; readonly text: string }
  /** gRPC `grpc-retry-pushback-ms` metadata. */
  | { readonly kind: 'pushback'; readonly text: string }
  /** A core RetryAfterError (BullMQ reads it). */
  | { readonly kind: 'retry-after-error'; readonly delay: number };

const HUGE_DIGITS = `1${'0'.repeat(30)}`;

const hintSpec = (withRetryAfterError: boolean): fc.Arbitrary<HintSpec> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<HintSpec>({ kind: 'none' }) },
    fc.record({
      kind: fc.constant('seconds' as const),
      text: fc.oneof(
        fc.integer({ min: 0, max: 6 }).map(String),
        fc.constantFrom('0', '59', '120', '99999999999', HUGE_DIGITS),
      ),
    }),
    fc.record({ kind: fc.constant('date' as const), offset: fc.integer({ min: -5, max: 8 }) }),
    fc.record({
      kind: fc.constant('garbage' as const),
      text: fc.constantFrom('soon', '-5', '1.5', 'NaN', '1e30', '', 'Infinity'),
    }),
    fc.record({
      kind: fc.constant('pushback' as const),
      text: fc.oneof(
        fc.integer({ min: 0, max: 3000 }).map(String),
        fc.constantFrom('0', '-1', '-250', 'NaN', 'abc', '1e30', '1.5', '', HUGE_DIGITS, '59000', '61000'),
      ),
    }),
    ...(withRetryAfterError
      ? [
          fc.record({
            kind: fc.constant('retry-after-error' as const),
            delay: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(0, 1e30, Infinity)),
          }),
        ]
      : []),
  );

/** The HTTP date `offset` seconds from the whole second at or before `failure`. */
function retryAfterDate(offset: number, failure: number): number {
  return Math.floor(failure / 1000) * 1000 + offset * 1000;
}

function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

function grpcError(code: number, metadata: Record<string, string>): Error {
  return Object.assign(new Error(`gRPC status ${String(code)}`), {
    code,
    details: 'test',
    metadata: { get: (key: string) => (key in metadata ? [metadata[key]] : []) },
  });
}

/** The transient failure that carries `hint`, as the server sends it at time `failure`. */
function failureWith(hint: HintSpec, failure: number): unknown {
  switch (hint.kind) {
    case 'none':
      return systemError('ECONNRESET');
    case 'seconds':
    case 'garbage':
      return new HttpResponseError({ status: 503, headers: { 'retry-after': hint.text } });
    case 'date':
      return new HttpResponseError({
        status: 429,
        headers: { 'retry-after': new Date(retryAfterDate(hint.offset, failure)).toUTCString() },
      });
    case 'pushback':
      return grpcError(14, { 'grpc-retry-pushback-ms': hint.text });
    case 'retry-after-error':
      return retryAfter(systemError('ECONNRESET'), hint.delay);
  }
}

/** What the server asked for, read by RFC 9110 and gRFC A6, independently of the code under test. */
type Asked =
  { readonly kind: 'wait'; readonly ms: number; readonly pushback: boolean } | { readonly kind: 'stop' } | undefined;

const DIGITS = /^\d+$/;

function askedBy(hint: HintSpec, failure: number): Asked {
  switch (hint.kind) {
    case 'none':
    case 'garbage':
      return undefined;
    case 'seconds':
      return { kind: 'wait', ms: Number(hint.text) * 1000, pushback: false };
    case 'date':
      return { kind: 'wait', ms: Math.max(0, retryAfterDate(hint.offset, failure) - failure), pushback: false };
    case 'pushback':
      return DIGITS.test(hint.text) ? { kind: 'wait', ms: Number(hint.text), pushback: true } : { kind: 'stop' };
    case 'retry-after-error':
      return { kind: 'wait', ms: hint.delay, pushback: false };
  }
}

/** A hint of `ms` under `ceiling`: a floor of min(ms, ceiling), stretched to at most min(1.2 ms, ceiling). */
function bounded(ms: number, ceiling: number): HintBounds | undefined {
  const capped = Math.min(ms, MAX_DELAY_MS);
  return capped > 0 ? { atLeast: Math.min(capped, ceiling), atMost: Math.min(capped * 1.2, ceiling) } : undefined;
}

type FailureFacts = Pick<AttemptRecord, 'hint' | 'restartsBackoff' | 'final'>;

/** retry(), retryBackoff(): a pushback that says "stop" ends the retrying; after one that waits, the policy starts afresh. */
function retryFacts(hint: HintSpec, failure: number, ceiling: number): FailureFacts {
  const asked = askedBy(hint, failure);
  if (asked === undefined) return {};
  if (asked.kind === 'stop') return { final: 'the server pushed back: do not retry (gRFC A6)' };
  const bounds = bounded(asked.ms, ceiling);
  return { ...(bounds === undefined ? {} : { hint: bounds }), ...(asked.pushback ? { restartsBackoff: true } : {}) };
}

/**
 * failover(): a "stop" pushback asks for nothing more than a provider's own backoff, or for a wait
 * bounded by the ceiling; after a pushback that waits, the provider's policy may start afresh or go on.
 */
function failoverFacts(hint: HintSpec, failure: number, ceiling: number): FailureFacts {
  const asked = askedBy(hint, failure);
  if (asked === undefined) return {};
  if (asked.kind === 'stop') return { hint: { atLeast: 0, atMost: ceiling } };
  const bounds = bounded(asked.ms, ceiling);
  return {
    ...(bounds === undefined ? {} : { hint: bounds }),
    ...(asked.pushback ? { restartsBackoff: 'either' } : {}),
  };
}

/**
 * The BullMQ strategy: a "stop" pushback fails the job; any other hint is a floor (no restart: the
 * schedule follows the attempt number), stretched by at most the shared hint rule's spread.
 */
function jobFacts(hint: HintSpec, failure: number, ceiling: number): FailureFacts {
  const asked = askedBy(hint, failure);
  if (asked === undefined) return {};
  if (asked.kind === 'stop') return { final: 'the server pushed back: do not retry (gRFC A6)' };
  const bounds = bounded(asked.ms, ceiling);
  return bounds === undefined ? {} : { hint: bounds };
}

// ---------------------------------------------------------------------------------------------
// Scripts and the clock
// ---------------------------------------------------------------------------------------------

/** One scripted attempt: how long it runs, how it ends, the hint on its failure. */
interface Step {
  readonly duration: number;
  /** `value-then-fail`: a stream that delivers at once, then fails after `duration`. */
  readonly end: 'ok' | 'fail' | 'value-then-fail';
  readonly hint: HintSpec;
}

const duration = (instant: boolean): fc.Arbitrary<number> =>
  instant
    ? fc.constant(0)
    : fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 6000 }));

/** What a script holds: attempts of any duration or instant ones; server hints or none. */
interface ScriptKind {
  readonly instant: boolean;
  readonly hints: boolean;
}

/** The three kinds of script each component is driven with: each isolates one part of the invariant. */
const KINDS = {
  /** Waits from each attempt's start: attempts that take time, no hints. */
  fromStart: { instant: false, hints: false },
  /** Server hints alone: instant failures, so that start and failure coincide. */
  hints: { instant: true, hints: true },
  /** Everything at once. */
  all: { instant: false, hints: true },
} as const satisfies Record<string, ScriptKind>;

const step = (
  options: ScriptKind & {
    readonly streams?: boolean;
    readonly retryAfterError?: boolean;
  },
): fc.Arbitrary<Step> =>
  fc.record({
    duration: duration(options.instant),
    end: fc.oneof(
      { weight: 1, arbitrary: fc.constant('ok' as const) },
      { weight: 5, arbitrary: fc.constant('fail' as const) },
      ...(options.streams === true ? [{ weight: 1, arbitrary: fc.constant('value-then-fail' as const) }] : []),
    ),
    hint: options.hints ? hintSpec(options.retryAfterError === true) : fc.constant<HintSpec>({ kind: 'none' }),
  });

const OK: Step = { duration: 0, end: 'ok', hint: { kind: 'none' } };
const FAIL: Step = { duration: 0, end: 'fail', hint: { kind: 'none' } };

/** Lets every pending promise callback run; no virtual time passes. */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

type Settled<T> =
  | { readonly status: 'pending' }
  | { readonly status: 'fulfilled'; readonly value: T; readonly at: number }
  | { readonly status: 'rejected'; readonly error: unknown; readonly at: number };

/** Runs the clock timer by timer (letting promise callbacks run between) until `promise` settles. */
async function settle<T>(clock: VirtualClock, promise: Promise<T>, maxTimers = 400): Promise<Settled<T>> {
  let state: Settled<T> = { status: 'pending' };
  promise.then(
    (value) => (state = { status: 'fulfilled', value, at: clock.now() }),
    (error: unknown) => (state = { status: 'rejected', error, at: clock.now() }),
  );
  for (let i = 0; i < maxTimers; i++) {
    await drain();
    if (state.status !== 'pending') return state;
    const next = clock.scheduler.actions[0];
    if (next === undefined) break;
    // One timer at a time, with promise callbacks between, as an event loop runs them.
    await clock.advanceToAsync(next.delay);
  }
  await drain();
  return state;
}

/** Whether `error` is the contract's BackoffPolicyError (by name: it is new), with `thrown` as its cause when the policy threw. */
function expectPolicyError(error: unknown, thrown: unknown): void {
  expect((error as { name?: unknown } | undefined)?.name, `got ${String(error)}`).toBe('BackoffPolicyError');
  if (thrown !== undefined) expect((error as { cause?: unknown }).cause).toBe(thrown);
}

/** A promise that settles as `s` says after its duration on `clock` (at once for 0 ms), recording its end. */
function scripted<T>(clock: VirtualClock, s: Step, value: T, onEnd: (end: number) => unknown): Promise<T> {
  const finish = (resolve: (v: T) => void, reject: (e: unknown) => void): void => {
    const error = onEnd(clock.now());
    if (error === undefined) resolve(value);
    else reject(error);
  };
  if (s.duration === 0) return new Promise<T>(finish);
  return new Promise<T>((resolve, reject) => {
    clock.scheduler.schedule(() => {
      finish(resolve, reject);
    }, s.duration);
  });
}

const spacingOption = fc.constantFrom<Partial<AttemptSpacing> | undefined>(
  undefined,
  { burst: 1, interval: 50 },
  { burst: 3, interval: 250 },
  { interval: 0 },
);

function resolvedSpacing(option: Partial<AttemptSpacing> | undefined): AttemptSpacing {
  return { ...DEFAULT_ATTEMPT_SPACING, ...option };
}

const ceilingOption = fc.constantFrom<number | undefined>(undefined, 500, 2000, 10_000);

// ---------------------------------------------------------------------------------------------
// Broken policies: one driver per component, two properties each (the schedule, then the error)
// ---------------------------------------------------------------------------------------------

/** A broken-policy case: a policy broken at its `at`-th step, and the durations of the failing attempts. */
interface BrokenCase {
  readonly policy: PolicySpec;
  readonly at: number;
  readonly how: Breakage;
  readonly durations: readonly number[];
  readonly seed: number;
}

const brokenCase: fc.Arbitrary<BrokenCase> = fc.record({
  policy: policySpec(false),
  at: fc.integer({ min: 1, max: 3 }),
  how: breakage,
  durations: fc.array(duration(false), { minLength: 12, maxLength: 12 }),
  seed: fc.integer(),
});

/** What a run with a broken policy did: when the policy broke, the attempts (by event sequence), how the call ended. */
interface BrokenRun {
  readonly broke: Broke | undefined;
  readonly starts: readonly { readonly seq: number; readonly at: number }[];
  readonly settled: Settled<unknown>;
  readonly pendingTimers: number;
}

/** Asserts the schedule part of contract item 3: no attempt after the policy broke, the call rejected then, no timer left. */
function expectStoppedAtBreak(run: BrokenRun): void {
  const { broke } = run;
  expect(broke, 'the policy was asked for its broken step').toBeDefined();
  const after = run.starts.filter((s) => s.seq > (broke?.seq ?? Infinity));
  expect(
    after.length === 0
      ? 'none'
      : `${String(after.length)}, the first ${String((after[0]?.at ?? 0) - (broke?.at ?? 0))} ms after the policy broke`,
    'attempts after the policy broke',
  ).toBe('none');
  expect(run.settled.status, 'the call rejects').toBe('rejected');
  if (run.settled.status !== 'pending')
    expect(run.settled.at - (broke?.at ?? 0), 'rejected ms after the break').toBe(0);
  expect(run.pendingTimers, 'timers left').toBe(0);
}

/** Asserts the error part of contract item 3: a BackoffPolicyError, its cause what the policy threw. */
function expectPolicyErrorOf(run: BrokenRun): void {
  expect(run.settled.status).toBe('rejected');
  if (run.settled.status === 'rejected') expectPolicyError(run.settled.error, run.broke?.thrown);
}

/** A broken-policy run's bookkeeping: the event sequence, the break, the starts. */
function brokenBook(clock: VirtualClock, c: BrokenCase) {
  let seq = 0;
  const book = {
    broke: undefined as Broke | undefined,
    starts: [] as { seq: number; at: number }[],
    start: () => book.starts.push({ seq: seq++, at: clock.now() }),
    mark: () => 0,
    policy: brokenPolicy(makePolicy(c.policy), c.at, c.how, (thrown) => {
      book.broke ??= { at: clock.now(), seq: seq++, thrown, mark: book.mark() };
    }),
  };
  return book;
}

async function runBrokenRetry(c: BrokenCase): Promise<BrokenRun> {
  const clock = createVirtualClock(EPOCH);
  const book = brokenBook(clock, c);
  const promise = retry(
    ({ attempt }) => {
      book.start();
      return scripted(clock, { ...FAIL, duration: c.durations[attempt - 1] ?? 0 }, 'done', () =>
        systemError('ECONNRESET'),
      );
    },
    { backoff: book.policy, maxAttempts: c.at + 3, scheduler: clock.scheduler, random: seededRandom(c.seed) },
  );
  const settled = await settle(clock, promise);
  return { broke: book.broke, starts: book.starts, settled, pendingTimers: clock.pendingTimers() };
}

function runBrokenRetryBackoff(c: BrokenCase): BrokenRun {
  const clock = createVirtualClock(EPOCH);
  const book = brokenBook(clock, c);
  const source = defer(() => {
    const ms = c.durations[book.starts.length] ?? 0;
    book.start();
    const error = systemError('ECONNRESET');
    return ms === 0
      ? throwError(() => error)
      : timer(ms, clock.scheduler).pipe(mergeMap(() => throwError(() => error)));
  });
  let settled: Settled<unknown> = { status: 'pending' };
  source
    .pipe(
      retryBackoff({
        backoff: book.policy,
        maxAttempts: c.at + 3,
        scheduler: clock.scheduler,
        random: seededRandom(c.seed),
      }),
    )
    .subscribe({
      error: (error: unknown) => (settled = { status: 'rejected', error, at: clock.now() }),
      complete: () => (settled = { status: 'fulfilled', value: undefined, at: clock.now() }),
    });
  clock.runAll(2 ** 34);
  return { broke: book.broke, starts: book.starts, settled, pendingTimers: clock.pendingTimers() };
}

// ---------------------------------------------------------------------------------------------
// retry() and retryBackoff()
// ---------------------------------------------------------------------------------------------

interface RetryCase {
  readonly policy: PolicySpec;
  readonly script: readonly Step[];
  readonly maxAttempts: number;
  readonly maxRetryAfter: number | undefined;
  readonly attemptSpacing: Partial<AttemptSpacing> | undefined;
  readonly seed: number;
}

const retryCase = (kind: ScriptKind, streams = false): fc.Arbitrary<RetryCase> =>
  fc.record({
    policy: policySpec(true),
    script: fc.array(step({ ...kind, streams }), { minLength: 1, maxLength: 8 }),
    maxAttempts: fc.integer({ min: 1, max: 9 }),
    maxRetryAfter: ceilingOption,
    attemptSpacing: spacingOption,
    seed: fc.integer(),
  });

/** The retry options of a case, with the rules its schedule must keep. */
function retrySetup(c: RetryCase, clock: VirtualClock) {
  const options: RetryPolicyOptions = {
    maxAttempts: c.maxAttempts,
    ...(c.policy.kind === 'grpc-retry' ? grpcRetryOptions(c.policy) : {}),
    backoff: makePolicy(c.policy),
    scheduler: clock.scheduler,
    random: seededRandom(c.seed),
    ...(c.maxRetryAfter === undefined ? {} : { maxRetryAfter: c.maxRetryAfter }),
    ...(c.attemptSpacing === undefined ? {} : { attemptSpacing: c.attemptSpacing }),
  };
  const ceiling = c.maxRetryAfter ?? RETRY_MAX_RETRY_AFTER;
  const rules = policyRules(makePolicy(c.policy), { spacing: resolvedSpacing(c.attemptSpacing) });
  return { options, ceiling, rules };
}

async function runRetry(c: RetryCase) {
  const clock = createVirtualClock(EPOCH);
  const { options, ceiling, rules } = retrySetup(c, clock);
  const records: AttemptRecord[] = [];
  const promise = retry(({ attempt }) => {
    const s = c.script[attempt - 1] ?? OK;
    const start = clock.now();
    return scripted(clock, s, 'done', (end) => {
      if (s.end === 'ok') {
        records.push({ start, end, outcome: 'success' });
        return undefined;
      }
      records.push({ start, end, outcome: 'failure', ...retryFacts(s.hint, end, ceiling) });
      return failureWith(s.hint, end);
    });
  }, options);
  const settled = await settle(clock, promise);
  return { violations: checkRequestSchedule(records, rules), status: settled.status, timers: clock.pendingTimers() };
}

function runRetryBackoff(c: RetryCase, resetOnSuccess: boolean) {
  const clock = createVirtualClock(EPOCH);
  const { options, ceiling, rules } = retrySetup(c, clock);
  const records: AttemptRecord[] = [];
  let n = 0;
  const source: Observable<string> = defer(() => {
    const s = c.script[n++] ?? OK;
    const start = clock.now();
    const failure = (fresh: boolean) => () => {
      const end = clock.now();
      records.push({
        start,
        end,
        outcome: 'failure',
        ...(fresh ? { freshEpisode: true } : {}),
        ...retryFacts(s.hint, end, ceiling),
      });
      return throwError(() => failureWith(s.hint, end));
    };
    const after = (ms: number) => (ms === 0 ? of(0) : timer(ms, clock.scheduler));
    if (s.end === 'ok') {
      return after(s.duration).pipe(
        mergeMap(() => {
          records.push({ start, end: clock.now(), outcome: 'success' });
          return of('done');
        }),
      );
    }
    if (s.end === 'fail') return after(s.duration).pipe(mergeMap(failure(false)));
    // A stream that delivers at once and fails later: with resetOnSuccess, that failure opens a new episode.
    return concat(of('value'), after(s.duration).pipe(mergeMap(failure(resetOnSuccess))));
  });
  let status: Settled<unknown>['status'] = 'pending';
  source.pipe(retryBackoff({ ...options, resetOnSuccess })).subscribe({
    error: () => (status = 'rejected'),
    complete: () => (status = 'fulfilled'),
  });
  clock.runAll(2 ** 34);
  return { violations: checkRequestSchedule(records, rules), status, timers: clock.pendingTimers() };
}

/** The outcome every valid-policy property expects: no broken bound, a settled call, no timer left. */
function expectKept(run: { violations: unknown[]; status: string; timers: number }): void {
  expect(run.violations).toEqual([]);
  expect(run.status, 'the call settles').not.toBe('pending');
  expect(run.timers, 'timers left after the call settled').toBe(0);
}

/** The name of every component's hints property: the rule it checks is the same for all. */
const HINTS = 'server hints, on instant failures: never before min(hint, maxRetryAfter), never past the bounded hint';

/** A property's name and number of runs, for each kind of script. */
type PerKind = Readonly<Record<keyof typeof KINDS, readonly [name: string, numRuns: number]>>;

/**
 * One property per kind of script, in the order of KINDS and under the names given: every case
 * `caseOf(kind)` draws passes `check`.
 */
function itPerKind<C>(
  names: PerKind,
  caseOf: (kind: ScriptKind) => fc.Arbitrary<C>,
  check: (c: C) => void | Promise<void>,
): void {
  const rows = (Object.keys(KINDS) as (keyof typeof KINDS)[]).map((kind) => [...names[kind], KINDS[kind]] as const);
  it.each(rows)('%s', async (_name, numRuns, kind) => {
    await fc.assert(
      fc.asyncProperty(caseOf(kind), async (c) => {
        await check(c);
      }),
      { numRuns },
    );
  });
}

/**
 * The two properties of a broken policy, under the names given: the retrying stops at the failure
 * (expectStoppedAtBreak), and ends with a BackoffPolicyError (expectPolicyErrorOf).
 */
function itWhenBroken<C>(
  brokenCases: fc.Arbitrary<C>,
  run: (c: C) => BrokenRun | Promise<BrokenRun>,
  names: { readonly stops: readonly [string, number]; readonly rejects: readonly [string, number] },
): void {
  const rows = [
    [...names.stops, expectStoppedAtBreak],
    [...names.rejects, expectPolicyErrorOf],
  ] as const;
  it.each(rows)('%s', async (_name, numRuns, expectation) => {
    await fc.assert(
      fc.asyncProperty(brokenCases, async (c) => {
        expectation(await run(c));
      }),
      { numRuns },
    );
  });
}

describe('retry(): the schedule invariant', () => {
  itPerKind(
    {
      fromStart: ['waits from each attempt’s start: the policy’s k-th bounds and the floor; leaves no timer', 300],
      hints: [HINTS, 300],
      all: ['everything at once: long attempts, hints, successes', 300],
    },
    (kind) => retryCase(kind),
    async (c) => {
      expectKept(await runRetry(c));
    },
  );
  itWhenBroken(brokenCase, runBrokenRetry, {
    stops: ['a broken policy ends the call at the failure: no further attempt, never a 0 ms wait, no timer', 150],
    rejects: ['a broken policy rejects with a BackoffPolicyError whose cause is what the policy threw', 100],
  });
});

describe('retryBackoff(): the schedule invariant', () => {
  itPerKind(
    {
      fromStart: ['waits from each subscription’s start: the policy’s k-th bounds and the floor; leaves no timer', 300],
      hints: [HINTS, 300],
      all: ['everything at once: long subscriptions, hints, values', 300],
    },
    (kind) => fc.tuple(retryCase(kind, true), fc.boolean()),
    ([c, resetOnSuccess]) => {
      expectKept(runRetryBackoff(c, resetOnSuccess));
    },
  );
  itWhenBroken(brokenCase, runBrokenRetryBackoff, {
    stops: ['a broken policy ends the stream at the failure: no resubscription, never a 0 ms wait, no timer', 150],
    rejects: ['a broken policy errors the stream with a BackoffPolicyError whose cause is what the policy threw', 100],
  });
});

// ---------------------------------------------------------------------------------------------
// failover()
// ---------------------------------------------------------------------------------------------

interface ProviderCase {
  readonly policy: PolicySpec;
  readonly script: readonly Step[];
}

interface FailoverCase {
  readonly providers: readonly ProviderCase[];
  readonly hedge: { readonly delay: number; readonly copies: number } | undefined;
  readonly maxAttempts: number | undefined;
  readonly order: 'priority' | 'round-robin';
  readonly calls: number;
  readonly maxRetryAfter: number;
  readonly seed: number;
}

const failoverCase = (kind: ScriptKind): fc.Arbitrary<FailoverCase> =>
  fc.record({
    providers: fc.array(fc.record({ policy: policySpec(false), script: fc.array(step(kind), { maxLength: 6 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
    hedge: fc.option(fc.record({ delay: fc.integer({ min: 0, max: 300 }), copies: fc.integer({ min: 2, max: 3 }) }), {
      nil: undefined,
    }),
    maxAttempts: fc.constantFrom(undefined, 3, 8, Infinity),
    order: fc.constantFrom('priority' as const, 'round-robin' as const),
    calls: fc.integer({ min: 1, max: 4 }),
    maxRetryAfter: fc.constantFrom(500, 2000, 10_000),
    seed: fc.integer(),
  });

/**
 * failover()'s options for a case. `maxRetryAfter` is the ceiling every component that honours
 * server hints must have; failover() does not take one yet, so it gets retry()'s name for it.
 */
function failoverOptions(c: FailoverCase, clock: VirtualClock): FailoverOptions {
  const options = {
    scheduler: clock.scheduler,
    random: seededRandom(c.seed),
    order: c.order,
    maxRetryAfter: c.maxRetryAfter,
    ...(c.maxAttempts === undefined ? {} : { maxAttempts: c.maxAttempts }),
    ...(c.hedge === undefined ? {} : { hedgeDelay: c.hedge.delay, maxCopies: c.hedge.copies }),
  };
  return options;
}

/**
 * A provider that plays `script` (then `fallback`), honours its signal, and records every attempt.
 * An attempt whose signal was aborted is recorded as cut, whatever it did: failover() ignores a
 * result that arrives after it gave the attempt up.
 */
function scriptedProvider(
  clock: VirtualClock,
  name: string,
  script: readonly Step[],
  policy: BackoffPolicy,
  record: (r: ProviderAttemptRecord) => void,
  facts: (hint: HintSpec, failure: number) => FailureFacts,
  fallback: Step = OK,
): FailoverProvider<string, string> {
  let used = 0;
  return {
    name,
    breaker: false,
    backoff: policy,
    call: (_args, context) => {
      const s = script[used++] ?? fallback;
      const entry: { -readonly [K in keyof ProviderAttemptRecord]: ProviderAttemptRecord[K] } = {
        provider: name,
        start: clock.now(),
        end: clock.now(),
        outcome: 'cut',
      };
      let done = false;
      let pending: { unsubscribe(): void } | undefined;
      record(entry);
      context.signal.addEventListener(
        'abort',
        () => {
          pending?.unsubscribe();
          entry.outcome = 'cut';
          entry.end = clock.now();
          delete entry.hint;
          delete entry.restartsBackoff;
          delete entry.final;
        },
        { once: true },
      );
      const finish = (resolve: (v: string) => void, reject: (e: unknown) => void): void => {
        done = true;
        entry.end = clock.now();
        if (s.end === 'ok') {
          entry.outcome = 'success';
          resolve(name);
          return;
        }
        entry.outcome = 'failure';
        Object.assign(entry, facts(s.hint, entry.end));
        reject(failureWith(s.hint, entry.end));
      };
      if (s.duration === 0) return new Promise<string>(finish);
      return new Promise<string>((resolve, reject) => {
        pending = clock.scheduler.schedule(() => {
          finish(resolve, reject);
        }, s.duration);
        context.signal.addEventListener(
          'abort',
          () => {
            if (!done) reject(context.signal.reason);
          },
          { once: true },
        );
      });
    },
  };
}

/** Runs a case's calls one after the other, each starting when the one before settled. */
async function runFailover(c: FailoverCase) {
  const clock = createVirtualClock(EPOCH);
  const calls: { start: number; attempts: ProviderAttemptRecord[] }[] = [];
  const names = c.providers.map((_, i) => `p${String(i)}`);
  const providers = c.providers.map((p, i) =>
    scriptedProvider(
      clock,
      names[i] ?? '',
      p.script,
      makePolicy(p.policy),
      (r) => calls.at(-1)?.attempts.push(r),
      (hint, failure) => failoverFacts(hint, failure, c.maxRetryAfter),
    ),
  );
  const send = failover(providers, failoverOptions(c, clock));
  let status: Settled<string>['status'] = 'pending';
  let timers = 0;
  for (let i = 0; i < c.calls; i++) {
    calls.push({ start: clock.now(), attempts: [] });
    status = (await settle(clock, send('request'))).status;
    timers = Math.max(timers, clock.pendingTimers());
    if (status === 'pending') break;
  }
  send.dispose();
  const rules = new Map(c.providers.map((p, i) => [names[i] ?? '', policyRules(makePolicy(p.policy))]));
  const records: readonly CallRecord[] = calls;
  return { violations: checkFailoverSchedule(records, rules, DEFAULT_ATTEMPT_SPACING), status, timers };
}

async function runBrokenFailover(
  c: BrokenCase & { readonly others: readonly PolicySpec[]; readonly hedgeDelay: number | undefined },
): Promise<BrokenRun> {
  const clock = createVirtualClock(EPOCH);
  const book = brokenBook(clock, c);
  const script = c.durations.map((ms) => ({ ...FAIL, duration: ms }));
  // The broken provider goes last, so that its break comes after the others' attempts.
  const providers = [...c.others.map(makePolicy), book.policy].map((policy, i) =>
    scriptedProvider(clock, `p${String(i)}`, script, policy, book.start, () => ({}), FAIL),
  );
  const send = failover(providers, {
    scheduler: clock.scheduler,
    random: seededRandom(c.seed),
    maxAttempts: Infinity,
    ...(c.hedgeDelay === undefined ? {} : { hedgeDelay: c.hedgeDelay }),
  });
  const settled = await settle(clock, send('request'), 150);
  send.dispose();
  return { broke: book.broke, starts: book.starts, settled, pendingTimers: clock.pendingTimers() };
}

const brokenFailoverCase = fc.record({
  policy: policySpec(false),
  at: fc.integer({ min: 1, max: 3 }),
  how: breakage,
  durations: fc.array(duration(false), { minLength: 12, maxLength: 12 }),
  seed: fc.integer(),
  others: fc.array(policySpec(false), { maxLength: 2 }),
  hedgeDelay: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
});

describe('failover(): the schedule invariant, per provider', () => {
  itPerKind(
    {
      fromStart: [
        'each provider waits from its own last start, and an idle call for the soonest one; no timer left',
        400,
      ],
      hints: [HINTS, 350],
      all: ['everything at once: 1–4 providers, hedging off and on, long attempts, hints, several calls', 350],
    },
    (kind) => failoverCase(kind),
    async (c) => {
      expectKept(await runFailover(c));
    },
  );
  itWhenBroken(brokenFailoverCase, runBrokenFailover, {
    stops: ['a provider’s broken policy ends the call at the failure: no further attempt, never a 0 ms wait', 150],
    rejects: [
      'a provider’s broken policy rejects the call with a BackoffPolicyError whose cause is what the policy threw',
      100,
    ],
  });
});

// ---------------------------------------------------------------------------------------------
// circuitBreaker() probes
// ---------------------------------------------------------------------------------------------

type BreakSpec =
  { readonly kind: 'number'; readonly ms: number } | { readonly kind: 'policy'; readonly policy: PolicySpec };

const breakSpec: fc.Arbitrary<BreakSpec> = fc.oneof(
  fc.record({ kind: fc.constant('number' as const), ms: fc.integer({ min: 0, max: 5000 }) }),
  fc.record({ kind: fc.constant('policy' as const), policy: policySpec(false) }),
);

type Breaker = ReturnType<typeof circuitBreaker>;

/** Runs `script` through `breaker`, one call at a time; while it is open, waits for the timer that ends the break, then probes. */
async function driveBreaker(clock: VirtualClock, breaker: Breaker, script: readonly Step[]): Promise<void> {
  for (const s of script) {
    while (breaker.snapshot.state === 'open') {
      const next = clock.scheduler.actions[0];
      if (next === undefined) return;
      clock.advanceTo(next.delay);
    }
    const call = breaker.execute(() =>
      scripted(clock, s, 'done', () => (s.end === 'ok' ? undefined : systemError('ECONNRESET'))),
    );
    await settle(
      clock,
      call.catch(() => undefined),
    );
  }
}

/** Every state the breaker publishes, with the time. */
function stateLog(clock: VirtualClock, breaker: Breaker): { snapshot: BreakerSnapshot; at: number }[] {
  const log: { snapshot: BreakerSnapshot; at: number }[] = [];
  breaker.state$.subscribe((snapshot) => log.push({ snapshot, at: clock.now() }));
  return log;
}

/** A breaker whose break policy breaks at its `at`-th open, driven by failing calls until it did. */
async function runBrokenBreaker(c: BrokenCase & { readonly threshold: number }) {
  const clock = createVirtualClock(EPOCH);
  const book = brokenBook(clock, c);
  const breaker = circuitBreaker({
    consecutiveFailures: c.threshold,
    breakDuration: book.policy,
    scheduler: clock.scheduler,
    random: seededRandom(c.seed),
  });
  const log = stateLog(clock, breaker);
  book.mark = () => log.length;
  await driveBreaker(
    clock,
    breaker,
    c.durations.map((ms) => ({ ...FAIL, duration: ms })),
  );
  const broke = book.broke;
  // The open the broken step led to: the first one published after the policy was asked.
  const opened = log.findIndex((e, i) => i >= (broke?.mark ?? Infinity) && e.snapshot.state === 'open');
  const snapshot = log[opened]?.snapshot;
  clock.advanceBy(MAX_DELAY_MS);
  const later = log.slice(opened + 1).map((e) => `${e.snapshot.state} +${String(e.at - (broke?.at ?? 0))} ms`);
  const timers = clock.pendingTimers();
  breaker.dispose();
  return { broke, snapshot, later, timers };
}

const brokenBreakerCase = fc.record({
  policy: policySpec(false),
  at: fc.integer({ min: 1, max: 3 }),
  how: breakage,
  durations: fc.array(duration(false), { minLength: 12, maxLength: 12 }),
  seed: fc.integer(),
  threshold: fc.integer({ min: 1, max: 2 }),
});

describe('circuitBreaker(): the probe schedule', () => {
  it('from each open to its half-open probe: the break policy’s k-th bounds, reset by a successful probe', async () => {
    await fc.assert(
      fc.asyncProperty(
        breakSpec,
        fc.integer({ min: 1, max: 3 }),
        fc.array(step(KINDS.fromStart), { minLength: 1, maxLength: 14 }),
        fc.integer(),
        async (spec, threshold, script, seed) => {
          const clock = createVirtualClock(EPOCH);
          const policy = spec.kind === 'number' ? constantBackoff(spec.ms) : makePolicy(spec.policy);
          const breaker = circuitBreaker({
            consecutiveFailures: threshold,
            breakDuration: spec.kind === 'number' ? spec.ms : makePolicy(spec.policy),
            scheduler: clock.scheduler,
            random: seededRandom(seed),
          });
          const log = stateLog(clock, breaker);
          // The script, then successful probes until the breaker is closed again.
          await driveBreaker(clock, breaker, [...script, OK, OK, OK]);
          const rules = policyRules(policy);
          let k = 0;
          const problems: string[] = [];
          log.forEach(({ snapshot, at }, i) => {
            if (snapshot.state === 'closed') k = 0;
            if (snapshot.state !== 'open') return;
            k += 1;
            const [low, high] = [rules.shortest(k) - TOLERANCE_MS, rules.longest(k) + TOLERANCE_MS];
            const range = `[${String(low)}, ${String(high)}]`;
            const due = snapshot.until - snapshot.since;
            if (!(due >= low && due <= high)) {
              problems.push(`open ${String(k)} at +${String(at - EPOCH)}: until +${String(due)} ms, outside ${range}`);
            }
            const probe = log.slice(i + 1).find((e) => e.snapshot.state !== 'open');
            const wait = probe === undefined ? Infinity : probe.at - snapshot.since;
            if (probe?.snapshot.state !== 'half-open' || !(wait >= low && wait <= high)) {
              problems.push(
                `open ${String(k)} at +${String(at - EPOCH)}: half-open after ${String(wait)} ms, outside ${range}`,
              );
            }
          });
          expect(problems).toEqual([]);
          expect(breaker.snapshot.state).toBe('closed');
          expect(clock.pendingTimers(), 'timers left once closed').toBe(0);
          breaker.dispose();
        },
      ),
      { numRuns: 600 },
    );
  });

  it('a broken break policy opens the breaker for good: until Infinity, no probe, no timer', async () => {
    await fc.assert(
      fc.asyncProperty(brokenBreakerCase, async (c) => {
        const { broke, snapshot, later, timers } = await runBrokenBreaker(c);
        expect(broke, 'the break policy was asked for its broken step').toBeDefined();
        expect(snapshot?.state).toBe('open');
        expect(snapshot?.state === 'open' ? snapshot.until - (broke?.at ?? 0) : undefined, 'open for (ms)').toBe(
          Infinity,
        );
        expect(later, 'states after the policy broke').toEqual([]);
        expect(timers, 'timers left').toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('a broken break policy leaves a BackoffPolicyError as lastError, its cause what the policy threw', async () => {
    await fc.assert(
      fc.asyncProperty(brokenBreakerCase, async (c) => {
        const { broke, snapshot } = await runBrokenBreaker(c);
        expect(snapshot?.state).toBe('open');
        if (snapshot?.state === 'open') expectPolicyError(snapshot.lastError, broke?.thrown);
      }),
      { numRuns: 100 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The BullMQ strategy (pure)
// ---------------------------------------------------------------------------------------------

interface JobCase {
  readonly policy: PolicySpec;
  readonly script: readonly Step[];
  readonly attempts: number;
  readonly maxDelay: number | undefined;
  readonly maxRetryAfter: number | undefined;
  readonly seed: number;
}

const jobCase = (kind: ScriptKind): fc.Arbitrary<JobCase> =>
  fc.record({
    policy: policySpec(false),
    script: fc.array(step({ ...kind, retryAfterError: true }), { minLength: 1, maxLength: 8 }),
    attempts: fc.integer({ min: 2, max: 9 }),
    maxDelay: fc.constantFrom(undefined, 300, 2500),
    maxRetryAfter: ceilingOption,
    seed: fc.integer(),
  });

/** A job as BullMQ hands it to the strategy after attempt `n` failed (attemptsMade still n − 1). */
function jobAt(n: number, attempts: number, createdAt: number, processedOn: number): never {
  return {
    id: 'job-1',
    name: 'send',
    data: {},
    attemptsMade: n - 1,
    timestamp: createdAt,
    processedOn,
    opts: { attempts, backoff: { type: 'redialer' } },
  } as never;
}

/**
 * Runs one job through its attempts, as BullMQ does: the strategy is asked at each failure (while
 * attempts are left), and the next attempt starts when its delay is over.
 */
function runJob(c: JobCase, policy: BackoffPolicy = makePolicy(c.policy), script: readonly Step[] = c.script) {
  let now = EPOCH;
  const strategy = jobRetries({
    backoff: policy,
    random: seededRandom(c.seed),
    now: () => now,
    ...(c.maxDelay === undefined ? {} : { maxDelay: c.maxDelay }),
    ...(c.maxRetryAfter === undefined ? {} : { maxRetryAfter: c.maxRetryAfter }),
  }).backoffStrategy;
  const ceiling = c.maxRetryAfter ?? JOB_MAX_RETRY_AFTER;
  const records: AttemptRecord[] = [];
  const answers: unknown[] = [];
  const problems: string[] = [];
  for (let n = 1; n <= c.attempts; n++) {
    const s = script[n - 1] ?? OK;
    const start = now;
    now += s.duration;
    if (s.end === 'ok') {
      records.push({ start, end: now, outcome: 'success' });
      break;
    }
    const facts = jobFacts(s.hint, now, ceiling);
    records.push({ start, end: now, outcome: 'failure', ...facts });
    if (n === c.attempts) break;
    let answer: unknown;
    try {
      answer = strategy(n, 'redialer', failureWith(s.hint, now) as Error, jobAt(n, c.attempts, EPOCH, start));
    } catch (error) {
      answer = `threw ${String(error)}`;
    }
    answers.push(answer);
    if (answer === -1) {
      if (facts.final === undefined) problems.push(`attempt ${String(n)}: not retried (-1)`);
      break;
    }
    if (typeof answer !== 'number' || !Number.isFinite(answer) || answer < 0) {
      problems.push(`attempt ${String(n)}: the strategy answered ${String(answer)}`);
      break;
    }
    now += answer;
  }
  const rules = policyRules(makePolicy(c.policy), { cap: c.maxDelay ?? JOB_MAX_DELAY });
  return { violations: checkRequestSchedule(records, rules), problems, answers };
}

describe('the BullMQ strategy: the schedule invariant', () => {
  itPerKind(
    {
      fromStart: ['each delay starts the next attempt within the policy’s k-th bounds from processedOn', 450],
      hints: [HINTS, 450],
      all: ['everything at once: long attempts, hints, RetryAfterErrors', 450],
    },
    (kind) => jobCase(kind),
    (c) => {
      const { violations, problems } = runJob(c);
      expect(problems).toEqual([]);
      expect(violations).toEqual([]);
    },
  );

  it('a broken policy fails the job (−1) at once: never a throw, a 0 ms wait or a long one', () => {
    fc.assert(
      fc.property(jobCase(KINDS.fromStart), fc.integer({ min: 1, max: 4 }), breakage, (c, at, how) => {
        const policy = brokenPolicy(makePolicy(c.policy), at, how, () => undefined);
        const script = Array.from({ length: at + 2 }, (_, i) => ({ ...FAIL, duration: c.script[i]?.duration ?? 0 }));
        const { answers } = runJob({ ...c, attempts: at + 2 }, policy, script);
        expect(answers.slice(at - 1)).toEqual([-1]);
      }),
      { numRuns: 300 },
    );
  });
});
