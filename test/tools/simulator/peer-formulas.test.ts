import { describe, expect, it } from 'vitest';
import type { Backoff, BackoffPolicy } from '../../../src/backoff/backoff.js';
import { grpcBackoff } from '../../../src/backoff/grpc-backoff.js';
import { grpcJsPolicy } from '../../../src/tools/simulator/policies/grpc-js-policy.js';
import { socketIoDuration } from '../../../src/tools/simulator/policies/socket-io-policy.js';
import { reconnectingWebSocketPolicy } from '../../../src/tools/simulator/policies/reconnecting-websocket-policy.js';

function delays(policy: BackoffPolicy, random: () => number, n: number): number[] {
  const out: number[] = [];
  let step: Backoff = policy.first(random);
  for (let i = 0; i < n; i++) {
    out.push(step.delay);
    step = step.next(random);
  }
  return out;
}

describe('peer formula models', () => {
  it('grpc-js compounds its jitter; the gRPC spec (redialer) does not', () => {
    const high = (): number => 1; // always the top of the ±20 % band
    const js = delays(grpcJsPolicy.forClient(high).backoff, high, 3);
    expect(js[0]).toBe(1000);
    expect(js[1]).toBeCloseTo(1600 * 1.2, 9);
    expect(js[2]).toBeCloseTo(1600 * 1.2 * 1.6 * 1.2, 9);
    const spec = delays(grpcBackoff(), high, 3);
    expect(spec[2]).toBeCloseTo(2560 * 1.2, 9);
  });

  it('socket.io jitters before the cap, so from the fifth attempt everyone waits exactly 5 s', () => {
    for (const r of [0, 0.05, 0.1, 0.33, 0.5, 0.77, 0.99]) {
      expect(socketIoDuration(4, () => r)).toBe(5000);
      expect(socketIoDuration(9, () => r)).toBe(5000);
    }
    expect(socketIoDuration(0, () => 0.2)).toBe(900); // floor(2) even: 1000 - floor(0.2 × 0.5 × 1000)
    expect(socketIoDuration(0, () => 0.1)).toBe(1050); // floor(1) odd: 1000 + 50
  });

  it('reconnecting-websocket draws its first wait once per client in [1, 5] s and grows by 1.3 to 10 s', () => {
    const client = reconnectingWebSocketPolicy.forClient(() => 0.5);
    expect(client.rules).toEqual({ measuredFrom: 'failure', connectTimeout: 4000 });
    expect(delays(client.backoff, () => 0.5, 7).map((d) => Math.round(d))).toEqual([
      3000, 3900, 5070, 6591, 8568, 10_000, 10_000,
    ]);
  });
});
