/**
 * failover() and idempotency, on virtual time: a call that is not idempotent is never sent to a
 * second provider once it may have reached one (cut by attemptTimeout, reset after it was written, a
 * 5xx), is never hedged, and with an idempotency key stays with the provider that may have it; a
 * failure that proves nothing was sent (refused, 429, 503) still fails over.
 */
import { describe, expect, it } from 'vitest';
import {
  type FailoverAttemptContext,
  type FailoverProvider,
  failover,
  isFailoverError,
} from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock, type VirtualClock } from '../../../../src/testing/index.js';

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const reset = (): Error => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const httpError = (status: number): Error => Object.assign(new Error(`HTTP ${String(status)}`), { status });

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A provider that completes what it was sent after `ms` (recording it as delivered, even when the
 * caller gave up on it before: the work was done), unless `outcome` says it fails.
 */
function provider(clock: VirtualClock, name: string, ms: number, outcome: () => unknown = () => 'ok') {
  const calls: FailoverAttemptContext[] = [];
  const delivered: string[] = [];
  const spec: FailoverProvider<string, string> = {
    name,
    breaker: false,
    call: (args, context) => {
      calls.push(context);
      return new Promise<string>((resolve, reject) => {
        clock.scheduler.schedule(() => {
          const value = outcome();
          if (value instanceof Error) {
            reject(value);
            return;
          }
          delivered.push(args);
          resolve(name);
        }, ms);
        context.signal.addEventListener('abort', () => {
          reject(context.signal.reason);
        });
      });
    },
  };
  return { spec, calls, delivered };
}

async function settle<T>(clock: VirtualClock, promise: Promise<T>, until = 20_000) {
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
  // Let what the providers still do finish (a cut attempt completing late).
  clock.advanceBy(until);
  await flush();
  return result;
}

describe("failover({ idempotency: 'never' })", () => {
  it('an attempt cut by attemptTimeout is not sent elsewhere: no duplicate when the slow provider completes', async () => {
    const clock = createVirtualClock();
    const slow = provider(clock, 'slow', 1500);
    const fast = provider(clock, 'fast', 10);
    const send = failover([slow.spec, fast.spec], {
      scheduler: clock.scheduler,
      attemptTimeout: 800,
      idempotency: 'never',
    });
    const { error } = await settle(clock, send('mail-1'));
    expect(isFailoverError(error)).toBe(true);
    if (!isFailoverError(error)) return;
    expect(error.reason).toBe('maybe-sent');
    expect(error.maybeSentTo).toBe('slow');
    expect(error.message).toMatch(/^failover stopped: the call may have reached slow and is not idempotent/);
    expect(error.outcomes.map((o) => [o.provider, o.outcome])).toEqual([
      ['slow', 'timed-out'],
      ['fast', 'not-tried'],
    ]);
    expect(fast.calls).toHaveLength(0);
    // The slow provider did the work after its cut: delivered once, by it alone.
    expect(slow.delivered).toEqual(['mail-1']);
    expect(fast.delivered).toEqual([]);
    send.dispose();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('the same with the default (idempotent): the call fails over, and the work is done twice', async () => {
    const clock = createVirtualClock();
    const slow = provider(clock, 'slow', 1500);
    const fast = provider(clock, 'fast', 10);
    const send = failover([slow.spec, fast.spec], { scheduler: clock.scheduler, attemptTimeout: 800 });
    expect((await settle(clock, send('mail-1'))).value).toBe('fast');
    expect([...slow.delivered, ...fast.delivered]).toEqual(['mail-1', 'mail-1']);
    send.dispose();
  });

  it('a reset after the request was written, or a 500, stops the call; refused, 429 and 503 fail over', async () => {
    for (const [failure, movesOn] of [
      [reset, false],
      [() => httpError(500), false],
      [refused, true],
      [() => httpError(429), true],
      [() => httpError(503), true],
    ] as const) {
      const clock = createVirtualClock();
      const a = provider(clock, 'a', 5, failure);
      const b = provider(clock, 'b', 5);
      const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, idempotency: 'never' });
      const result = await settle(clock, send('x'));
      if (movesOn) expect(result.value).toBe('b');
      else expect(result.error).toMatchObject({ reason: 'maybe-sent', maybeSentTo: 'a' });
      expect(b.calls).toHaveLength(movesOn ? 1 : 0);
      send.dispose();
    }
  });

  it('is never hedged: hedgeDelay sends copies of idempotent calls only', async () => {
    const clock = createVirtualClock();
    const a = provider(clock, 'a', 300);
    const b = provider(clock, 'b', 10);
    const send = failover([a.spec, b.spec], { scheduler: clock.scheduler, hedgeDelay: 50 });
    expect((await settle(clock, send('x', { idempotency: 'never' }))).value).toBe('a');
    expect(b.calls).toHaveLength(0);
    // The same function hedges an idempotent call.
    expect((await settle(clock, send('y'))).value).toBe('b');
    expect(b.calls).toHaveLength(1);
    send.dispose();
  });

  it('with an idempotency key, a call that may have reached a provider is sent only there afterwards', async () => {
    const clock = createVirtualClock();
    let slowFor = 1500;
    const slow = provider(clock, 'slow', 0);
    slow.spec = {
      ...slow.spec,
      call: (args, context) => {
        slow.calls.push(context);
        const ms = slowFor;
        return new Promise<string>((resolve, reject) => {
          clock.scheduler.schedule(() => {
            // The provider tells a repeat by its key: it does the work once per key.
            if (!slow.delivered.includes(args)) slow.delivered.push(args);
            resolve('slow');
          }, ms);
          context.signal.addEventListener('abort', () => {
            reject(context.signal.reason);
          });
        });
      },
    };
    const fast = provider(clock, 'fast', 10);
    const send = failover([slow.spec, fast.spec], {
      scheduler: clock.scheduler,
      attemptTimeout: 800,
      idempotency: 'never',
    });
    const first = await settle(clock, send('mail-7', { idempotencyKey: 'mail-7' }));
    expect(first.error).toMatchObject({ reason: 'maybe-sent', maybeSentTo: 'slow' });
    expect(slow.calls[0]?.idempotencyKey).toBe('mail-7');
    // The retry (a queue's, later) goes to slow only, even while slow backs off or is slow again.
    const again = await settle(clock, send('mail-7', { idempotencyKey: 'mail-7' }));
    expect(again.error).toMatchObject({ reason: 'maybe-sent', maybeSentTo: 'slow' });
    expect(fast.calls).toHaveLength(0);
    slowFor = 10;
    expect((await settle(clock, send('mail-7', { idempotencyKey: 'mail-7' }))).value).toBe('slow');
    expect(slow.delivered).toEqual(['mail-7']);
    // Once it succeeded there, the key is free: another operation with it may go anywhere.
    expect(fast.calls).toHaveLength(0);
    // Other keys were never held to slow.
    expect((await settle(clock, send('mail-8', { idempotencyKey: 'mail-8' }))).value).toBe('slow');
    send.dispose();
  });

  it('rejects bad input by name', () => {
    const ok = { name: 'a', call: () => 1 };
    expect(() => failover([ok], { idempotency: 'sometimes' as never })).toThrow(/option "idempotency"/);
    expect(() => failover([ok])(undefined, { idempotency: 'maybe' as never })).toThrow(/option "idempotency"/);
    expect(() => failover([ok])(undefined, { idempotencyKey: '' })).toThrow(/option "idempotencyKey"/);
    expect(() => failover([ok])(undefined, { idempotencyKey: 7 as never })).toThrow(/option "idempotencyKey"/);
  });
});
