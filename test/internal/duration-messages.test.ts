/**
 * The errors whose messages show a duration show it as people read it (formatDuration), while their
 * numeric fields keep the milliseconds as given.
 */
import { describe, expect, it } from 'vitest';
import { KeepaliveTimeoutError } from '../../src/adapters/grpc/keepalive-timeout-error.js';
import { IdleTimeoutError } from '../../src/adapters/sse/idle-timeout-error.js';
import { HeartbeatTimeoutError } from '../../src/adapters/websocket/heartbeat-timeout-error.js';
import { AllAddressesFailedError } from '../../src/connectors/all-addresses-failed-error.js';
import { ConnectTimeoutError } from '../../src/errors/connect-timeout-error.js';
import { RetryAfterError } from '../../src/errors/retry-after-error.js';
import { AttemptTimeoutError } from '../../src/toolkits/retry/timeouts/attempt-timeout-error.js';
import { DeadlineExceededError } from '../../src/toolkits/retry/timeouts/deadline-exceeded-error.js';

describe('messages with a duration', () => {
  it.each([
    [
      'ConnectTimeoutError',
      new ConnectTimeoutError(3, 20_000),
      'connection attempt 3 did not complete within 20 s',
      { timeout: 20_000 },
    ],
    [
      'RetryAfterError',
      new RetryAfterError(1640.499755859375, { cause: new Error('try again later') }),
      'the server asked to retry after 1.6 s: try again later',
      { delay: 1640.499755859375 },
    ],
    [
      'AllAddressesFailedError',
      new AllAddressesFailedError(
        [{ label: 'a', error: new Error('refused'), nextAttemptAt: 4283.1 }],
        4283.13427734375,
      ),
      'all 1 addresses failed (a: refused); next in 4.3 s',
      { delay: 4283.13427734375 },
    ],
    [
      'AllAddressesFailedError, due at once',
      new AllAddressesFailedError([{ label: 'a', error: undefined, nextAttemptAt: 0 }], 0),
      'all 1 addresses failed (a: backing off); next now',
      { delay: 0 },
    ],
    [
      'KeepaliveTimeoutError',
      new KeepaliveTimeoutError(20_000),
      'the server did not answer a keepalive PING within 20 s',
      { timeout: 20_000 },
    ],
    [
      'IdleTimeoutError',
      new IdleTimeoutError(45_000),
      'the event stream sent nothing for 45 s (idleTimeout): reconnecting',
      { silence: 45_000 },
    ],
    [
      'HeartbeatTimeoutError',
      new HeartbeatTimeoutError(340.2),
      'the WebSocket sent nothing for 340 ms (heartbeat timeout): closed with code 4000',
      { silence: 340.2 },
    ],
    [
      'AttemptTimeoutError',
      new AttemptTimeoutError(2, 125_000),
      'attempt 2 did not complete within 2 min 5 s',
      { timeout: 125_000 },
    ],
    [
      'DeadlineExceededError',
      new DeadlineExceededError(3_780_000, 4),
      "the call's deadline of 1 h 3 min was reached after 4 attempts",
      { deadline: 3_780_000 },
    ],
  ])('%s', (_, error, message, fields) => {
    expect(error.message).toBe(message);
    expect(error).toMatchObject(fields);
  });
});
