/** The pure job-retry decision and the strategy built on it: no Redis, no clock. */
import { describe, expect, it } from 'vitest';
import {
  constantBackoff,
  exponentialBackoff,
  grpcBackoff,
  isBackoffPolicyError,
  permanent,
  retryAfter,
} from '../../../src/index.js';
import {
  type JobAttemptFacts,
  type JobRetryPolicy,
  bullmqBackoff,
  decideJobRetry,
  jobRetries,
  nthBackoff,
  throttleQueue,
  classifyJobError,
} from '../../../src/toolkits/bullmq/index.js';
import { HttpResponseError, classify, tokenBucketBudget } from '../../../src/toolkits/retry/index.js';
import { BROKEN_DELAYS, brokenPolicy } from '../../support/broken-policy.js';

const http = (status: number, headers: Record<string, string> = {}) =>
  new HttpResponseError({ status, headers: new Headers(headers) });
const policy: JobRetryPolicy = {
  backoff: exponentialBackoff({ initialDelay: 100, multiplier: 2, jitter: 'none', maxDelay: 1e9 }),
  maxDelay: 1000,
  classify,
  serverHints: true,
  maxRetryAfter: 5000,
  totalTimeout: Infinity,
  random: () => 0.5,
};
const job = (attempt: number, extra: Partial<JobAttemptFacts> = {}): JobAttemptFacts => ({
  attempt,
  maxAttempts: 20,
  createdAt: 0,
  idempotency: 'idempotent',
  precondition: false,
  ...extra,
});
const decide = (error: unknown, facts: JobAttemptFacts, p: Partial<JobRetryPolicy> = {}, budgetAllows = true) =>
  decideJobRetry(error, classifyJobError(error, classify), facts, { ...policy, ...p }, { now: 1000, budgetAllows });

