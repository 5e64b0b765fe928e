/**
 * circuitBreaker() as the runner of decide(): what it does with the effects around re-entrant
 * callers and after dispose(), on virtual time.
 */
import { describe, expect, it } from 'vitest';
import { type BreakerPermit, circuitBreaker, memoryBreakerStore } from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';

describe('circuitBreaker runs the effects of decide()', () => {
  it('a state$ subscriber that takes the probe when the break ends has it; the caller that ended the break is refused', () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({ consecutiveFailures: 1, breakDuration: 100, scheduler: clock.scheduler });
    breaker.tryAcquire()?.failure(new Error('boom'));
    let taken: BreakerPermit | undefined;
    breaker.state$.subscribe((s) => {
      if (s.state === 'half-open') taken = breaker.tryAcquire();
    });
    clock.advanceBy(100); // the timer ends the break; the subscriber takes the probe
    expect(taken?.probe).toBe(true);
    expect(breaker.tryAcquire()).toBeUndefined();
    taken?.success();
    expect(breaker.snapshot.state).toBe('closed');
    breaker.dispose();
  });

  it('a store listener sees the state already committed when the breaker shares a decision', () => {
    const clock = createVirtualClock();
    const store = memoryBreakerStore();
    const breaker = circuitBreaker({ consecutiveFailures: 1, breakDuration: 100, scheduler: clock.scheduler, store });
    const seen: string[] = [];
    store.subscribe((s) => {
      seen.push(`${s.state}/${breaker.snapshot.state}`);
    });
    breaker.tryAcquire()?.failure(new Error('boom'));
    expect(seen).toEqual(['open/open']);
    breaker.reset();
    expect(seen).toEqual(['open/open', 'closed/closed']);
    breaker.dispose();
  });

  it('a permit settled after dispose() arms no timer and publishes nothing on state$', () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({ consecutiveFailures: 1, breakDuration: 100, scheduler: clock.scheduler });
    const permit = breaker.tryAcquire();
    let emitted = 0;
    breaker.state$.subscribe(() => (emitted += 1));
    breaker.dispose();
    permit?.failure(new Error('boom'));
    expect(clock.pendingTimers()).toBe(0);
    expect(emitted).toBe(1); // the replayed closed state only
    expect(breaker.tryAcquire()).toBeUndefined();
  });
});
