import fc from 'fast-check';
import { config } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { exponentialBackoff, isBackoffPolicyError } from '../../../../src/index.js';
import {
  type BreakerPermit,
  type BreakerSnapshot,
  type BreakerTraceEntry,
  circuitBreaker,
  isBrokenCircuitError,
  memoryBreakerStore,
} from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { BROKEN_DELAYS, brokenPolicy } from '../../../support/broken-policy.js';
import { oneFailureBreaker } from '../support.js';

function record(states: { subscribe(fn: (s: BreakerSnapshot) => void): unknown }): BreakerSnapshot[] {
  const seen: BreakerSnapshot[] = [];
  states.subscribe((s) => seen.push(s));
  return seen;
}

const fail = (permit: BreakerPermit | undefined): void => {
  permit?.failure(new Error('boom'));
};

describe('circuitBreaker on virtual time', () => {
  it('consecutive mode: opens after n failures in a row, refuses calls, half-opens exactly at until, one probe closes it', async () => {
    const clock = createVirtualClock(1000);
    const breaker = circuitBreaker({
      name: 'mail',
      consecutiveFailures: 3,
      breakDuration: 2000,
      scheduler: clock.scheduler,
    });
    const seen = record(breaker.state$);
    fail(breaker.tryAcquire());
    fail(breaker.tryAcquire());
    breaker.tryAcquire()?.success(); // resets the run
    fail(breaker.tryAcquire());
    fail(breaker.tryAcquire());
    expect(breaker.snapshot.state).toBe('closed');
    fail(breaker.tryAcquire());
    expect(breaker.snapshot).toMatchObject({ state: 'open', since: 1000, until: 3000, opens: 1 });
    let ran = false;
    const refused = await breaker
      .execute(() => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(ran).toBe(false);
    expect(isBrokenCircuitError(refused)).toBe(true);
    expect(refused).toMatchObject({ breaker: 'mail', until: 3000 });
    // Refused at 1000: the message says what is left of the break, not the clock reading it ends at.
    expect((refused as Error).message).toBe('circuit breaker "mail" is open for another 2 s; the call was not run');
    clock.advanceTo(2999);
    expect(seen.at(-1)?.state).toBe('open');
    clock.advanceTo(3000);
    expect(seen.at(-1)).toMatchObject({ state: 'half-open', since: 3000 });
    const probe = breaker.tryAcquire();
    expect(probe?.probe).toBe(true);
    expect(breaker.tryAcquire()).toBeUndefined(); // one probe at a time
    probe?.success();
    expect(breaker.snapshot).toMatchObject({ state: 'closed', opens: 0 });
    expect(seen.map((s) => s.state)).toEqual(['closed', 'open', 'half-open', 'closed']);
    breaker.dispose();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ratio mode: Polly defaults — 10 % failures over 30 s once 100 calls were seen', () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({ scheduler: clock.scheduler });
    for (let i = 0; i < 50; i++) fail(breaker.tryAcquire()); // 100 % failures, but only 50 calls
    expect(breaker.snapshot.state).toBe('closed');
    clock.advanceBy(31_000); // those slide out of the window
    for (let i = 0; i < 90; i++) breaker.tryAcquire()?.success();
    for (let i = 0; i < 9; i++) fail(breaker.tryAcquire());
    expect(breaker.snapshot.state).toBe('closed'); // 99 calls
    fail(breaker.tryAcquire()); // 100 calls, 10 failures: 0.1
    expect(breaker.snapshot).toMatchObject({ state: 'open', until: 31_000 + 5000 });
    breaker.dispose();
  });

  it('a failed probe opens it again for the next break duration; a successful one resets the backoff', () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({
      consecutiveFailures: 1,
      breakDuration: exponentialBackoff({ initialDelay: 1000, multiplier: 2, maxDelay: 8000, jitter: 'none' }),
      scheduler: clock.scheduler,
    });
    const seen = record(breaker.state$);
    fail(breaker.tryAcquire());
    expect(breaker.snapshot).toMatchObject({ state: 'open', until: 1000 });
    clock.advanceTo(1000);
    fail(breaker.tryAcquire());
    expect(breaker.snapshot).toMatchObject({ state: 'open', until: 3000, opens: 2 });
    clock.advanceTo(3000);
    fail(breaker.tryAcquire());
    expect(breaker.snapshot).toMatchObject({ state: 'open', until: 7000, opens: 3 });
    clock.advanceTo(7000);
    breaker.tryAcquire()?.success();
    fail(breaker.tryAcquire());
    expect(breaker.snapshot).toMatchObject({ state: 'open', until: 8000, opens: 1 });
    expect(seen.filter((s) => s.state === 'open')).toHaveLength(4);
    breaker.dispose();
  });

  it('a cancelled call is not a failure, and a cancelled probe frees the slot', async () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({ consecutiveFailures: 1, breakDuration: 100, scheduler: clock.scheduler });
    const controller = new AbortController();
    const call = breaker.execute(
      () =>
        new Promise((_, reject) => {
          controller.signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
      { signal: controller.signal },
    );
    controller.abort();
    await expect(call).rejects.toThrow('aborted');
    expect(breaker.snapshot.state).toBe('closed');
    fail(breaker.tryAcquire());
    clock.advanceBy(100);
    breaker.tryAcquire()?.cancel();
    expect(breaker.snapshot.state).toBe('half-open');
    expect(breaker.tryAcquire()?.probe).toBe(true);
    breaker.dispose();
  });

  it('isFailure narrows what counts; a probe that ends with an uncounted error frees the slot', () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({
      consecutiveFailures: 1,
      isFailure: (e) => (e as Error).message !== '404',
      scheduler: clock.scheduler,
    });
    breaker.tryAcquire()?.failure(new Error('404'));
    expect(breaker.snapshot.state).toBe('closed');
    breaker.dispose();
  });

  it('breakers sharing a store open and close together (the seam for a store across processes)', () => {
    const clock = createVirtualClock();
    const store = memoryBreakerStore();
    const a = oneFailureBreaker(clock, { name: 'mail', breakDuration: 500, store });
    const b = oneFailureBreaker(clock, { name: 'mail', breakDuration: 500, store });
    fail(a.tryAcquire());
    expect(b.snapshot).toMatchObject({ state: 'open', until: 500 });
    expect(b.tryAcquire()).toBeUndefined();
    const c = circuitBreaker({ name: 'mail', scheduler: clock.scheduler, store }); // created while open
    expect(c.snapshot.state).toBe('open');
    clock.advanceTo(500);
    b.tryAcquire()?.success();
    expect(a.snapshot.state).toBe('closed');
    expect(c.snapshot.state).toBe('closed');
    for (const x of [a, b, c]) x.dispose();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports to an OpenTelemetry-shaped meter: opens, rejections and the state gauge', () => {
    const clock = createVirtualClock();
    const added: [string, number, unknown][] = [];
    const callbacks: ((r: { observe(v: number, a?: unknown): void }) => void)[] = [];
    const meter = {
      createCounter: (name: string) => ({
        add: (v: number, a?: unknown) => {
          added.push([name, v, a]);
        },
      }),
      createObservableGauge: () => ({
        addCallback: (cb: (typeof callbacks)[number]) => {
          callbacks.push(cb);
        },
        removeCallback: (cb: (typeof callbacks)[number]) => {
          callbacks.splice(callbacks.indexOf(cb), 1);
        },
      }),
    };
    const breaker = circuitBreaker({ name: 'sms', consecutiveFailures: 1, scheduler: clock.scheduler, meter });
    fail(breaker.tryAcquire());
    breaker.tryAcquire();
    expect(added).toEqual([
      ['redialer.breaker.opens', 1, { breaker: 'sms' }],
      ['redialer.breaker.rejected', 1, { breaker: 'sms' }],
    ]);
    const observed: number[] = [];
    callbacks[0]?.({ observe: (v) => observed.push(v) });
    expect(observed).toEqual([2]);
    breaker.dispose();
    expect(callbacks).toHaveLength(0);
  });

  it('isolate() holds it open until reset()', () => {
    const clock = createVirtualClock();
    const breaker = circuitBreaker({ scheduler: clock.scheduler });
    breaker.isolate();
    clock.advanceBy(1e9);
    expect(breaker.tryAcquire()).toBeUndefined();
    breaker.reset();
    expect(breaker.tryAcquire()).toBeDefined();
    breaker.dispose();
  });

  it('trace: every decision that changed the state or refused a call, in words; a throwing trace is reported', () => {
    const clock = createVirtualClock();
    const entries: BreakerTraceEntry[] = [];
    const breaker = circuitBreaker({
      consecutiveFailures: 1,
      breakDuration: 5000,
      scheduler: clock.scheduler,
      trace: (entry) => entries.push(entry),
    });
    fail(breaker.tryAcquire());
    expect(breaker.tryAcquire()).toBeUndefined();
    expect(breaker.snapshot.state).toBe('open'); // a read of a state that stays is not traced
    clock.advanceBy(5000);
    breaker.tryAcquire()?.success();
    expect(entries.map((e) => `${String(e.time)} ${e.event} ${e.from}->${e.to}`)).toEqual([
      '0 acquire closed->closed',
      '0 failed closed->open',
      '0 acquire open->open',
      '5000 break-elapsed open->half-open',
      '5000 acquire half-open->half-open',
      '5000 succeeded half-open->closed',
    ]);
    expect(entries[1]?.detail).toMatch(/^closed -> open \(.*; a break of 5 s\)$/);
    expect(entries[2]?.detail).toBe('refused: open for another 5 s');
    breaker.dispose();
    const errors: unknown[] = [];
    config.onUnhandledError = (error: unknown) => errors.push(error);
    const throwing = circuitBreaker({
      trace: () => {
        throw new Error('trace failed');
      },
    });
    try {
      expect(() => throwing.tryAcquire()?.success()).not.toThrow();
    } finally {
      config.onUnhandledError = null;
      throwing.dispose();
    }
    expect(errors.map((e) => (e as Error).message)).toEqual(['trace failed', 'trace failed']);
  });

  it('rejects bad options by name', () => {
    expect(() => circuitBreaker({ trace: 'log' as never })).toThrow(/option "trace" must be a function, got "log"/);
    expect(() => circuitBreaker({ failureRatio: 0 })).toThrow(/"failureRatio"/);
    expect(() => circuitBreaker({ consecutiveFailures: 1.5 })).toThrow(/"consecutiveFailures"/);
    expect(() => circuitBreaker({ breakDuration: 'long' as never })).toThrow(/"breakDuration"/);
    expect(() => circuitBreaker({ minimumThroughput: 0 })).toThrow(/"minimumThroughput"/);
    expect(() => circuitBreaker({ store: {} as never })).toThrow(/"store"/);
  });
});

