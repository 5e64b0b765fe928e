/**
 * The attempt-rate property, on virtual time: for any legal configuration of every public policy and
 * option — ConnectionManager with grpcBackoff, exponentialBackoff (every jitter) or constantBackoff,
 * ReconnectingWebSocket with its delay options, retry() with its policies and server hints — against
 * a server that always fails (refuses, accepts and drops, never answers, answers with any hint), the
 * attempt starts in any 10 s window stay within the documented bound (`maxStartsIn`: 105 with the
 * default floor), and no timer is ever armed with a NaN, negative or over-2^31 - 1 ms delay (longer
 * waits are re-armed in steps).
 */
import fc from 'fast-check';
import { Observable, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { busiestWindow } from '../support/busiest-window.js';
import {
  type AttemptSpacing,
  type BackoffPolicy,
  ConnectionManager,
  constantBackoff,
  exponentialBackoff,
  grpcBackoff,
  retryAfter,
} from '../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, JITTER_KINDS, MAX_DELAY_MS, maxStartsIn } from '../../src/core/index.js';
import { HttpResponseError, retry } from '../../src/toolkits/retry/index.js';
import { type VirtualClock, createVirtualClock } from '../../src/testing/index.js';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import { FakeEnvironment, fakeWebSocketClass } from '../support/websocket/fake-websocket.js';
import { flush, grpcError } from '../toolkits/retry/support.js';

const WINDOW = 10_000;
const RUN = 30_000;
/** Attempts at which a run stops, so that a hot loop fails the property instead of hanging it. */
const RUNAWAY = 5000;

/** The virtual clock's scheduler, recording every delay a timer is armed (or re-armed) with. */
function recording(clock: VirtualClock): { scheduler: SchedulerLike; delays: number[] } {
  const delays: number[] = [];
  const scheduler: SchedulerLike = {
    now: () => clock.scheduler.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      delays.push(delay);
      const watch = (action: SchedulerAction<T>): SchedulerAction<T> =>
        Object.assign(Object.create(action) as SchedulerAction<T>, {
          schedule(nextState?: T, nextDelay = 0): Subscription {
            delays.push(nextDelay);
            return action.schedule(nextState, nextDelay);
          },
        });
      return clock.scheduler.schedule(
        function (this: SchedulerAction<T>, s?: T) {
          work.call(watch(this), s);
        },
        delay,
        state,
      );
    },
  };
  return { scheduler, delays };
}

function expectSoundDelays(delays: readonly number[]): void {
  expect(delays.filter((d) => Number.isNaN(d) || d < 0 || d > MAX_DELAY_MS)).toEqual([]);
}

/** Any legal backoff policy, from the smallest settings up. */
const policy: fc.Arbitrary<BackoffPolicy> = fc.oneof(
  fc
    .record(
      {
        initialBackoff: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5000, noNaN: true })),
        multiplier: fc.oneof(fc.constant(1), fc.double({ min: 1, max: 10, noNaN: true })),
        jitter: fc.double({ min: 0, max: 1, noNaN: true }),
        maxBackoff: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: undefined }),
      },
      { requiredKeys: [] },
    )
    .map(({ maxBackoff, ...rest }) =>
      grpcBackoff({
        ...rest,
        ...(maxBackoff === undefined ? {} : { maxBackoff: Math.max(maxBackoff, rest.initialBackoff ?? 1000) }),
      }),
    ),
  fc
    .record({
      initialDelay: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5000, noNaN: true })),
      multiplier: fc.oneof(fc.constant(1), fc.double({ min: 1, max: 10, noNaN: true })),
      jitter: fc.constantFrom(...JITTER_KINDS),
    })
    .map((o) => exponentialBackoff(o)),
  fc
    .oneof(fc.constant(0), fc.double({ min: 0, max: 5000, noNaN: true }), fc.constant(Infinity))
    .map((d) => constantBackoff(d)),
);

/** The default floor, or any legal explicit one. */
const spacing: fc.Arbitrary<AttemptSpacing | undefined> = fc.option(
  fc.record({ burst: fc.integer({ min: 1, max: 50 }), interval: fc.integer({ min: 1, max: 2000 }) }),
  { nil: undefined },
);

type Server = 'refuse' | 'refuse-later' | 'accept-drop' | 'close-clean' | 'black-hole' | 'hint-zero' | 'hint-huge';
const servers: readonly Server[] = [
  'refuse',
  'refuse-later',
  'accept-drop',
  'close-clean',
  'black-hole',
  'hint-zero',
  'hint-huge',
];

// CPU-bound work on virtual time, bounded by numRuns: about 7 s alone, over 30 s on a loaded 2-core machine in a
// full run. No wall-clock bound is checked, so a generous timeout only says how long the machine may take.
const PROPERTY_TIMEOUT_MS = 180_000;

