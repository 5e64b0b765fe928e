/**
 * Hostile input: option objects of the core and the adapters (every bad value gets a clear
 * TypeError/RangeError naming the option, never a silent default), and server hints — WebSocket close
 * reasons, Retry-After, grpc-retry-pushback-ms — fuzzed through the real parsing paths: never a NaN,
 * infinite or negative sleep.
 */
import { credentials } from '@grpc/grpc-js';
import fc from 'fast-check';
import { NEVER } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { ConnectionManager, exponentialBackoff, grpcBackoff, isRetryAfterError } from '../../src/index.js';
import { MAX_DELAY_MS } from '../../src/core/index.js';
import { ManagedChannel } from '../../src/adapters/grpc/index.js';
import { HttpResponseError, retry } from '../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import { drive, grpcError } from '../toolkits/retry/support.js';
import { FakeEnvironment, fakeWebSocketClass } from '../adapters/websocket/support/fake-websocket.js';

const anything = fc.oneof(
  fc.anything(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, -1, 2 ** 31, 1e308, Number.MIN_VALUE, '', '10', null, true),
  fc.double(),
);

/** Accepts a construction that either succeeds or fails with a message naming the option. */
function expectCleanOutcome(make: () => unknown): void {
  try {
    make();
  } catch (error) {
    expect(error).toSatisfy((e: unknown) => e instanceof TypeError || e instanceof RangeError);
    expect((error as Error).message).toMatch(/^redialer: /);
  }
}

