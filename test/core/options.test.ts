/** Every bad option gets a TypeError or RangeError that names the option and the value. */
import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  ConnectionManager,
  type ConnectionManagerOptions,
  constantBackoff,
  exponentialBackoff,
  grpcBackoff,
} from '../../src/index.js';
import { createFakeConnector, createVirtualClock } from '../../src/testing/index.js';

const connector = () => of('c');

describe('ConnectionManager options', () => {
  it.each([
    [
      { minConnectTimeout: NaN },
      RangeError,
      /"minConnectTimeout" must be a finite number >= 0 and <= 2147483647, got NaN/,
    ],
    [{ minConnectTimeout: -1 }, RangeError, /"minConnectTimeout".*got -1/],
    [{ minConnectTimeout: '20s' }, TypeError, /"minConnectTimeout".*got "20s"/],
    [{ minConnectTimeout: 2 ** 31 }, RangeError, /"minConnectTimeout"/],
    [{ minUptime: Infinity }, RangeError, /"minUptime".*got Infinity/],
    [{ autoReconnect: 'yes' }, TypeError, /"autoReconnect" must be a boolean, got "yes"/],
    [{ backoffAfterLoss: 1 }, TypeError, /"backoffAfterLoss" must be a boolean, got 1/],
    [{ maxRetries: -1 }, RangeError, /"maxRetries" must be/],
    [{ maxRetries: 1.5 }, RangeError, /"maxRetries" must be/],
    [{ random: 0.5 }, TypeError, /"random" must be a function, got 0.5/],
    [{ trace: {} }, TypeError, /"trace" must be a function, got an object/],
    [{ scheduler: {} }, TypeError, /"scheduler" must be an RxJS SchedulerLike/],
    [{ backoff: 1000 }, TypeError, /"backoff" must be a backoff policy.*got 1000/],
    [{ unref: 1 }, TypeError, /"unref" must be a boolean, got 1/],
  ] as const)('%o -> %o', (bad, type, message) => {
    const create = () => new ConnectionManager({ connector, ...(bad as object) });
    expect(create).toThrow(type);
    expect(create).toThrow(message);
  });

  it('requires a connector function', () => {
    expect(() => new ConnectionManager({} as never)).toThrow(/option "connector" is required/);
    expect(() => new ConnectionManager({ connector: 'ws://x' } as never)).toThrow(
      /"connector" must be a function, got "ws:\/\/x"/,
    );
  });

  it('rejects a non-object', () => {
    expect(() => new ConnectionManager(null as never)).toThrow(/ConnectionManager options must be an object, got null/);
  });

  it('rejects unref together with a custom scheduler', () => {
    expect(
      () =>
        new ConnectionManager({
          connector,
          unref: true,
          scheduler: { now: () => 0, schedule: () => undefined } as never,
        }),
    ).toThrow(/"unref" applies to the default scheduler/);
  });

  it('accepts 0 wherever 0 is meaningful (no truthiness defaults)', () => {
    expect(() => new ConnectionManager({ connector, minConnectTimeout: 0, minUptime: 0 })).not.toThrow();
  });
});

describe('policy options', () => {
  it.each([
    [
      `grpcBackoff({ multiplier: 0.5 })`,
      () => grpcBackoff({ multiplier: 0.5 }),
      RangeError,
      /"multiplier" must be a finite number >= 1, got 0.5/,
    ],
    [
      `grpcBackoff({ jitter: 1.5 })`,
      () => grpcBackoff({ jitter: 1.5 }),
      RangeError,
      /"jitter" must be a finite number >= 0 and <= 1, got 1.5/,
    ],
    [`grpcBackoff({ jitter: -0.1 })`, () => grpcBackoff({ jitter: -0.1 }), RangeError, /"jitter".*got -0.1/],
    [
      `grpcBackoff({ initialBackoff: -5 })`,
      () => grpcBackoff({ initialBackoff: -5 }),
      RangeError,
      /"initialBackoff".*got -5/,
    ],
    [
      `grpcBackoff({ initialBackoff: 5000, maxBackoff: 1000 })`,
      () => grpcBackoff({ initialBackoff: 5000, maxBackoff: 1000 }),
      RangeError,
      /"maxBackoff" must be a number >= 5000, got 1000/,
    ],
    [`grpcBackoff({ maxBackoff: NaN })`, () => grpcBackoff({ maxBackoff: NaN }), RangeError, /"maxBackoff".*got NaN/],
    [
      `grpcBackoff({ multiplier: Infinity })`,
      () => grpcBackoff({ multiplier: Infinity }),
      RangeError,
      /"multiplier".*got Infinity/,
    ],
    [
      `grpcBackoff({ initialBackoff: '1s' as never })`,
      () => grpcBackoff({ initialBackoff: '1s' as never }),
      TypeError,
      /"initialBackoff".*got "1s"/,
    ],
    [
      `exponentialBackoff({ jitter: 'random' as never })`,
      () => exponentialBackoff({ jitter: 'random' as never }),
      RangeError,
      /"jitter" must be one of "none", "full", "equal", "decorrelated", got "random"/,
    ],
    [
      `exponentialBackoff({ jitter: 1 as never })`,
      () => exponentialBackoff({ jitter: 1 as never }),
      TypeError,
      /"jitter" must be one of/,
    ],
    [
      `exponentialBackoff({ initialDelay: 10, maxDelay: 5 })`,
      () => exponentialBackoff({ initialDelay: 10, maxDelay: 5 }),
      RangeError,
      /"maxDelay" must be a number >= 10, got 5/,
    ],
    [`constantBackoff(-1)`, () => constantBackoff(-1), RangeError, /"delay".*got -1/],
    [`constantBackoff(NaN)`, () => constantBackoff(NaN), RangeError, /"delay".*got NaN/],
  ] as const)('%s', (_label, make, type, message) => {
    expect(make).toThrow(type);
    expect(make).toThrow(message);
  });
});

