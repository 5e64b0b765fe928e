import { describe, expect, it } from 'vitest';
import { failover, type FailoverProvider } from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { oneFailureBreaker } from '../support.js';

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('failover: the call runner', () => {
  it('a provider that throws at once is a transient failure; the next one is called in the same turn', async () => {
    const clock = createVirtualClock();
    const order: string[] = [];
    const a: FailoverProvider<string, string> = {
      name: 'a',
      breaker: false,
      call: () => {
        order.push('a');
        throw refused();
      },
    };
    const b: FailoverProvider<string, string> = {
      name: 'b',
      breaker: false,
      call: () => {
        order.push('b');
        return 'from b';
      },
    };
    const send = failover([a, b], { scheduler: clock.scheduler });
    const result = send('x');
    expect(order).toEqual(['a', 'b']);
    await expect(result).resolves.toBe('from b');
  });

  it('an abort raised while the call publishes settles it and gives the half-open probe back', async () => {
    const clock = createVirtualClock();
    const breaker = oneFailureBreaker(clock, { name: 'a', breakDuration: 1000 });
    // Open the breaker, then let it half-open: the next permit is its one probe.
    const opened = breaker.tryAcquire();
    opened?.failure(refused());
    clock.advanceBy(1000);
    expect(breaker.snapshot.state).toBe('half-open');
    const controller = new AbortController();
    let calls = 0;
    const send = failover<string, string>(
      [
        {
          name: 'a',
          breaker,
          call: () => {
            calls += 1;
            return new Promise<string>(() => undefined);
          },
        },
      ],
      { scheduler: clock.scheduler },
    );
    const sub = send.providers$.subscribe((list) => {
      if (list[0]?.inFlight === 1) controller.abort(new Error('caller gave up'));
    });
    await expect(send('x', { signal: controller.signal })).rejects.toThrow('caller gave up');
    sub.unsubscribe();
    expect(calls).toBe(1);
    // The probe went back: the breaker still admits one.
    expect(breaker.snapshot.state).toBe('half-open');
    expect(breaker.tryAcquire()).toBeDefined();
    send.dispose();
  });
});
