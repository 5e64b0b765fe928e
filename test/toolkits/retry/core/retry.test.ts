import { describe, expect, it } from 'vitest';
import { constantBackoff, exponentialBackoff, type BackoffPolicy } from '../../../../src/index.js';
import {
  AttemptTimeoutError,
  HttpResponseError,
  type RetryError,
  isRetriesExhausted,
  isRetryError,
  ratioBudget,
  retry,
  tokenBucketBudget,
  type RetryAttemptContext,
  type RetryEvent,
  type RetryOptions,
} from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { drive, grpcError, rejection, systemError, track, flush } from '../support.js';

/** An operation scripted by a list of outcomes (an Error rejects, 'hang' never settles, anything else resolves). */
function scripted(outcomes: unknown[], clock: ReturnType<typeof createVirtualClock>) {
  const calls: { at: number; context: RetryAttemptContext }[] = [];
  const operation = (context: RetryAttemptContext): Promise<unknown> => {
    calls.push({ at: clock.now(), context });
    const outcome = outcomes[Math.min(calls.length - 1, outcomes.length - 1)];
    if (outcome === 'hang') return new Promise(() => undefined);
    return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
  };
  return { operation, calls, starts: () => calls.map((c) => c.at) };
}

function setup(outcomes: unknown[], options: RetryOptions = {}) {
  const clock = createVirtualClock();
  const op = scripted(outcomes, clock);
  const events: RetryEvent[] = [];
  const promise = retry(op.operation, {
    scheduler: clock.scheduler,
    random: () => 0.5,
    backoff: constantBackoff(1000),
    metrics: { record: (e) => events.push(e) },
    ...options,
  });
  return { clock, op, events, promise };
}

const reset = (): Error => systemError('ECONNRESET');
const refused = (): Error => systemError('ECONNREFUSED');

describe('retry(): attempts, backoff, give-up', () => {
  it('returns the first success and leaves no timer', async () => {
    const { clock, promise, op } = setup(['ok']);
    const outcome = await drive(clock, promise);
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok', at: 0 });
    expect(op.calls.map((c) => c.context.attempt)).toEqual([1]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('retries transient failures after the backoff, measured from each failure', async () => {
    const { clock, promise, op, events } = setup([reset(), reset(), 'ok'], {
      backoff: exponentialBackoff({ initialDelay: 100, multiplier: 2, jitter: 'none' }),
    });
    expect(await drive(clock, promise)).toMatchObject({ status: 'fulfilled', value: 'ok', at: 300 });
    expect(op.starts()).toEqual([0, 100, 300]);
    expect(events.map((e) => e.type)).toEqual(['attempt', 'retry', 'attempt', 'retry', 'attempt', 'success']);
  });

  it('the default backoff is exponential with full jitter: uniform(0, 1 s), then uniform(0, 2 s)', async () => {
    const clock = createVirtualClock();
    const op = scripted([reset(), reset(), 'ok'], clock);
    const draws = [0.25, 0.75];
    const promise = retry(op.operation, { scheduler: clock.scheduler, random: () => draws.shift() ?? 0 });
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 250, 250 + 1500]);
  });

  it('gives up at the attempt limit with a RetryError carrying the count and the last cause', async () => {
    const last = reset();
    const { clock, promise, op } = setup([reset(), reset(), last], { maxAttempts: 3 });
    const error = rejection(await drive(clock, promise));
    expect(isRetryError(error)).toBe(true);
    expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 3, cause: last });
    expect((error as Error).message).toMatch(
      /^gave up after 3 attempts: the attempt limit \(3\) was reached \(ECONNRESET: connection reset\); last failure: Error: ECONNRESET$/,
    );
    expect(isRetriesExhausted(error)).toBe(true);
    expect(op.calls).toHaveLength(3);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('rethrows a permanent failure at once, unchanged, marked as exhausted', async () => {
    const notFound = new HttpResponseError({ status: 404, headers: {} });
    const { clock, promise, op, events } = setup([notFound]);
    const outcome = await drive(clock, promise);
    expect(rejection(outcome)).toBe(notFound);
    expect(outcome).toMatchObject({ at: 0 });
    expect(isRetriesExhausted(notFound)).toBe(true);
    expect(op.calls).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'permanent', reason: 'HTTP 404 is not a retryable status' });
  });

  it('a synchronous throw is classified like a rejection', async () => {
    const clock = createVirtualClock();
    let n = 0;
    const promise = retry(
      () => {
        n++;
        if (n === 1) throw refused();
        return 'ok';
      },
      { scheduler: clock.scheduler, backoff: constantBackoff(10) },
    );
    expect(await drive(clock, promise)).toMatchObject({ status: 'fulfilled', value: 'ok', at: 10 });
  });

  it('maxAttempts: 1 never retries', async () => {
    const { clock, promise, op } = setup([reset()], { maxAttempts: 1 });
    expect(rejection(await drive(clock, promise))).toMatchObject({ reason: 'attempts', attempts: 1 });
    expect(op.calls).toHaveLength(1);
  });
});