describe('one options object for a fleet', () => {
  it('managers made from the same object share its settings; a change to the object applies to the next manager only', () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector();
    const options: { -readonly [K in keyof ConnectionManagerOptions<string>]: ConnectionManagerOptions<string>[K] } = {
      connector: fake.connector,
      scheduler: clock.scheduler,
      minConnectTimeout: 30_000,
    };
    const first = new ConnectionManager(options);
    const second = new ConnectionManager(options);
    options.minConnectTimeout = 25_000;
    const third = new ConnectionManager(options);
    for (const m of [first, second, third]) m.connect();
    expect([first, second, third].map((m) => m.snapshot.state === 'CONNECTING' && m.snapshot.timeoutAt)).toEqual([
      30_000, 30_000, 25_000,
    ]);
    options.minConnectTimeout = -1;
    expect(() => new ConnectionManager(options)).toThrow(/"minConnectTimeout".*got -1/);
    for (const m of [first, second, third]) m.shutdown();
  });

  it('a change inside a nested option (attemptSpacing.burst) applies to the next manager too', () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector();
    const spacing = { burst: 1, interval: 3000 };
    const options = { connector: fake.connector, scheduler: clock.scheduler, attemptSpacing: spacing };
    const first = new ConnectionManager(options);
    spacing.burst = 5;
    const second = new ConnectionManager(options);
    const waits = [first, second].map((m) => {
      m.connect();
      fake.last?.fail();
      return m.snapshot.state === 'TRANSIENT_FAILURE' && m.snapshot.nextAttemptAt;
    });
    // The first waits for the floor (one start per 3 s); the second, with a burst of 5, for its 1 s backoff.
    expect(waits).toEqual([3000, 1000]);
    for (const m of [first, second]) m.shutdown();
  });

  it('fleets from several options objects taking turns each keep their own settings, and an added option applies', () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector();
    const objects = [20_000, 21_000, 22_000, 23_000, 24_000, 25_000].map(
      (
        minConnectTimeout,
      ): { -readonly [K in keyof ConnectionManagerOptions<string>]: ConnectionManagerOptions<string>[K] } => ({
        connector: fake.connector,
        scheduler: clock.scheduler,
        minConnectTimeout,
      }),
    );
    const managers = [0, 1, 2, 3, 4, 5, 0, 5, 1, 4, 2, 3].map((i) => new ConnectionManager(objects[i] ?? objects[0]!));
    const withSpacing = objects[0]!;
    withSpacing.attemptSpacing = { burst: 1, interval: 3000 };
    const spaced = new ConnectionManager(withSpacing);
    for (const m of managers) m.connect();
    expect(managers.map((m) => m.snapshot.state === 'CONNECTING' && m.snapshot.timeoutAt)).toEqual([
      20_000, 21_000, 22_000, 23_000, 24_000, 25_000, 20_000, 25_000, 21_000, 24_000, 22_000, 23_000,
    ]);
    // The option added after the first managers applies to the manager made after it: its second
    // attempt waits for the floor's 3 s, not for the backoff's first 1 s.
    spaced.connect();
    fake.last?.fail();
    expect(spaced.snapshot.state === 'TRANSIENT_FAILURE' && spaced.snapshot.nextAttemptAt).toBe(3000);
    for (const m of [...managers, spaced]) m.shutdown();
  });
});
