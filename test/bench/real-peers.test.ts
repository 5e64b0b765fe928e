import { describe, expect, it } from 'vitest';
import type { Backoff } from '../../src/backoff/backoff.js';
import { grpcJsPolicy } from '../../src/simulator/policies/grpc-js-policy.js';
import { partysocketPolicy, reconnectingWebSocketPolicy } from '../../src/simulator/policies/reconnecting-websocket-policy.js';
import { signalrPolicy } from '../../src/simulator/policies/signalr-policy.js';
import { socketIoPolicy } from '../../src/simulator/policies/socket-io-policy.js';
import { seededRandom } from '../../src/simulator/seeded-random.js';
import type { StormPolicy } from '../../src/simulator/storm-policy.js';
import { grpcJsReal } from '../../bench/peers/grpc-js-real.js';
import { partysocketReal, reconnectingWebSocketReal } from '../../bench/peers/reconnecting-websocket-real.js';
import { signalrReal } from '../../bench/peers/signalr-real.js';
import { socketIoReal } from '../../bench/peers/socket-io-real.js';

/** The first wait and the next `n` waits of one client, with its own seeded random source. */
function waits(policy: StormPolicy, seed: number, n = 14): number[] {
  const random = seededRandom(seed);
  const client = policy.forClient(random);
  const out = [client.firstAttemptDelay ?? 0];
  let step: Backoff = client.backoff.first(random);
  for (let i = 0; i < n; i++) {
    out.push(step.delay);
    step = step.next(random);
  }
  return out;
}

describe.each([
  ['grpc-js', grpcJsPolicy, grpcJsReal],
  ['reconnecting-websocket', reconnectingWebSocketPolicy, reconnectingWebSocketReal],
  ['partysocket', partysocketPolicy, partysocketReal],
  ['socket.io', socketIoPolicy, socketIoReal],
  ['signalr', signalrPolicy, signalrReal],
])('the %s formula model', (_name, model, real) => {
  it('yields the same waits as the library’s own code for the same random numbers', () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      const expected = waits(real, seed);
      const actual = waits(model, seed);
      expect(actual).toHaveLength(expected.length);
      actual.forEach((value, i) => {
        expect(value).toBeCloseTo(expected[i]!, 6);
      });
    }
  });
});

describe('the real grpc-js adapter', () => {
  it('restarts from 1 s after a reset (the subchannel resets its backoff on READY)', () => {
    const random = seededRandom(9);
    const policy = grpcJsReal.forClient(random).backoff;
    const a = policy.first(random);
    expect(a.delay).toBe(1000);
    expect(a.next(random).delay).not.toBe(1000);
    expect(policy.first(random).delay).toBe(1000);
  });
});