describe('retry(): deadline and per-attempt timeout', () => {
  it('gives up at once when the next wait would end at or after the deadline', async () => {
    const { clock, promise, op } = setup([reset()], { totalTimeout: 2500, maxAttempts: 10 });
    const outcome = await drive(clock, promise);
    // Attempts at 0, 1000, 2000; the wait after the third would end at 3000 > 2500: give up at 2000.
    expect(op.starts()).toEqual([0, 1000, 2000]);
    expect(outcome).toMatchObject({ status: 'rejected', at: 2000 });
    expect(rejection(outcome)).toMatchObject({ reason: 'deadline', attempts: 3 });
  });

  it('the deadline cuts the attempt in flight and aborts its signal', async () => {
    const { clock, promise, op } = setup(['hang'], { totalTimeout: 750 });
    const outcome = await drive(clock, promise);
    expect(outcome).toMatchObject({ status: 'rejected', at: 750 });
    const error = rejection(outcome) as RetryError;
    expect(error.reason).toBe('deadline');
    expect(error.cause).toBeInstanceOf(AttemptTimeoutError);
    expect(op.calls[0]?.context.signal.aborted).toBe(true);
    expect(op.calls[0]?.context.deadline).toBe(750);
  });

  it('a per-attempt timeout cuts a hung attempt, aborts its signal with AttemptTimeoutError, and retries', async () => {
    const { clock, promise, op } = setup(['hang', 'hang', 'ok'], { attemptTimeout: 200 });
    const outcome = await drive(clock, promise);
    // Each wait runs from the attempt's start: the 200 ms the cut attempt took count towards it.
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok', at: 2 * 1000 });
    expect(op.starts()).toEqual([0, 1000, 2000]);
    const reason: unknown = op.calls[0]?.context.signal.reason;
    expect(reason).toBeInstanceOf(AttemptTimeoutError);
    expect(reason).toMatchObject({ attempt: 1, timeout: 200 });
    expect(op.calls[2]?.context.signal.aborted).toBe(false);
  });

  it('an attempt that settles after its timeout is ignored, without an unhandled rejection', async () => {
    const clock = createVirtualClock();
    const late: ((e: Error) => void)[] = [];
    let n = 0;
    const promise = retry(
      () => {
        n++;
        return n === 1 ? new Promise((_, reject) => late.push(reject)) : Promise.resolve('second');
      },
      { scheduler: clock.scheduler, attemptTimeout: 100, backoff: constantBackoff(0) },
    );
    const outcome = await drive(clock, promise);
    late[0]?.(new Error('too late'));
    await flush();
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'second' });
  });

  it('a timed-out attempt of a non-idempotent operation is not retried (it may have reached the server)', async () => {
    const { clock, promise, op } = setup(['hang', 'ok'], { attemptTimeout: 100, idempotency: 'never' });
    expect(rejection(await drive(clock, promise))).toMatchObject({ reason: 'not-idempotent', attempts: 1 });
    expect(op.calls).toHaveLength(1);
  });
});

describe('retry(): AbortSignal', () => {
  it('aborting during the wait rejects at once with the reason and leaves no timer', async () => {
    const controller = new AbortController();
    const { clock, promise, op } = setup([reset(), 'ok'], { signal: controller.signal });
    const box = track(promise, clock);
    await flush();
    expect(clock.pendingTimers()).toBe(1);
    clock.advanceBy(400);
    controller.abort(new Error('user left'));
    await flush();
    expect(box.state).toMatchObject({ status: 'rejected', at: 400, error: { message: 'user left' } });
    expect(clock.pendingTimers()).toBe(0);
    expect(op.calls).toHaveLength(1);
  });

  it('aborting during an attempt aborts the attempt with the same reason and rejects at once', async () => {
    const controller = new AbortController();
    const { clock, promise, op } = setup(['hang'], { signal: controller.signal, attemptTimeout: 5000 });
    const box = track(promise, clock);
    await flush();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await flush();
    expect(box.state).toMatchObject({ status: 'rejected', error: reason });
    expect(op.calls[0]?.context.signal.reason).toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an already aborted signal rejects without an attempt', async () => {
    const { clock, promise, op } = setup(['ok'], { signal: AbortSignal.abort('early') });
    expect(rejection(await drive(clock, promise))).toBe('early');
    expect(op.calls).toHaveLength(0);
  });
});