const title = 'attempt rate against a server that always fails, for any legal configuration';
describe(title, { timeout: PROPERTY_TIMEOUT_MS }, () => {
  it('ConnectionManager: every policy and option; starts in any 10 s window <= maxStartsIn(floor); every timer sound', () => {
    fc.assert(
      fc.property(
        policy,
        spacing,
        fc.constantFrom(...servers),
        fc.record({
          minConnectTimeout: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30_000 })),
          minUptime: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10_000 })),
          reconnectSpread: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
        }),
        fc.array(fc.integer({ min: 0, max: RUN }), { maxLength: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (backoff, attemptSpacing, server, options, retryNowAt, r) => {
          const clock = createVirtualClock(0, { maxTimerFirings: 200_000 });
          const { scheduler, delays } = recording(clock);
          const starts: number[] = [];
          const manager = new ConnectionManager<string>({
            connector: () =>
              new Observable<string>((subscriber) => {
                starts.push(clock.now());
                switch (server) {
                  case 'refuse':
                    subscriber.error(new Error('ECONNREFUSED'));
                    return undefined;
                  case 'refuse-later':
                    return scheduler.schedule(() => {
                      subscriber.error(new Error('ECONNRESET'));
                    }, 5);
                  case 'accept-drop':
                    subscriber.next('up');
                    subscriber.error(new Error('dropped'));
                    return undefined;
                  case 'close-clean':
                    subscriber.complete();
                    return undefined;
                  case 'black-hole':
                    return undefined;
                  case 'hint-zero':
                    subscriber.error(retryAfter(new Error('503'), 0));
                    return undefined;
                  case 'hint-huge':
                    subscriber.error(retryAfter(new Error('503'), 1e30));
                    return undefined;
                }
              }),
            scheduler,
            backoff,
            random: () => r,
            ...options,
            ...(attemptSpacing === undefined ? {} : { attemptSpacing }),
          });
          manager.connect();
          // "Retry now" pressed at arbitrary moments, up to 100 times in the run.
          for (const t of [...retryNowAt].sort((a, b) => a - b).filter((t) => t <= RUN)) {
            clock.advanceTo(t);
            manager.resetBackoff();
          }
          clock.advanceTo(RUN);
          manager.shutdown();
          expect(clock.pendingTimers()).toBe(0);
          expect(busiestWindow(starts, WINDOW)).toBeLessThanOrEqual(
            maxStartsIn(attemptSpacing ?? DEFAULT_ATTEMPT_SPACING, WINDOW),
          );
          expectSoundDelays(delays);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('ReconnectingWebSocket: any delay options, down to 0; any failing server', () => {
    fc.assert(
      fc.property(
        fc.record({
          minReconnectionDelay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
          reconnectionDelayGrowFactor: fc.oneof(fc.constant(1), fc.double({ min: 1, max: 4, noNaN: true })),
          reconnectionDelayJitter: fc.double({ min: 0, max: 1, noNaN: true }),
          connectionTimeout: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
          minUptime: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10_000 })),
        }),
        fc.constantFrom('refuse', 'open-close', 'close-1013', 'never-open'),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (options, server, r) => {
          const clock = createVirtualClock(0, { maxTimerFirings: 200_000 });
          const { scheduler, delays } = recording(clock);
          const fake = fakeWebSocketClass();
          const socket = new ReconnectingWebSocket('ws://example.test/', undefined, {
            WebSocket: fake.WebSocket,
            scheduler,
            random: () => r,
            environment: new FakeEnvironment(),
            maxReconnectionDelay: Math.max(options.minReconnectionDelay, 10_000),
            ...options,
          });
          const starts: number[] = [];
          const handled = new Set<unknown>();
          for (let i = 0; i < 20_000; i++) {
            // Answer every new socket at once, as the server does (a new one may open synchronously).
            for (
              let last = fake.sockets.at(-1);
              last !== undefined && !handled.has(last) && starts.length < RUNAWAY;
              last = fake.sockets.at(-1)
            ) {
              handled.add(last);
              starts.push(clock.now());
              if (server === 'refuse') last.fail();
              else if (server === 'open-close') {
                last.open();
                last.finish(1006, '', false);
              } else if (server === 'close-1013') {
                last.open();
                last.finish(1013, 'retry-after=0', true);
              }
            }
            const next = clock.scheduler.actions[0];
            if (next === undefined || next.delay > RUN) break;
            clock.advanceTo(next.delay);
          }
          socket.close();
          expect(busiestWindow(starts, WINDOW)).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, WINDOW));
          expectSoundDelays(delays);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('retry(): any policy, maxAttempts Infinity, any hint from a server that answers 503 or UNAVAILABLE forever', async () => {
    await fc.assert(
      fc.asyncProperty(
        policy,
        fc.oneof(
          fc.constantFrom('0', '', 'Thu, 01 Jan 1970 00:00:00 GMT').map((v) => ({ kind: 'retry-after', value: v })),
          fc.stringMatching(/^\d{1,12}$/).map((v) => ({ kind: 'retry-after', value: v })),
          fc.stringMatching(/^\d{1,25}$/).map((v) => ({ kind: 'pushback', value: v })),
        ),
        fc.oneof(fc.constant(60_000), fc.integer({ min: 0, max: 600_000 })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (backoff, hint, maxRetryAfter, r) => {
          const clock = createVirtualClock(0, { maxTimerFirings: 200_000 });
          const { scheduler, delays } = recording(clock);
          const starts: number[] = [];
          const controller = new AbortController();
          /** The server: every request fails with the generated hint. */
          const unavailable = (): never => {
            starts.push(clock.now());
            if (starts.length >= RUNAWAY) controller.abort(new Error('runaway'));
            throw hint.kind === 'pushback'
              ? grpcError(14, { 'grpc-retry-pushback-ms': hint.value })
              : new HttpResponseError({ status: 503, headers: { 'retry-after': hint.value } });
          };
          const call = retry(unavailable, {
            scheduler,
            backoff,
            random: () => r,
            maxAttempts: Infinity,
            maxRetryAfter,
            signal: controller.signal,
          }).catch(() => undefined);
          for (let i = 0; i < 20_000 && starts.length < RUNAWAY; i++) {
            await flush(5);
            const next = clock.scheduler.actions[0];
            if (next === undefined || next.delay > RUN) break;
            clock.advanceTo(next.delay);
          }
          controller.abort(new Error('done'));
          await call;
          expect(clock.pendingTimers()).toBe(0);
          expect(busiestWindow(starts, WINDOW)).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, WINDOW));
          expectSoundDelays(delays);
        },
      ),
      { numRuns: 60 },
    );
  });
});