type Op =
  | { readonly kind: 'acquire' }
  | { readonly kind: 'settle'; readonly index: number; readonly how: 'success' | 'failure' | 'cancel' }
  | { readonly kind: 'advance'; readonly ms: number };

const ops = fc.array(
  fc.oneof(
    fc.constant<Op>({ kind: 'acquire' }),
    fc.record({
      kind: fc.constant('settle' as const),
      index: fc.nat(20),
      how: fc.constantFrom('success' as const, 'failure' as const, 'cancel' as const),
    }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3000 }) }),
  ),
  { maxLength: 200 },
);

describe('circuitBreaker properties (fast-check, virtual time)', () => {
  const modes = [{ consecutiveFailures: 2 }, { failureRatio: 0.5, minimumThroughput: 4, window: 5000 }];
  it.each(modes)(
    'never more than one probe in half-open, never open past its break, never opened by a cancel (%o)',
    (mode) => {
      fc.assert(
        fc.property(ops, fc.integer({ min: 1, max: 4000 }), (script, breakDuration) => {
          const clock = createVirtualClock();
          const breaker = circuitBreaker({ ...mode, breakDuration, scheduler: clock.scheduler });
          const outstanding: BreakerPermit[] = [];
          let inFailure = false;
          const problems: string[] = [];
          const seen: BreakerSnapshot[] = [];
          breaker.state$.subscribe((s) => {
            if (s.state === 'open' && !inFailure) problems.push(`opened outside a failure at ${String(clock.now())}`);
            seen.push(s);
          });
          for (const op of script) {
            if (op.kind === 'acquire') {
              const permit = breaker.tryAcquire();
              if (permit !== undefined) outstanding.push(permit);
            } else if (op.kind === 'advance') {
              clock.advanceBy(op.ms);
            } else if (outstanding.length > 0) {
              const [permit] = outstanding.splice(op.index % outstanding.length, 1);
              if (op.how === 'failure') {
                inFailure = true;
                permit?.failure(new Error('boom'));
                inFailure = false;
              } else if (op.how === 'success') permit?.success();
              else permit?.cancel();
            }
            const probes = outstanding.filter((p) => p.probe).length;
            if (breaker.snapshot.state === 'half-open' && probes > 1)
              problems.push(`${String(probes)} probes in half-open`);
            const last = seen.at(-1);
            if (last?.state === 'open' && clock.now() > last.until)
              problems.push(`open past ${String(last.until)} at ${String(clock.now())}`);
          }
          breaker.dispose();
          expect(problems).toEqual([]);
          expect(clock.pendingTimers()).toBe(0);
        }),
        { numRuns: 300 },
      );
    },
  );
});

