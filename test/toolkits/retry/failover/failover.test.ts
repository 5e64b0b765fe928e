import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type FailoverAttemptContext,
  type FailoverProvider,
  type ProviderSnapshot,
  failover,
  isFailoverError,
  RetryMetrics,
} from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock, type VirtualClock } from '../../../../src/testing/index.js';
import { constantBackoff, isBackoffPolicyError } from '../../../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, maxStartsIn } from '../../../../src/core/index.js';
import { BROKEN_DELAYS, brokenPolicy } from '../../../support/broken-policy.js';
import { oneFailureBreaker } from '../support.js';

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const httpError = (status: number, headers: Record<string, string> = {}): Error =>
  Object.assign(new Error(`HTTP ${String(status)}`), { status, headers });

/** Two retries with no wait; a third is never asked for (it would throw). */
const TWO_RETRIES_AT_ONCE = {
  first: () => ({
    delay: 0,
    next: () => ({
      delay: 0,
      next: () => {
        throw new Error('unused');
      },
    }),
  }),
};

/** Lets promise callbacks run (no time passes). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A provider answering after `ms` of virtual time with `outcome`, recording its calls. */
function provider(
  clock: VirtualClock,
  name: string,
  ms: number,
  outcome: () => unknown,
  extra: Partial<FailoverProvider<string, string>> = {},
) {
  const calls: FailoverAttemptContext[] = [];
  const spec: FailoverProvider<string, string> = {
    name,
    breaker: false,
    ...extra,
    call: (_args, context) => {
      calls.push(context);
      return new Promise<string>((resolve, reject) => {
        const timer = clock.scheduler.schedule(() => {
          const value = outcome();
          if (value instanceof Error) reject(value);
          else resolve(String(value));
        }, ms);
        context.signal.addEventListener('abort', () => {
          timer.unsubscribe();
          reject(context.signal.reason);
        });
      });
    },
  };
  return { spec, calls };
}

async function run<T>(
  clock: VirtualClock,
  promise: Promise<T>,
  until = 60_000,
): Promise<{ value?: T; error?: unknown }> {
  let result: { value?: T; error?: unknown } | undefined;
  promise.then(
    (value) => (result = { value }),
    (error: unknown) => (result = { error }),
  );
  for (let t = 0; t <= until && result === undefined; t += 10) {
    await flush();
    if (result !== undefined) break;
    clock.advanceBy(10);
  }
  await flush();
  if (result === undefined) throw new Error('the call did not settle');
  return result;
}