describe('retry(): Retry-After', () => {
  const unavailable = (retryAfter: string): HttpResponseError =>
    new HttpResponseError(new Response(null, { status: 503, headers: { 'Retry-After': retryAfter } }));

  it('waits at least what the server says, spread upwards by up to 20 % (random 0.5: +10 %), when longer than the backoff', async () => {
    const { clock, promise, op, events } = setup([unavailable('3'), 'ok']);
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 3300]);
    expect(events[1]).toMatchObject({ type: 'retry', delay: 3300, source: 'retry-after' });
  });

  it('a hint shorter than the backoff (0 included) leaves the backoff as it is: a floor, never a replacement', async () => {
    const { clock, promise, op, events } = setup([unavailable('0'), unavailable('0'), 'ok']);
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 1000, 2000]);
    expect(events[1]).toMatchObject({ type: 'retry', delay: 1000, source: 'backoff' });
  });

  it('an HTTP-date is measured against the scheduler clock; a past date (or a client clock ahead) leaves the backoff', async () => {
    const clock = createVirtualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const op = scripted(
      [unavailable('Thu, 01 Jan 2026 12:00:05 GMT'), unavailable('Thu, 01 Jan 2026 11:00:00 GMT'), 'ok'],
      clock,
    );
    const promise = retry(op.operation, { scheduler: clock.scheduler, backoff: constantBackoff(1000) });
    await drive(clock, promise);
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    // 5 s asked (spread: random is Math.random, so within [5000, 6000]); then a past date: the 1 s backoff.
    const [first, second, third] = op.starts().map((t) => t - t0);
    expect(first).toBe(0);
    expect(second).toBeGreaterThanOrEqual(5000);
    expect(second).toBeLessThanOrEqual(6000);
    expect((third ?? 0) - (second ?? 0)).toBe(1000);
  });

  it('an invalid value is ignored and the backoff applies', async () => {
    const { clock, promise, op } = setup([unavailable('in a while'), 'ok']);
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 1000]);
  });

  it('is clamped by maxRetryAfter (the spread never passes the ceiling, nor comes back sooner)', async () => {
    const { clock, promise, op } = setup([unavailable('3600'), 'ok'], { maxRetryAfter: 5000 });
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 5000]);
  });

  it('beyond the remaining deadline: gives up at once, saying so', async () => {
    const { clock, promise, op } = setup([unavailable('30'), 'ok'], { totalTimeout: 10_000 });
    const outcome = await drive(clock, promise);
    expect(outcome).toMatchObject({ status: 'rejected', at: 0 });
    const error = rejection(outcome) as RetryError;
    expect(error.reason).toBe('retry-after-beyond-deadline');
    expect(error.message).toContain(
      'the server asked to wait 30 s (Retry-After), beyond the 10 s left before the deadline',
    );
    expect(op.calls).toHaveLength(1);
  });

  it('serverHints: false ignores it', async () => {
    const { clock, promise, op } = setup([unavailable('3'), 'ok'], { serverHints: false });
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 1000]);
  });
});

