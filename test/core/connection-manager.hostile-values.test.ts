/**
 * Hostile values in the core: errors whose every property access throws, hand-made values carrying
 * redialer's brands with absurd contents, timers longer than the host can arm, and user callbacks
 * that throw (routed through `onUnhandledError`).
 */
import { Observable, config } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionManager,
  constantBackoff,
  isPermanentError,
  isRetryAfterError,
  permanent,
  retryAfterDelayOf,
} from '../../src/index.js';
import { MAX_DELAY_MS } from '../../src/core/index.js';
import { createFakeConnector, createVirtualClock } from '../../src/testing/index.js';
import { hostileErrors } from '../support/hostile-errors.js';
import { hostLikeScheduler } from '../support/host-like-scheduler.js';

/** A hand-made value with the RetryAfterError brand. */
function forgedRetryAfter(delay: unknown): Error {
  const error = new Error('forged');
  Object.defineProperty(error, Symbol.for('redialer.RetryAfterError'), { value: true });
  Object.defineProperty(error, 'delay', { value: delay });
  return error;
}

describe('hostile error values reach the manager', () => {
  it.each(hostileErrors())('%s: connect() does not throw and the manager keeps retrying', (_name, hostile) => {
    const clock = createVirtualClock();
    const fake = createFakeConnector((attempt) => {
      attempt.fail(hostile);
    });
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: clock.scheduler,
      random: () => 0.5,
      trace: () => undefined,
    });
    expect(() => {
      manager.connect();
    }).not.toThrow();
    expect(manager.snapshot.state).toBe('TRANSIENT_FAILURE');
    // Compared by identity: the test framework's deep equality would itself trip the traps.
    expect(manager.snapshot.lastError === hostile).toBe(true);
    expect(() => {
      clock.advanceBy(3000);
    }).not.toThrow();
    expect(fake.attempts.length).toBe(3);
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it.each(hostileErrors())('%s: guards and permanent() read it safely', (_name, hostile) => {
    expect(isPermanentError(hostile)).toBe(false);
    expect(isRetryAfterError(hostile)).toBe(false);
    expect(permanent(hostile).message).toMatch(/hostile|boom|gone|Error/);
  });

  it('a branded value with delay NaN is not trusted: the backoff applies instead of waiting forever', () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector((attempt) => {
      attempt.fail(forgedRetryAfter(NaN));
    });
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: clock.scheduler,
      backoff: constantBackoff(1000),
      minConnectTimeout: 0,
    });
    manager.connect();
    const s = manager.snapshot;
    expect(s.state === 'TRANSIENT_FAILURE' && s.nextAttemptAt).toBe(1000);
    clock.advanceBy(1000);
    expect(fake.attempts.length).toBe(2);
    manager.shutdown();
    expect(isRetryAfterError(forgedRetryAfter(NaN))).toBe(false);
    expect(isRetryAfterError(forgedRetryAfter('5'))).toBe(false);
    expect(isRetryAfterError(forgedRetryAfter(-1))).toBe(false);
  });

  it('a branded value with delay 1e30 waits the hint ceiling (144 s), armed once, and nothing spins', () => {
    const host = hostLikeScheduler();
    const fake = createFakeConnector((attempt) => {
      attempt.fail(forgedRetryAfter(1e30));
    });
    const manager = new ConnectionManager({
      connector: fake.connector,
      scheduler: host.scheduler,
      minConnectTimeout: 0,
    });
    manager.connect();
    const s = manager.snapshot;
    // Cut to maxRetryAfter, by default the policy's longest wait: no server parks a client for 24.8 days.
    expect(s.state === 'TRANSIENT_FAILURE' && s.nextAttemptAt).toBe(144_000);
    expect(retryAfterDelayOf(forgedRetryAfter(1e30))).toBe(MAX_DELAY_MS);
    host.runUntil(144_000 - 1);
    expect(fake.attempts.length).toBe(1);
    // No re-arm loop: the wait armed once, within the limit. (The attempt failed as it started, so its
    // cut timer was never armed: the manager arms only the timer a batch of events ends with.)
    expect(host.arms.filter((a) => a > 0)).toEqual([144_000]);
    host.runUntil(144_000);
    expect(fake.attempts.length).toBe(2);
    manager.shutdown();
    expect(host.pending()).toBe(0);
  });
});

describe('timers longer than 2^31 - 1 ms', () => {
  it('waitForStateChange({ timeout: 3e9 }) resolves false at 3e9 ms, not at 24.8 days nor after 1 ms', async () => {
    const host = hostLikeScheduler();
    const manager = new ConnectionManager({ connector: createFakeConnector().connector, scheduler: host.scheduler });
    let outcome: boolean | undefined;
    void manager.waitForStateChange('IDLE', { timeout: 3e9 }).then((v) => {
      outcome = v;
    });
    expect(Math.max(...host.arms)).toBeLessThanOrEqual(MAX_DELAY_MS);
    host.runUntil(MAX_DELAY_MS + 1000);
    await Promise.resolve();
    expect(outcome).toBeUndefined();
    host.runUntil(3e9);
    await Promise.resolve();
    expect(outcome).toBe(false);
    manager.shutdown();
    expect(host.pending()).toBe(0);
  });
});

describe('throwing user code is routed to onUnhandledError', () => {
  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('a throwing trace callback and teardown go to the hook; the manager is unharmed', () => {
    const clock = createVirtualClock();
    const routed: unknown[] = [];
    const manager = new ConnectionManager({
      connector: () =>
        new Observable<never>(() => () => {
          throw new Error('teardown');
        }),
      scheduler: clock.scheduler,
      trace: () => {
        throw new Error('trace');
      },
      onUnhandledError: (error) => routed.push(error),
    });
    manager.connect();
    manager.shutdown();
    expect(manager.snapshot.state).toBe('SHUTDOWN');
    expect(routed.map((e) => (e as Error).message)).toEqual(['trace', expect.stringMatching(/teardown/), 'trace']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("without the option, RxJS's config.onUnhandledError receives them", () => {
    const routed: unknown[] = [];
    config.onUnhandledError = (error: unknown) => routed.push(error);
    const manager = new ConnectionManager({
      connector: createFakeConnector().connector,
      scheduler: createVirtualClock().scheduler,
      trace: () => {
        throw new Error('trace');
      },
    });
    manager.connect();
    manager.shutdown();
    expect(routed).toHaveLength(2);
  });

  it('a hook that throws in turn: both errors are rethrown asynchronously, none is lost', async () => {
    const uncaught: unknown[] = [];
    const listener = (error: unknown) => uncaught.push(error);
    process.prependListener('uncaughtException', listener);
    const listeners = process.listeners('uncaughtException').filter((l) => l !== listener);
    for (const l of listeners) process.removeListener('uncaughtException', l);
    try {
      const manager = new ConnectionManager({
        connector: createFakeConnector().connector,
        scheduler: createVirtualClock().scheduler,
        trace: () => {
          throw new Error('trace');
        },
        onUnhandledError: () => {
          throw new Error('hook');
        },
      });
      manager.connect();
      await new Promise((resolve) => setTimeout(resolve, 10));
      manager.shutdown();
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.removeListener('uncaughtException', listener);
      for (const l of listeners) process.on('uncaughtException', l);
    }
    expect(uncaught.length).toBeGreaterThanOrEqual(1);
    expect(uncaught[0]).toBeInstanceOf(AggregateError);
    expect((uncaught[0] as AggregateError).errors.map((e) => (e as Error).message)).toEqual(['trace', 'hook']);
  });
});