describe('failover on virtual time', () => {
  it('moves on at once after a transient failure; the failed provider waits out its backoff across calls', async () => {
    const clock = createVirtualClock();
    const a = provider(clock, 'a', 5, refused);
    const b = provider(clock, 'b', 20, () => 'from b');
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, random: () => 0.5 });
    let providers: readonly ProviderSnapshot[] = [];
    send.providers$.subscribe((list) => (providers = list));
    expect(await run(clock, send('x'))).toEqual({ value: 'from b' });
    expect(a.calls[0]?.attempt).toBe(1);
    expect(b.calls[0]?.attempt).toBe(2);
    expect(providers[0]).toMatchObject({ name: 'a', failures: 1, inFlight: 0 });
    expect(providers[0]?.nextEligibleAt).toBeGreaterThan(clock.now());
    // The next call skips a while it backs off.
    expect(await run(clock, send('y'))).toEqual({ value: 'from b' });
    expect(a.calls).toHaveLength(1);
    send.dispose();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a permanent failure stops at once with that error', async () => {
    const clock = createVirtualClock();
    const a = provider(clock, 'a', 5, () => httpError(400));
    const b = provider(clock, 'b', 5, () => 'b');
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler });
    const { error } = await run(clock, send('x'));
    expect((error as { status: number }).status).toBe(400);
    expect(b.calls).toHaveLength(0);
  });

  it('when all fail, the error says what each provider did; a 429 Retry-After is a floor for that provider', async () => {
    const clock = createVirtualClock();
    const down = provider(clock, 'down', 1, refused);
    const limited = provider(clock, 'limited', 1, () => httpError(429, { 'retry-after': '30' }));
    const slow = provider(clock, 'slow', 10_000, () => 'late');
    const send = failover([down.spec, limited.spec, slow.spec], {
      scheduler: clock.scheduler,
      attemptTimeout: 500,
      random: () => 0.5,
    });
    let providers: readonly ProviderSnapshot[] = [];
    send.providers$.subscribe((list) => (providers = list));
    const { error } = await run(clock, send('x'));
    expect(isFailoverError(error)).toBe(true);
    const e = error as Error & { reason: string; outcomes: { provider: string; outcome: string; attempts: number }[] };
    expect(e.reason).toBe('attempts');
    expect(e.outcomes.map((o) => [o.provider, o.outcome, o.attempts])).toEqual([
      ['down', 'failed', 1],
      ['limited', 'failed', 1],
      ['slow', 'timed-out', 1],
    ]);
    expect(e.message).toMatch(/down: failed \(connect ECONNREFUSED/);
    expect(e.message).toMatch(/limited: failed \(HTTP 429 .*the server asked for 30 s/);
    expect(e.message).toMatch(/slow: timed-out \(attempt 3 did not complete within 500 ms/);
    expect(slow.calls[0]?.signal.aborted).toBe(true);
    const limitedState = providers.find((p) => p.name === 'limited');
    expect(limitedState?.nextEligibleAt).toBeGreaterThanOrEqual(1 + 30_000);
    send.dispose();
  });

  it('waits for the soonest provider within the shared deadline, and gives up when none is due before it', async () => {
    const clock = createVirtualClock();
    let n = 0;
    const flaky = provider(clock, 'flaky', 1, () => (++n < 3 ? refused() : 'ok'));
    const send = failover([flaky.spec], {
      scheduler: clock.scheduler,
      random: () => 0.5,
      maxAttempts: 5,
      deadline: 10_000,
    });
    expect(await run(clock, send('x'))).toEqual({ value: 'ok' });
    expect(flaky.calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    const short = failover([provider(clock, 'down', 1, refused).spec], {
      scheduler: clock.scheduler,
      random: () => 0.5,
      maxAttempts: 5,
      deadline: 100,
    });
    const { error } = await run(clock, short('x'));
    expect((error as { reason: string }).reason).toBe('deadline');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('hedging: the next provider starts after hedgeDelay, the first answer wins, the others are aborted', async () => {
    const clock = createVirtualClock();
    const a = provider(clock, 'a', 1000, () => 'a');
    const b = provider(clock, 'b', 200, () => 'b');
    const c = provider(clock, 'c', 50, () => 'c');
    const send = failover([a.spec, b.spec, c.spec], { scheduler: clock.scheduler, hedgeDelay: 100, maxCopies: 2 });
    const { value } = await run(clock, send('x'));
    expect(value).toBe('b');
    expect(c.calls).toHaveLength(0); // two copies at most
    expect(a.calls[0]?.signal.aborted).toBe(true);
    expect((a.calls[0]?.signal.reason as Error).message).toMatch(/another provider answered first/);
  });

  it('round-robin starts each call one provider further; weighted prefers the healthy one', async () => {
    const clock = createVirtualClock();
    const a = provider(clock, 'a', 1, () => 'a');
    const b = provider(clock, 'b', 1, () => 'b');
    const rr = failover([a.spec, b.spec], { scheduler: clock.scheduler, order: 'round-robin' });
    const served = [];
    for (let i = 0; i < 4; i++) served.push((await run(clock, rr('x'))).value);
    expect(served).toEqual(['a', 'b', 'a', 'b']);

    let bad = true;
    const sick = provider(clock, 'sick', 1, () => (bad ? refused() : 'sick'), {
      backoff: TWO_RETRIES_AT_ONCE,
    });
    const well = provider(clock, 'well', 1, () => 'well');
    const weighted = failover([sick.spec, well.spec], {
      scheduler: clock.scheduler,
      order: 'weighted',
      random: () => 0.4,
    });
    // No history: equal health (1/2 each), 0.4 of the total picks 'sick' first.
    expect((await run(clock, weighted('x'))).value).toBe('well');
    expect(sick.calls).toHaveLength(1);
    bad = false;
    // sick: 1 failure, health 1/3; well: 1 success, 2/3. 0.4 of the total now picks 'well'.
    expect((await run(clock, weighted('x'))).value).toBe('well');
    expect(sick.calls).toHaveLength(1);
  });

  it('stickyKey keeps an operation on the provider that served it', async () => {
    const clock = createVirtualClock();
    let aDown = true;
    const a = provider(clock, 'a', 1, () => (aDown ? refused() : 'a'));
    const b = provider(clock, 'b', 1, () => 'b');
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, random: () => 0.5 });
    expect((await run(clock, send('x', { stickyKey: 'order-1' }))).value).toBe('b');
    aDown = false;
    clock.advanceBy(60_000); // a's backoff is over
    expect((await run(clock, send('x', { stickyKey: 'order-1' }))).value).toBe('b');
    expect((await run(clock, send('x'))).value).toBe('a');
  });

  it('skips a provider whose breaker is open, and says so', async () => {
    const clock = createVirtualClock();
    const breaker = oneFailureBreaker(clock, { name: 'a', breakDuration: 60_000 });
    const a = provider(clock, 'a', 1, refused, {
      breaker,
      backoff: TWO_RETRIES_AT_ONCE,
    });
    const b = provider(clock, 'b', 1, refused);
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, random: () => 0.5, maxAttempts: 3 });
    const { error } = await run(clock, send('x'));
    expect(breaker.snapshot.state).toBe('open');
    expect(a.calls).toHaveLength(1);
    expect((error as Error).message).toMatch(/b: failed/);
    breaker.dispose();
  });

  it('the caller can abort: attempts in flight are aborted and nothing counts against a breaker', async () => {
    const clock = createVirtualClock();
    const breaker = oneFailureBreaker(clock, { name: 'a' });
    const a = provider(clock, 'a', 1000, () => 'a', { breaker });
    const send = failover([a.spec], { scheduler: clock.scheduler });
    const controller = new AbortController();
    const pending = run(clock, send('x', { signal: controller.signal }));
    await flush();
    controller.abort(new Error('user left'));
    const { error } = await pending;
    expect((error as Error).message).toBe('user left');
    expect(a.calls[0]?.signal.aborted).toBe(true);
    expect(breaker.snapshot.state).toBe('closed');
    breaker.dispose();
  });

  it('counts attempts and outcomes into RetryMetrics', async () => {
    const clock = createVirtualClock();
    const metrics = new RetryMetrics({ scheduler: clock.scheduler });
    const send = failover([provider(clock, 'a', 1, refused).spec, provider(clock, 'b', 1, () => 'b').spec], {
      scheduler: clock.scheduler,
      metrics,
    });
    await run(clock, send('x'));
    expect(metrics.snapshot.total).toMatchObject({ attempts: 2, retries: 1, successes: 1 });
  });

  it("keeps to the floor on attempt starts, whatever the providers' backoffs", async () => {
    const clock = createVirtualClock();
    const zero = { first: () => ({ delay: 0, next: () => zero.first() }) };
    const a = provider(clock, 'a', 0, refused, { backoff: zero });
    const b = provider(clock, 'b', 0, refused, { backoff: zero });
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, maxAttempts: Infinity, deadline: 10_000 });
    const { error } = await run(clock, send('x'), 20_000);
    expect((error as { reason: string }).reason).toBe('deadline');
    const starts = a.calls.length + b.calls.length;
    expect(starts).toBeGreaterThan(10);
    expect(starts).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 10_000));
    expect(() => failover([a.spec], { attemptSpacing: { interval: -1 } })).toThrow(/attemptSpacing.interval/);
  });

  it('rejects bad input by name', () => {
    const ok = { name: 'a', call: () => 1 };
    expect(() => failover([])).toThrow(TypeError);
    expect(() => failover([ok, ok])).toThrow(/used twice/);
    expect(() => failover([{ name: 'a' } as never])).toThrow(/"call"/);
    expect(() => failover([ok], { hedgeDelay: -1 })).toThrow(/"hedgeDelay"/);
    expect(() => failover([ok], { hedgeDelay: 10, maxCopies: 0 })).toThrow(/"maxCopies"/);
    expect(() => failover([ok], { order: 'random' as never })).toThrow(/"order"/);
    expect(() => failover([ok])(undefined, { stickyKey: 5 as never })).toThrow(/"stickyKey"/);
  });
});

