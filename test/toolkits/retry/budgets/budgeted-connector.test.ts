import { describe, expect, it } from 'vitest';
import { ConnectionManager, PermanentError } from '../../../../src/index.js';
import { budgetedConnector, isRetryThrottledError, tokenBucketBudget } from '../../../../src/toolkits/retry/index.js';
import { createFakeConnector, createVirtualClock } from '../../../../src/testing/index.js';

describe('budgetedConnector(): one retry budget shared by many connection managers', () => {
  it('refused retries are not sent; the managers back off and try again', () => {
    const clock = createVirtualClock();
    const budget = tokenBucketBudget({ maxTokens: 4, tokenRatio: 1 });
    const fakes = [0, 1].map(() =>
      createFakeConnector((a) => {
        a.fail(new Error('refused'));
      }),
    );
    const managers = fakes.map(
      (fake) =>
        new ConnectionManager({
          connector: budgetedConnector(fake.connector, budget),
          scheduler: clock.scheduler,
          random: () => 0.5,
        }),
    );
    const errors: unknown[] = [];
    for (const m of managers)
      m.state$.subscribe((s) => (s.state === 'TRANSIENT_FAILURE' ? errors.push(s.lastError) : undefined));
    for (const m of managers) m.connect();
    // Two first attempts fail: 4 -> 2 tokens, at the threshold: every later retry is refused unsent.
    clock.advanceBy(30_000);
    expect(fakes.map((f) => f.attempts.length)).toEqual([1, 1]);
    expect(budget.tokens).toBe(2);
    expect(errors.filter(isRetryThrottledError).length).toBeGreaterThan(2);
    expect(managers.every((m) => m.snapshot.state !== 'SHUTDOWN')).toBe(true);
    for (const m of managers) m.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('successes refill the bucket and let retries through again', () => {
    const clock = createVirtualClock();
    const budget = tokenBucketBudget({ maxTokens: 2, tokenRatio: 1 });
    budget.onTransientFailure(); // 1 token: retries refused
    let calls = 0;
    const fake = createFakeConnector((a) => {
      calls++;
      a.fail(new Error('refused'));
    });
    const manager = new ConnectionManager({
      connector: budgetedConnector(fake.connector, budget),
      scheduler: clock.scheduler,
      random: () => 0.5,
    });
    manager.connect(); // attempt 1 is not a retry: sent, fails -> 0 tokens
    clock.advanceBy(5_000);
    expect(calls).toBe(1);
    budget.onSuccess();
    budget.onSuccess(); // 2 tokens: above 1
    clock.advanceBy(20_000);
    expect(calls).toBe(2);
    manager.shutdown();
  });

  it('a PermanentError does not cost a token', () => {
    const budget = tokenBucketBudget({ maxTokens: 2, tokenRatio: 1 });
    const clock = createVirtualClock();
    const fake = createFakeConnector((a) => {
      a.fail(new PermanentError('denied'));
    });
    const manager = new ConnectionManager({
      connector: budgetedConnector(fake.connector, budget),
      scheduler: clock.scheduler,
    });
    manager.connect();
    expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    expect(budget.tokens).toBe(2);
  });
});