describe('retry(): gRPC pushback', () => {
  const UNAVAILABLE = 14;
  const doubling: BackoffPolicy = exponentialBackoff({ initialDelay: 100, multiplier: 2, jitter: 'none' });

  it('waits the pushback (spread like Retry-After), then the backoff starts again from its first step', async () => {
    const outcomes = [
      grpcError(UNAVAILABLE),
      grpcError(UNAVAILABLE),
      grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': '5000' }),
      grpcError(UNAVAILABLE),
      'ok',
    ];
    const { clock, promise, op } = setup(outcomes, { backoff: doubling, maxAttempts: 5 });
    await drive(clock, promise);
    // waits: 100, 200, pushback 5000 + 10 % (not 400), then 100 again (reset), not 800.
    expect(op.starts()).toEqual([0, 100, 300, 5800, 5900]);
  });

  it('is capped by maxRetryAfter: 2^31 ms of pushback waits at most a minute with the defaults', async () => {
    const { clock, promise, op, events } = setup([
      grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': '2147483648' }),
      'ok',
    ]);
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 60_000]);
    expect(events[1]).toMatchObject({ type: 'retry', delay: 60_000, source: 'pushback' });
  });

  it('a pushback of 0 does not undercut the backoff', async () => {
    const { clock, promise, op } = setup([grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': '0' }), 'ok']);
    await drive(clock, promise);
    expect(op.starts()).toEqual([0, 1000]);
  });

  it('a negative pushback: do not retry', async () => {
    const { clock, promise, op } = setup([grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': '-1' }), 'ok']);
    const error = rejection(await drive(clock, promise)) as RetryError;
    expect(error.reason).toBe('server-pushback');
    expect(error.message).toContain('grpc-retry-pushback-ms: "-1"');
    expect(op.calls).toHaveLength(1);
  });

  it('an unparseable pushback: do not retry', async () => {
    const { clock, promise } = setup([grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': 'soon' }), 'ok']);
    expect(rejection(await drive(clock, promise))).toMatchObject({ reason: 'server-pushback', attempts: 1 });
  });

  it('a pushback beyond the deadline gives up at once', async () => {
    const { clock, promise } = setup([grpcError(UNAVAILABLE, { 'grpc-retry-pushback-ms': '9000' })], {
      totalTimeout: 1000,
    });
    expect(rejection(await drive(clock, promise))).toMatchObject({ reason: 'retry-after-beyond-deadline' });
  });

  it('a pushback on a non-retryable status changes nothing: permanent', async () => {
    const denied = grpcError(7, { 'grpc-retry-pushback-ms': '10' });
    const { clock, promise } = setup([denied, 'ok']);
    expect(rejection(await drive(clock, promise))).toBe(denied);
  });
});

describe('retry(): idempotency', () => {
  it.each([
    ['never', false, refused(), 2],
    ['never', false, systemError('EAI_AGAIN'), 2],
    ['never', false, grpcError(14), 2],
    ['never', false, reset(), 1],
    ['never', false, grpcError(8), 1],
    ['never', false, grpcError(4), 1],
    ['never', false, new HttpResponseError({ status: 502, headers: {} }), 1],
    ['never', false, new HttpResponseError({ status: 503, headers: {} }), 2],
    ['conditional', false, reset(), 1],
    ['conditional', true, reset(), 2],
    ['idempotent', false, reset(), 2],
    ['idempotent', false, grpcError(10), 2],
  ] as const)('%s (precondition %s) after %s: %i attempt(s)', async (idempotency, precondition, failure, attempts) => {
    const { clock, promise, op } = setup([failure, 'ok'], { idempotency, precondition });
    const outcome = await drive(clock, promise);
    expect(op.calls).toHaveLength(attempts);
    if (attempts === 1)
      expect(rejection(outcome)).toMatchObject({ reason: 'not-idempotent', attempts: 1, cause: failure });
    else expect(outcome).toMatchObject({ status: 'fulfilled' });
  });
});

describe('retry(): no amplification', () => {
  it('an outer retry layer does not retry what an inner layer gave up on: 3 attempts, not 9', async () => {
    const clock = createVirtualClock();
    let calls = 0;
    const inner = (): Promise<never> =>
      retry(
        () => {
          calls++;
          return Promise.reject(reset());
        },
        { scheduler: clock.scheduler, backoff: constantBackoff(10), maxAttempts: 3 },
      );
    const outer = retry(inner, { scheduler: clock.scheduler, backoff: constantBackoff(10), maxAttempts: 3 });
    const error = rejection(await drive(clock, outer));
    expect(calls).toBe(3);
    expect(error).toMatchObject({ name: 'RetryError', attempts: 3 });
  });

  it('a token bucket shared by calls throttles retries (gRFC A6), and the throttled give-up says so', async () => {
    const budget = tokenBucketBudget({ maxTokens: 4, tokenRatio: 1 });
    const clock = createVirtualClock();
    const events: RetryEvent[] = [];
    const run = () =>
      retry(() => Promise.reject(reset()), {
        scheduler: clock.scheduler,
        backoff: constantBackoff(10),
        maxAttempts: 5,
        budget,
        metrics: { record: (e) => events.push(e) },
      });
    // 4 tokens, threshold 2: failure 1 -> 3 tokens (> 2, retry); failure 2 -> 2 tokens (not > 2): throttled.
    const first = rejection(await drive(clock, run()));
    expect(first).toMatchObject({ reason: 'throttled', attempts: 2 });
    expect(budget.tokens).toBe(2);
    // A second call shares the empty budget: it fails once and is not retried.
    const second = rejection(await drive(clock, run()));
    expect(second).toMatchObject({ reason: 'throttled', attempts: 1 });
    expect(budget.tokens).toBe(1);
    expect(events.filter((e) => e.type === 'give-up').map((e) => (e as { reason: string }).reason)).toEqual([
      'throttled',
      'throttled',
    ]);
  });

  it('a ratio budget allows retries up to its share of attempts', async () => {
    const clock = createVirtualClock();
    const budget = ratioBudget({ ratio: 0.5, minRetries: 0, window: 60_000, scheduler: clock.scheduler });
    // Earn a share: four successful calls.
    for (let i = 0; i < 4; i++)
      await drive(
        clock,
        retry(() => 'ok', { scheduler: clock.scheduler, budget }),
      );
    let calls = 0;
    const failing = retry(
      () => {
        calls++;
        return Promise.reject(reset());
      },
      { scheduler: clock.scheduler, budget, maxAttempts: 10, backoff: constantBackoff(1) },
    );
    expect(rejection(await drive(clock, failing))).toMatchObject({ reason: 'throttled' });
    // 5 first attempts; a retry is allowed while (retries + 1) <= 0.5 × (attempts + 1):
    // 1 <= 3, 2 <= 3.5, 3 <= 4, 4 <= 4.5, 5 <= 5 allowed; 6 <= 5.5 refused. 5 retries of 10 attempts.
    expect(calls).toBe(6);
    expect(budget.retryRatio).toBe(0.5);
  });
});

describe('retry(): options are checked before any attempt', () => {
  it.each([
    [{ maxAttempts: 0 }, /maxAttempts.*got 0/],
    [{ maxAttempts: 1.5 }, /maxAttempts/],
    [{ totalTimeout: -1 }, /totalTimeout.*-1/],
    [{ attemptTimeout: 0 }, /attemptTimeout.*got 0/],
    [{ attemptTimeout: {} }, /attemptTimeout/],
    [{ idempotency: 'sometimes' }, /idempotency.*"sometimes"/],
    [{ backoff: 5 }, /backoff.*first\(\)/],
    [{ budget: {} }, /budget.*canRetry/],
    [{ signal: 'x' }, /signal/],
    [{ maxRetryAfter: Number.NaN }, /maxRetryAfter.*NaN/],
  ])('%j', (options, message) => {
    expect(() => retry(() => 1, options as RetryOptions)).toThrow(message);
  });

  it('a missing operation', () => {
    expect(() => retry(undefined as never)).toThrow(/operation function/);
  });
});

describe('retry(): a broken adaptive timeout', () => {
  it('rejects with a RangeError naming the bad value, leaving no listener on the signal', async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    let added = 0;
    const signal = controller.signal;
    const original = signal.addEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      original(...args);
    }) as AbortSignal['addEventListener'];
    const promise = retry(() => 'never called', {
      scheduler: clock.scheduler,
      signal,
      attemptTimeout: { current: () => Number.NaN, onSuccess: () => undefined, onTimeout: () => undefined },
    });
    expect(rejection(await drive(clock, promise))).toMatchObject({
      name: 'RangeError',
      message: expect.stringContaining('NaN') as unknown,
    });
    expect(added).toBe(0);
  });
});

describe('retry(): nothing left behind', () => {
  /** An AbortSignal that counts its live listeners. */
  function countingSignal(): { signal: AbortSignal; live: () => number } {
    const controller = new AbortController();
    const { signal } = controller;
    let live = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      live++;
      add(...args);
    }) as AbortSignal['addEventListener'];
    signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
      live--;
      remove(...args);
    }) as AbortSignal['removeEventListener'];
    return { signal, live: () => live };
  }

  it.each([
    ['success after retries', [reset(), reset(), 'ok']],
    ['give-up at the limit', [reset()]],
    ['permanent failure', [new HttpResponseError({ status: 403, headers: {} })]],
    ['attempt timeouts', ['hang', 'hang', 'hang']],
  ])('%s: no listener on the caller signal, no timer', async (_what, outcomes) => {
    const { signal, live } = countingSignal();
    const { clock, promise } = setup(outcomes, { signal, attemptTimeout: 50 });
    const outcome = await drive(clock, promise);
    expect(outcome.status).not.toBe('pending');
    expect(live()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a random source that breaks the backoff rejects with a BackoffPolicyError, not silently', async () => {
    const { clock, promise } = setup([reset(), 'ok'], { random: () => Number.NaN, backoff: exponentialBackoff() });
    const error = rejection(await drive(clock, promise));
    expect(error).toMatchObject({
      name: 'BackoffPolicyError',
      message: expect.stringContaining('"random"') as unknown,
    });
    expect((error as Error).cause).toMatchObject({ name: 'RangeError' });
    expect(clock.pendingTimers()).toBe(0);
  });
});