describe('failover hedging property (fast-check, virtual time)', () => {
  it('never runs more than maxCopies attempts at once, and every attempt but the winner is aborted or settled', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ms: fc.integer({ min: 1, max: 500 }), fails: fc.boolean() }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 4 }),
        async (specs, hedgeDelay, maxCopies) => {
          const clock = createVirtualClock();
          let live = 0;
          let peak = 0;
          const providers = specs.map((s, i): FailoverProvider<string, string> => ({
            name: `p${String(i)}`,
            breaker: false,
            call: (_args, { signal }) => {
              live += 1;
              peak = Math.max(peak, live);
              return new Promise<string>((resolve, reject) => {
                let ended = false;
                const end = (): boolean => {
                  if (ended) return false;
                  ended = true;
                  live -= 1;
                  return true;
                };
                const timer = clock.scheduler.schedule(() => {
                  if (!end()) return;
                  if (s.fails) reject(refused());
                  else resolve(`p${String(i)}`);
                }, s.ms);
                signal.addEventListener('abort', () => {
                  timer.unsubscribe();
                  if (end()) reject(signal.reason);
                });
              });
            },
          }));
          const send = failover(providers, { scheduler: clock.scheduler, hedgeDelay, maxCopies });
          await run(clock, send('x'), 10_000);
          expect(peak).toBeLessThanOrEqual(maxCopies);
          expect(live).toBe(0);
          send.dispose();
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('failover() follows the one backoff step and hint rule', () => {
  const latest = (send: { providers$: { subscribe(fn: (p: readonly ProviderSnapshot[]) => void): unknown } }) => {
    let seen: readonly ProviderSnapshot[] = [];
    send.providers$.subscribe((p) => (seen = p));
    return () => seen;
  };

  it('measures a provider’s wait from its attempt’s start: a slow failure eats into it', async () => {
    const clock = createVirtualClock();
    const a = provider(clock, 'a', 400, refused, { backoff: constantBackoff(1000) });
    const send = failover([a.spec], { scheduler: clock.scheduler, random: () => 0.5 });
    const providers = latest(send);
    const call = send('x').catch((e: unknown) => e);
    await clock.advanceByAsync(400);
    await call;
    expect(providers()[0]?.nextEligibleAt).toBe(1000); // started at 0: 1000 ms from the start, not 1400
  });

  it.each(BROKEN_DELAYS)(
    'a policy that %s rejects the call with a BackoffPolicyError: no 0 ms retry',
    async (_label, delayOf) => {
      const clock = createVirtualClock();
      const broken = brokenPolicy(delayOf);
      const a = provider(clock, 'a', 10, refused, { backoff: broken });
      const b = provider(clock, 'b', 10, refused);
      const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, maxAttempts: 10 });
      const call = send('x').catch((e: unknown) => e);
      await clock.advanceByAsync(10);
      const error = await call;
      expect(isBackoffPolicyError(error)).toBe(true);
      expect([a.calls.length, b.calls.length]).toEqual([1, 0]);
      await clock.advanceByAsync(60_000);
      expect([a.calls.length, b.calls.length]).toEqual([1, 0]);
      expect(clock.pendingTimers()).toBe(0);
    },
  );

  it('a hint of 1e30 ms (or a pushback that says stop) is cut to maxRetryAfter', async () => {
    const clock = createVirtualClock();
    const huge = `1${'0'.repeat(30)}`; // Retry-After in seconds: 1e30 s
    const a = provider(clock, 'a', 0, () => httpError(503, { 'retry-after': huge }));
    const b = provider(clock, 'b', 0, () =>
      Object.assign(new Error('UNAVAILABLE'), { code: 14, metadata: { 'grpc-retry-pushback-ms': '-1' } }),
    );
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, random: () => 0, maxRetryAfter: 20_000 });
    const providers = latest(send);
    const { error } = await run(clock, send('x'));
    expect(isFailoverError(error)).toBe(true);
    // `run` steps the clock 10 ms at a time: a failed at 10, b at 20; each waits the ceiling from then.
    expect(providers().map((p) => p.nextEligibleAt)).toEqual([20_010, 20_020]);
    expect((error as Error).message).toMatch(/the server asked for \d+ h \d+ min \(cut to maxRetryAfter, 20 s\)/);
    expect(() => failover([a.spec], { maxRetryAfter: -1 })).toThrow(/option "maxRetryAfter" must be/);
    send.dispose();
  });
});
