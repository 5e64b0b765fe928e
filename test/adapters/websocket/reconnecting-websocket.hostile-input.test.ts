/**
 * Hostile input to ReconnectingWebSocket: close codes and reasons fuzzed through the real path (never a
 * NaN, infinite or negative wait), and each option given a hostile value (a TypeError/RangeError naming it).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { isRetryAfterError } from '../../../src/index.js';
import { MAX_DELAY_MS } from '../../../src/core/index.js';
import { ReconnectingWebSocket, type ReconnectingWebSocketOptions } from '../../../src/adapters/websocket/index.js';
import { expectNamed, finiteIn, forEachHostileOption, hostileText } from '../../support/hostile-input.js';
import {
  FakeEnvironment,
  fakeWebSocketClass,
  virtualReconnectingWebSocket,
} from '../../support/websocket/fake-websocket.js';

describe('hostile server hints through the real paths: never a NaN, infinite or negative sleep', () => {
  it('WebSocket close reasons (1012/1013, any reason): the adapter waits a finite time within [minDelay, maxDelay], with one timer', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1012, 1013),
        hostileText,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (code, reason, r) => {
          const { clock, fake, socket } = virtualReconnectingWebSocket({
            random: () => r,
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
        const { clock, fake, socket } = virtualReconnectingWebSocket();
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
});

/**
 * Every option, fuzzed: a record keyed by the options type, so an option added to the type and not
 * here fails to compile.
 */
const RWS_OPTIONS = Object.keys({
  WebSocket: true,
  minReconnectionDelay: true,
  maxReconnectionDelay: true,
  reconnectionDelayGrowFactor: true,
  reconnectionDelayJitter: true,
  minUptime: true,
  backoffAfterLoss: true,
  connectionTimeout: true,
  maxRetries: true,
  serverHints: true,
  maxRetryAfter: true,
  maxEnqueuedMessages: true,
  maxEnqueuedBytes: true,
  dropOnClose: true,
  startClosed: true,
  debug: true,
  debugLogger: true,
  permanentCloseCodes: true,
  shouldReconnect: true,
  shouldReconnectOnClose: true,
  pauseWhileOffline: true,
  retryOnVisible: true,
  visibleRetryThreshold: true,
  heartbeat: true,
  environment: true,
  scheduler: true,
  random: true,
  trace: true,
  reconnectSpread: true,
  attemptSpacing: true,
  onUnhandledError: true,
} satisfies Record<keyof ReconnectingWebSocketOptions, true>);

describe('hostile adapter options: each bad value gets a TypeError/RangeError naming the option', () => {
  it('ReconnectingWebSocket: one hostile option at a time', () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined); // option "debug" may be true
    forEachHostileOption(RWS_OPTIONS, (key, value) => {
      const fake = fakeWebSocketClass();
      const base = { WebSocket: fake.WebSocket, startClosed: true, environment: new FakeEnvironment() };
      expectNamed(key, () => {
        new ReconnectingWebSocket('ws://example.test/', undefined, { ...base, [key]: value }).close();
      });
    });
    debug.mockRestore();
  });

  it('the check can fail: a known bad value of each option is rejected, naming it', () => {
    const fake = fakeWebSocketClass();
    expect(
      () => new ReconnectingWebSocket('ws://x/', undefined, { WebSocket: fake.WebSocket, maxEnqueuedBytes: -1 }),
    ).toThrow(/maxEnqueuedBytes/);
  });
});
