import { describe, expect, it } from 'vitest';
import { constantBackoff } from '../../../src/backoff/constant-backoff.js';
import { simulateStorm } from '../../../src/tools/simulator/simulate-storm.js';
import { partysocketPolicy } from '../../../src/tools/simulator/policies/reconnecting-websocket-policy.js';
import { fullJitterPolicy } from '../../../src/tools/simulator/policies/redialer-policies.js';
import { signalrPolicy } from '../../../src/tools/simulator/policies/signalr-policy.js';
import type { StormPolicy } from '../../../src/tools/simulator/storm-policy.js';

const everySecond: StormPolicy = {
  name: 'every-second',
  description: 'constant 1 s',
  forClient: () => ({ backoff: constantBackoff(1000) }),
};

describe('simulateStorm', () => {
  it('counts attempts, refusals over capacity and reconnection times (worked by hand)', () => {
    // 3 clients retry every second from the loss at t=0; the server returns at 2.5 s and takes 1 handshake/s.
    // t=0,1,2 s: 3 attempts each, all refused (down). Window [2.5 s, 3.5 s): at 3 s one accepted, two wasted.
    // Window [3.5, 4.5): at 4 s one accepted, one wasted. At 5 s the last one is accepted.
    const r = simulateStorm({ policy: everySecond, clients: 3, outage: 2500, capacity: 1 });
    expect(r.perSecond).toEqual([3, 3, 3, 3, 2, 1]);
    expect(r.attempts).toBe(15);
    expect(r.attemptsWhileDown).toBe(9);
    expect(r.wasted).toBe(3);
    expect(r.reconnected).toBe(3);
    expect(r.reconnectedIn).toEqual({ p50: 1500, p99: 2500, p100: 2500 });
    expect(r.attemptsPerClient).toEqual({ mean: 5, max: 6 });
    expect(r.peakPerSecond).toBe(3);
  });

  it('never accepts more than the capacity in a window', () => {
    // 50 clients retry on whole seconds; from 1 s the server takes 7 per second: 50, 43, ..., 1 try.
    const r = simulateStorm({ policy: everySecond, clients: 50, outage: 1000, capacity: 7 });
    expect(r.perSecond).toEqual([50, 50, 43, 36, 29, 22, 15, 8, 1]);
    expect(r.wasted).toBe(43 + 36 + 29 + 22 + 15 + 8 + 1);
    expect(r.reconnectedIn).toEqual({ p50: 3000, p99: 7000, p100: 7000 });
  });

  it('waits before the first attempt when the policy says so (partysocket: 3 s, then ×1.3)', () => {
    // Attempts at 3 s, 6.9 s (3 + 3.9) and 11.97 s (+ 5.07); the server is back at 10 s.
    const r = simulateStorm({ policy: partysocketPolicy, clients: 2, outage: 10_000, capacity: 10 });
    expect(r.attemptsPerClient).toEqual({ mean: 3, max: 3 });
    expect(r.reconnectedIn.p100).toBeCloseTo(1970, 6);
    expect(r.perSecond[3]).toBe(2);
    expect(r.perSecond[6]).toBe(2);
    expect(r.perSecond[11]).toBe(2);
  });

  it('reports clients that gave up as never reconnected (SignalR after 0, 2, 10, 30 s)', () => {
    const r = simulateStorm({ policy: signalrPolicy, clients: 4, outage: 60_000, capacity: 10, horizon: 30_000 });
    expect(r.attempts).toBe(16);
    expect(r.reconnected).toBe(0);
    expect(r.reconnectedIn).toEqual({ p50: null, p99: null, p100: null });
    expect([0, 2, 12, 42].map((s) => r.perSecond[s])).toEqual([4, 4, 4, 4]);
  });

  it('answers attempts after the latency; waits still run from the start of each attempt', () => {
    // Attempts start at 0, 1, 2, 3 s and are answered 100 ms later; the server is back at 2.5 s.
    const r = simulateStorm({ policy: everySecond, clients: 1, outage: 2500, capacity: 1, latency: 100 });
    expect(r.perSecond).toEqual([1, 1, 1, 1]);
    expect(r.attemptsWhileDown).toBe(3);
    expect(r.reconnectedIn.p100).toBe(600);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    const run = (seed: number) =>
      simulateStorm({ policy: fullJitterPolicy, clients: 300, outage: 5000, capacity: 40, seed });
    expect(run(7)).toEqual(run(7));
    expect(run(7).perSecond).not.toEqual(run(8).perSecond);
  });

  it('stops a policy that makes more attempts than maxAttempts instead of running on', () => {
    // The core's floor on attempt starts keeps a 0 ms policy to 5 at once, then one per 100 ms per client.
    const never: StormPolicy = {
      name: 'zero',
      description: '0 ms',
      forClient: () => ({ backoff: constantBackoff(0) }),
    };
    expect(() => simulateStorm({ policy: never, clients: 2, outage: 1000, capacity: 1, maxAttempts: 20 })).toThrow(
      /policy "zero" made more than 20 attempts \(option "maxAttempts"\)/,
    );
  });

  it('rejects bad options by name', () => {
    expect(() => simulateStorm({ policy: everySecond, clients: 0 })).toThrow(
      /option "clients" must be an integer >= 1/,
    );
    expect(() => simulateStorm({ policy: everySecond, capacity: 1.5 })).toThrow(/option "capacity"/);
    expect(() => simulateStorm({} as never)).toThrow(/option "policy" is required/);
  });
});