describe('circuitBreaker follows the one backoff step', () => {
  it.each(BROKEN_DELAYS)(
    'a break policy that %s leaves the breaker open, with no probe, until reset()',
    (_label, delayOf) => {
      const clock = createVirtualClock();
      const broken = brokenPolicy(delayOf);
      const breaker = circuitBreaker({ consecutiveFailures: 1, breakDuration: broken, scheduler: clock.scheduler });
      fail(breaker.tryAcquire());
      expect(breaker.snapshot).toMatchObject({ state: 'open', until: Infinity });
      expect(isBackoffPolicyError((breaker.snapshot as { lastError?: unknown }).lastError)).toBe(true);
      clock.advanceBy(3_600_000); // the old fallback was a 5 s break
      expect(breaker.tryAcquire()).toBeUndefined();
      expect(clock.pendingTimers()).toBe(0);
      breaker.reset();
      expect(breaker.snapshot.state).toBe('closed');
      breaker.dispose();
    },
  );

  it('isolate() is shared through the store, as reset() is', () => {
    const clock = createVirtualClock();
    const store = memoryBreakerStore();
    const a = circuitBreaker({ name: 'mail', store, scheduler: clock.scheduler });
    const b = circuitBreaker({ name: 'mail', store, scheduler: clock.scheduler });
    a.isolate();
    expect(b.snapshot).toMatchObject({ state: 'open', until: Infinity });
    expect(b.tryAcquire()).toBeUndefined();
    a.reset();
    expect(b.snapshot.state).toBe('closed');
    a.dispose();
    b.dispose();
  });
});