describe('hostile options', () => {
  it('ConnectionManager options: construct or throw a named TypeError/RangeError', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            minConnectTimeout: anything,
            minUptime: anything,
            autoReconnect: anything,
            random: anything,
            trace: anything,
            unref: anything,
            attemptSpacing: fc.oneof(
              anything,
              fc.record({ burst: anything, interval: anything }, { requiredKeys: [] }),
            ),
            onUnhandledError: anything,
          },
          { requiredKeys: [] },
        ),
        (options) => {
          expectCleanOutcome(() => {
            new ConnectionManager({ connector: () => NEVER, ...(options as object) }).shutdown();
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('policy options: construct or throw; when constructed, 1,000 waits are finite and in range', () => {
    fc.assert(
      fc.property(
        fc.record(
          { initialBackoff: anything, multiplier: anything, jitter: anything, maxBackoff: anything },
          { requiredKeys: [] },
        ),
        fc.record(
          { initialDelay: anything, multiplier: anything, maxDelay: anything, jitter: anything },
          { requiredKeys: [] },
        ),
        (g, e) => {
          for (const make of [() => grpcBackoff(g as never), () => exponentialBackoff(e as never)]) {
            let policy;
            try {
              policy = make();
            } catch {
              expectCleanOutcome(make);
              continue;
            }
            let b = policy.first(Math.random);
            for (let i = 0; i < 1000; i += 1) {
              expect(Number.isFinite(b.delay) && b.delay >= 0 && b.delay <= MAX_DELAY_MS).toBe(true);
              b = b.next(Math.random);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a random source returning garbage stops the manager with policy-error instead of waiting NaN', () => {
    fc.assert(
      fc.property(fc.constantFrom(NaN, -1, 2, Infinity, undefined, '0.5'), (value) => {
        const clock = createVirtualClock();
        const manager = new ConnectionManager({
          connector: () => NEVER,
          scheduler: clock.scheduler,
          random: () => value as number,
          minConnectTimeout: 0,
        });
        manager.connect(); // attempt 1 uses no jitter
        clock.advanceBy(1000); // cut; attempt 2 draws jitter
        expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
        expect(String(manager.snapshot.lastError)).toMatch(/option "random" must return a number in \[0, 1\]/);
        expect(clock.pendingTimers()).toBe(0);
      }),
    );
  });
});

/** Hostile strings: any text, numbers in every notation, huge digit runs, and server-hint lookalikes. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^\d{1,400}(\.\d{0,5})?$/),
  fc.constantFrom(
    '-1',
    '-0',
    '0',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e309',
    '1e-7',
    '0x10',
    ' 5 ',
    '5, 6',
    '9'.repeat(330),
    '1.5',
    '+3',
    '',
  ),
  fc.double().map(String),
  fc
    .tuple(
      fc.constantFrom('retry-after=', 'Retry-After: ', 'retry after ', ''),
      fc.oneof(fc.double().map(String), fc.stringMatching(/^\d{1,40}$/)),
      fc.constantFrom('', 'ms', 's', 'h'),
    )
    .map(([a, b, c]) => a + b + c),
);

const finiteIn = (ms: number, min: number, max: number): boolean => Number.isFinite(ms) && ms >= min && ms <= max;

describe('hostile server hints through the real paths: never a NaN, infinite or negative sleep', () => {
  it('WebSocket close reasons (1012/1013, any reason): the adapter waits a finite time within [minDelay, maxDelay], with one timer', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1012, 1013),
        hostileText,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (code, reason, r) => {
          const clock = createVirtualClock();
          const fake = fakeWebSocketClass();
          const socket = new ReconnectingWebSocket('ws://example.test/', undefined, {
            WebSocket: fake.WebSocket,
            scheduler: clock.scheduler,
            random: () => r,
            environment: new FakeEnvironment(),
            minReconnectionDelay: 100,
            maxReconnectionDelay: 60_000,
          });
          fake.last().open();
          fake.last().finish(code, reason, true);
          const s = socket.snapshot;
          expect(s.state).toBe('TRANSIENT_FAILURE');
          if (s.state !== 'TRANSIENT_FAILURE') return;
          expect(isRetryAfterError(s.lastError)).toBe(true);
          expect(finiteIn(s.nextAttemptAt - clock.now(), 100, 60_000)).toBe(true);
          expect(clock.pendingTimers()).toBe(1);
          clock.advanceTo(s.nextAttemptAt);
          expect(socket.snapshot.state).toBe('CONNECTING');
          socket.close();
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('any close code and reason: the adapter either stops or waits a finite, non-negative time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 4999 }), hostileText, fc.boolean(), (code, reason, opened) => {
        const clock = createVirtualClock();
        const fake = fakeWebSocketClass();
        const socket = new ReconnectingWebSocket('ws://example.test/', undefined, {
          WebSocket: fake.WebSocket,
          scheduler: clock.scheduler,
          random: () => 0.5,
          environment: new FakeEnvironment(),
        });
        if (opened) fake.last().open();
        fake.last().finish(code, reason, opened);
        const s = socket.snapshot;
        if (s.state === 'TRANSIENT_FAILURE')
          expect(finiteIn(s.nextAttemptAt - clock.now(), 0, MAX_DELAY_MS)).toBe(true);
        else expect(s.state).toBe('SHUTDOWN');
        socket.close();
        expect(clock.pendingTimers()).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('Retry-After through retry(): each wait is finite, in [0, maxRetryAfter], and is the time that actually passes', async () => {
    const sources = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileText,
          fc.array(hostileText, { maxLength: 3 }),
          fc.double().map((d) => d as unknown as string),
          fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String), // valid delay-seconds, up to absurd
          fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toUTCString()),
        ),
        fc.constantFrom(429, 503),
        async (value, status) => {
          const clock = createVirtualClock();
          const delays: number[] = [];
          let calls = 0;
          const outcome = await drive(
            clock,
            retry(
              () => {
                calls += 1;
                if (calls === 1) throw new HttpResponseError({ status, headers: { 'retry-after': value as string } });
                return 'ok';
              },
              {
                scheduler: clock.scheduler,
                maxAttempts: 2,
                maxRetryAfter: 60_000,
                backoff: exponentialBackoff({ initialDelay: 10, maxDelay: 1000 }),
                metrics: {
                  record: (e) => {
                    if (e.type !== 'retry') return;
                    delays.push(e.delay);
                    sources.set(e.source, (sources.get(e.source) ?? 0) + 1);
                  },
                },
              },
            ),
          );
          expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok' });
          expect(delays).toHaveLength(1);
          expect(finiteIn(delays[0]!, 0, 60_000)).toBe(true);
          expect(outcome.status === 'fulfilled' && outcome.at).toBeCloseTo(delays[0]!, 6);
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
    // Both paths ran: hints that were honoured, and hints that fell back to the own backoff.
    expect(sources.get('retry-after')).toBeGreaterThan(50);
    expect(sources.get('backoff')).toBeGreaterThan(50);
  });

  it('grpc-retry-pushback-ms through retry(): a wait finite and in [0, MAX_DELAY_MS], or no retry at all (gRFC A6: a bad value stops)', async () => {
    const seen = { total: 0, waited: 0, stopped: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileText.map((v) => [v]),
          fc.array(hostileText, { maxLength: 3 }),
        ),
        async (values) => {
          seen.total += 1;
          const clock = createVirtualClock();
          const delays: number[] = [];
          let calls = 0;
          const outcome = await drive(
            clock,
            retry(
              () => {
                calls += 1;
                if (calls === 1) throw grpcError(14, { 'grpc-retry-pushback-ms': values });
                return 'ok';
              },
              {
                scheduler: clock.scheduler,
                maxAttempts: 2,
                metrics: { record: (e) => (e.type === 'retry' ? delays.push(e.delay) : undefined) },
              },
            ),
          );
          if (outcome.status === 'fulfilled') {
            seen.waited += 1;
            expect(delays).toHaveLength(1);
            expect(finiteIn(delays[0]!, 0, MAX_DELAY_MS)).toBe(true);
            expect(outcome.at).toBeCloseTo(delays[0]!, 6);
          } else {
            seen.stopped += 1;
            expect(calls).toBe(1); // pushback said stop: no second attempt
            expect(delays).toEqual([]);
          }
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
    expect(seen.waited).toBeGreaterThan(50);
    expect(seen.stopped).toBeGreaterThan(50);
  });
});

/** Accepts a construction that succeeds, or fails with a TypeError/RangeError that names `option`. */
function expectNamed(option: string, make: () => unknown): void {
  try {
    make();
  } catch (error) {
    expect(error).toSatisfy((e: unknown) => e instanceof TypeError || e instanceof RangeError);
    expect((error as Error).message).toMatch(/^redialer: /);
    expect((error as Error).message).toContain(option);
  }
}

const RWS_OPTIONS = [
  'WebSocket',
  'minReconnectionDelay',
  'maxReconnectionDelay',
  'reconnectionDelayGrowFactor',
  'reconnectionDelayJitter',
  'minUptime',
  'connectionTimeout',
  'maxRetries',
  'maxEnqueuedMessages',
  'maxEnqueuedBytes',
  'startClosed',
  'debug',
  'permanentCloseCodes',
  'shouldReconnect',
  'pauseWhileOffline',
  'retryOnVisible',
  'visibleRetryThreshold',
  'environment',
  'scheduler',
  'random',
  'trace',
] as const;
const CHANNEL_OPTIONS = [
  'minConnectTimeout',
  'minUptime',
  'autoReconnect',
  'random',
  'trace',
  'unref',
  'backoff',
  'scheduler',
  'waitForReady',
  'channelOptions',
] as const;
const RETRY_OPTIONS = [
  'maxAttempts',
  'totalTimeout',
  'backoff',
  'classify',
  'idempotency',
  'precondition',
  'serverHints',
  'maxRetryAfter',
  'budget',
  'metrics',
  'scheduler',
  'random',
  'signal',
  'attemptTimeout',
  'attemptSpacing',
  'onUnhandledError',
] as const;

describe('hostile adapter options: each bad value gets a TypeError/RangeError naming the option', () => {
  it('ReconnectingWebSocket: one hostile option at a time', () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined); // option "debug" may be true
    fc.assert(
      fc.property(fc.constantFrom(...RWS_OPTIONS), anything, (key, value) => {
        const fake = fakeWebSocketClass();
        const base = { WebSocket: fake.WebSocket, startClosed: true, environment: new FakeEnvironment() };
        expectNamed(key, () => {
          new ReconnectingWebSocket('ws://example.test/', undefined, { ...base, [key]: value }).close();
        });
      }),
      { numRuns: 2000 },
    );
    debug.mockRestore();
  });

  it('ManagedChannel: one hostile option at a time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHANNEL_OPTIONS), anything, (key, value) => {
        expectNamed(key, () => {
          new ManagedChannel('127.0.0.1:1', credentials.createInsecure(), { [key]: value }).close();
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('retry(): one hostile option at a time, thrown before any attempt', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RETRY_OPTIONS), anything, (key, value) => {
        let attempts = 0;
        let threw = false;
        expectNamed(key, () => {
          try {
            // A value accepted starts the call; it never settles on its own, so nothing is awaited.
            void retry(
              () => {
                attempts += 1;
                return new Promise<never>(() => undefined);
              },
              { [key]: value },
            ).catch(() => undefined);
          } catch (error) {
            threw = true;
            throw error;
          }
        });
        if (threw) expect(attempts).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('the check can fail: a known bad value of each option is rejected, naming it', () => {
    const fake = fakeWebSocketClass();
    expect(
      () => new ReconnectingWebSocket('ws://x/', undefined, { WebSocket: fake.WebSocket, maxEnqueuedBytes: -1 }),
    ).toThrow(/maxEnqueuedBytes/);
    expect(() => new ManagedChannel('127.0.0.1:1', credentials.createInsecure(), { minConnectTimeout: NaN })).toThrow(
      /minConnectTimeout/,
    );
    expect(() => retry(() => 1, { maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});