describe('decideJobRetry', () => {
  it('waits step n of the policy after attempt n, capped at maxDelay', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((n) => decide(http(503), job(n)));
    expect(delays.map((d) => (d.type === 'retry' ? d.delay : d.type))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('takes Retry-After as a floor under the backoff, never as a replacement', () => {
    // Hint above the step: the hint, spread upwards by up to 20 % (random 0.5: +10 %).
    expect(decide(http(503, { 'retry-after': '2' }), job(1))).toMatchObject({
      type: 'retry',
      delay: 2200,
      source: 'retry-after',
    });
    // Hint below the step: the step.
    expect(decide(http(429, { 'retry-after': '0' }), job(4))).toMatchObject({
      type: 'retry',
      delay: 800,
      source: 'backoff',
    });
    // Cut to maxRetryAfter: the spread never passes the ceiling.
    expect(decide(http(503, { 'retry-after': '3600' }), job(1))).toMatchObject({ type: 'retry', delay: 5000 });
    // A core RetryAfterError is a hint too.
    expect(decide(retryAfter(new Error('busy'), 1500), job(1))).toMatchObject({
      type: 'retry',
      delay: 1650,
      source: 'retry-after',
    });
  });

  it('takes gRPC pushback as a floor, and a negative pushback as "do not retry"', () => {
    const grpc = (pushback: string) =>
      Object.assign(new Error('unavailable'), {
        code: 14,
        details: '',
        metadata: { get: (k: string) => (k === 'grpc-retry-pushback-ms' ? [pushback] : []) },
      });
    expect(decide(grpc('700'), job(1))).toMatchObject({ type: 'retry', delay: 770, source: 'pushback' }); // +10 %
    expect(decide(grpc('-1'), job(1))).toMatchObject({ type: 'give-up', reason: 'server-pushback' });
  });

  it('fails permanent errors at once: 400, permanent(), anything unknown', () => {
    expect(decide(http(400), job(1)).type).toBe('permanent');
    expect(decide(permanent(new Error('bad address')), job(1)).type).toBe('permanent');
    expect(decide(new Error('a bug'), job(1)).type).toBe('permanent');
  });

  it('follows the idempotency rules of redialer/retry', () => {
    const never = job(1, { idempotency: 'never' });
    expect(decide(http(500), never)).toMatchObject({ type: 'give-up', reason: 'not-idempotent' });
    expect(decide(http(503), never).type).toBe('retry'); // 503: not processed
    expect(decide(http(500), job(1, { idempotency: 'conditional', precondition: true })).type).toBe('retry');
    expect(decide(http(500), job(1, { idempotency: 'conditional' }))).toMatchObject({
      type: 'give-up',
      reason: 'not-idempotent',
    });
  });

  it('gives up at the attempt limit, past the deadline, and when the budget refuses', () => {
    expect(decide(http(503), job(20))).toMatchObject({ type: 'give-up', reason: 'attempts' });
    expect(decide(http(503), job(1), { totalTimeout: 500 })).toMatchObject({ type: 'give-up', reason: 'deadline' });
    expect(decide(http(503), job(1), { totalTimeout: 1050 })).toMatchObject({ type: 'give-up', reason: 'deadline' });
    expect(decide(http(503, { 'retry-after': '10' }), job(1), { totalTimeout: 5000 })).toMatchObject({
      type: 'give-up',
      reason: 'retry-after-beyond-deadline',
    });
    expect(decide(http(503), job(1), {}, false)).toMatchObject({ type: 'give-up', reason: 'throttled' });
  });

  it('replays any policy to its n-th step (gRPC backoff: exact first wait, then ×1.6 ± jitter)', () => {
    const grpc = grpcBackoff();
    expect([1, 2, 3].map((n) => nthBackoff(grpc, n, () => 0.5).delay)).toEqual([1000, 1600, 2560]);
    expect(nthBackoff(constantBackoff(5), 1e9, Math.random).delay).toBe(5);
  });
});

describe('the BullMQ strategy', () => {
  const minimalJob = (attemptsMade: number, opts: Record<string, unknown> = {}) =>
    ({
      id: '1',
      attemptsMade,
      timestamp: Date.now(),
      opts: { attempts: 10, backoff: { type: 'redialer' }, ...opts },
    }) as never;

  it('answers delays, and -1 for what must not be retried', async () => {
    const strategy = bullmqBackoff({
      backoff: exponentialBackoff({ initialDelay: 100, jitter: 'none' }),
      maxDelay: 300,
    });
    expect(await strategy(1, 'redialer', http(503), minimalJob(0))).toBe(100);
    expect(await strategy(3, 'redialer', http(503), minimalJob(2))).toBe(300);
    expect(await strategy(1, 'redialer', http(404), minimalJob(0))).toBe(-1);
    expect(await strategy(1, 'redialer', http(500), minimalJob(0))).toBe(100);
    const never = bullmqBackoff({ idempotency: () => 'never' });
    expect(await never(1, 'redialer', http(500), minimalJob(0))).toBe(-1);
  });

  it('the wrapped processor decides once, charges the budget, and hands the decision to the strategy', async () => {
    const budget = tokenBucketBudget({ maxTokens: 3, tokenRatio: 0.1 });
    const events: string[] = [];
    const retries = jobRetries({
      backoff: constantBackoff(50),
      now: () => 1000, // a fixed clock: the wait runs from the attempt's start, and no time passes here
      budget,
      metrics: { record: (e) => events.push(`${e.type}${e.type === 'give-up' ? `:${e.reason}` : ''}`) },
    });
    const error = http(503);
    const processor = retries.process(() => Promise.reject(error));
    const j = minimalJob(0);
    await expect(processor(j)).rejects.toBe(error);
    expect(await retries.backoffStrategy(1, 'redialer', error, j)).toBe(50);
    // The bucket (3 tokens, retries while > 1.5) is at 2, and the next failure takes it to 1: refused, the job fails.
    const second = http(503);
    await expect(retries.process(() => Promise.reject(second))(minimalJob(1))).rejects.toBe(second);
    expect(await retries.backoffStrategy(2, 'redialer', second, minimalJob(1))).toBe(-1);
    expect(events).toEqual(['attempt', 'retry', 'attempt', 'give-up:throttled']);
  });

  it('fails a job that does not use the strategy with an UnrecoverableError, so that BullMQ does not retry it', async () => {
    const retries = jobRetries();
    const error = http(400);
    const rejected = await retries
      .process(() => Promise.reject(error))(minimalJob(0, { backoff: { type: 'exponential', delay: 10 } }))
      .catch((e: unknown) => e);
    expect(rejected).toMatchObject({ name: 'UnrecoverableError', cause: error });
  });

  it('rejects bad options naming the option and the value', () => {
    expect(() => jobRetries({ maxDelay: -1 })).toThrow(/"maxDelay".*-1/);
    expect(() => jobRetries({ idempotency: 'sometimes' as never })).toThrow(/"idempotency".*"sometimes"/);
    expect(() => jobRetries({ budget: {} as never })).toThrow(/"budget"/);
    expect(() => jobRetries().jobOptions(0)).toThrow(/"attempts".*0/);
    expect(jobRetries().jobOptions(5)).toEqual({ attempts: 5, backoff: { type: 'redialer' } });
  });
});

describe('throttleQueue', () => {
  const queue = () => {
    const pauses: number[] = [];
    return { pauses, rateLimit: (ms: number) => Promise.resolve(void pauses.push(ms)) };
  };

  it('pauses the queue for a 429 with Retry-After and returns the RateLimitError to throw', async () => {
    const q = queue();
    const limited = await throttleQueue(q, http(429, { 'retry-after': '3' }));
    expect(q.pauses).toEqual([3000]);
    expect(limited?.delay).toBe(3000);
    expect(limited?.error.message).toBe('bullmq:rateLimitExceeded');
    // Cut to maxDelay; a RetryAfterError around a 429 counts too.
    await throttleQueue(q, http(429, { 'retry-after': '3600' }), { maxDelay: 10_000 });
    await throttleQueue(q, retryAfter(http(429), 1200));
    expect(q.pauses).toEqual([3000, 10_000, 1200]);
  });

  it('leaves everything else alone: other statuses, a 429 without Retry-After, unknown errors', async () => {
    const q = queue();
    expect(await throttleQueue(q, http(503, { 'retry-after': '3' }))).toBeUndefined();
    expect(await throttleQueue(q, http(429))).toBeUndefined();
    expect(await throttleQueue(q, new Error('boom'))).toBeUndefined();
    expect(await throttleQueue(q, http(503, { 'retry-after': '3' }), { statuses: [429, 503] })).toBeDefined();
    expect(q.pauses).toEqual([3000]);
    await expect(throttleQueue({} as never, http(429))).rejects.toThrow(/rateLimit/);
  });
});

describe('decideJobRetry follows the one backoff step and hint rule', () => {
  it('measures the wait from the attempt’s start (processedOn): a slow failure eats into it', () => {
    // Step 4 is 800 ms; the attempt started at 700 and failed at 1000 (now): 500 ms are left.
    expect(decide(http(503), job(4, { startedAt: 700 }))).toMatchObject({ type: 'retry', delay: 500 });
    expect(decide(http(503), job(4, { startedAt: 0 }))).toMatchObject({ type: 'retry', delay: 0 });
    // A hint still counts from the failure.
    expect(decide(http(503, { 'retry-after': '2' }), job(1, { startedAt: 0 }))).toMatchObject({ delay: 2200 });
  });

  it.each(BROKEN_DELAYS)('a policy that %s is a policy-error decision, never a 0 ms retry', (_label, delayOf) => {
    const broken = brokenPolicy(delayOf);
    const decision = decide(http(503), job(2), { backoff: broken });
    expect(decision.type).toBe('policy-error');
    expect(decision.type === 'policy-error' && isBackoffPolicyError(decision.error)).toBe(true);
    expect(() => nthBackoff(broken, 2, Math.random)).toThrow(/backoff policy/);
  });

  it('a RetryAfterError of 1e30 ms (another copy’s brand) is cut to maxRetryAfter', () => {
    const hostile = Object.assign(retryAfter(new Error('busy'), 0), { delay: 1e30 });
    const decision = decide(hostile, job(1), { random: () => 0 });
    expect(decision).toMatchObject({ type: 'retry', delay: 5000, source: 'retry-after' });
  });
});
