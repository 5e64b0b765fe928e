import { describe, expect, it } from 'vitest';
import type { ConnectionSnapshot } from '../../../../src/index.js';
import { connectionAttemptEvents } from '../../../../src/toolkits/retry/metrics/connection-attempt-metrics.js';

const base = { since: 0, lastError: undefined };
const idle: ConnectionSnapshot = { ...base, state: 'IDLE', attempt: 0 };
const connecting = (attempt: number): ConnectionSnapshot => ({
  ...base,
  state: 'CONNECTING',
  attempt,
  timeoutAt: 20_000,
});
const failure = (attempt: number): ConnectionSnapshot => ({
  state: 'TRANSIENT_FAILURE',
  attempt,
  since: 100,
  nextAttemptAt: 1100,
  lastError: new Error('refused'),
});
const ready: ConnectionSnapshot = { ...base, state: 'READY', attempt: 2, connection: 'c' };
const shutdown = (reason: 'shutdown' | 'permanent-failure' | 'policy-error'): ConnectionSnapshot => ({
  ...base,
  state: 'SHUTDOWN',
  attempt: 1,
  reason,
  lastError: new Error('denied'),
});

describe('connectionAttemptEvents(): one row per state change', () => {
  it.each([
    ['IDLE -> CONNECTING', idle, connecting(1), [{ type: 'attempt', attempt: 1 }]],
    ['TRANSIENT_FAILURE -> CONNECTING (a retry)', failure(1), connecting(2), [{ type: 'attempt', attempt: 2 }]],
    [
      'CONNECTING -> TRANSIENT_FAILURE',
      connecting(1),
      failure(1),
      [{ type: 'retry', attempt: 1, delay: 1000, source: 'backoff', reason: 'Error: refused' }],
    ],
    ['CONNECTING -> READY', connecting(2), ready, [{ type: 'success', attempt: 2 }]],
    ['-> SHUTDOWN by the caller', connecting(1), shutdown('shutdown'), []],
    [
      '-> SHUTDOWN, permanent failure',
      connecting(1),
      shutdown('permanent-failure'),
      [{ type: 'permanent', reason: 'permanent failure: Error: denied' }],
    ],
    [
      '-> SHUTDOWN, policy error',
      connecting(1),
      shutdown('policy-error'),
      [{ type: 'permanent', reason: 'the backoff policy failed: Error: denied' }],
    ],
    ['READY -> READY (same state, new data)', ready, ready, []],
  ] as const)('%s', (_label, previous, next, expected) => {
    const events = connectionAttemptEvents(previous, next);
    expect(events).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(events[i]).toMatchObject(e);
    });
  });
});
