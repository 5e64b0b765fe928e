/**
 * One source of truth: the formula models shipped in `redialer/simulator` (what the command line runs)
 * against the peers' own code (what the benchmark runs), under the same names and rules. Compared the
 * ways policies are driven: whole storms through the simulator, and a ConnectionManager that calls
 * `first()` several times per cycle over two loss-and-reconnect cycles (a peer whose reset does not
 * reset fails here).
 */
import { describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../src/core/connection-manager.js';
import { STORM_POLICIES } from '../../src/tools/simulator/policies/policy-catalog.js';
import { seededRandom } from '../../src/testing/seeded-random.js';
import { simulateStorm } from '../../src/tools/simulator/simulate-storm.js';
import type { StormPolicy } from '../../src/tools/simulator/storm-policy.js';
import { createFakeConnector, createVirtualClock } from '../../src/testing/index.js';
import { BENCH_POLICIES, REAL_PEERS } from '../../bench/peers/real-peer-policies.js';
import { grpcJsReal } from '../../bench/peers/grpc-js-real.js';

const model = (name: string): StormPolicy => {
  const found = STORM_POLICIES.find((p) => p.name === name);
  if (found === undefined) throw new Error(`no model named ${name}`);
  return found;
};

/** Attempt start times of one client over two cycles: connect, lose after 10 s, 6 failures, connect, lose, 6 failures. */
function managerStarts(policy: StormPolicy, seed: number): number[] {
  const clock = createVirtualClock();
  const random = seededRandom(seed);
  const client = (policy.forRun?.(random) ?? ((r: () => number) => policy.forClient(r)))(random);
  const starts: number[] = [];
  let n = 0;
  const fake = createFakeConnector((attempt) => {
    starts.push(clock.now());
    n += 1;
    if (n === 1 || n === 8) attempt.establish('c');
    else attempt.fail(new Error('refused'));
  });
  const manager = new ConnectionManager({
    connector: fake.connector,
    backoff: client.backoff,
    scheduler: clock.scheduler,
    random,
  });
  manager.connect();
  clock.advanceBy(10_000);
  fake.attempts[0]?.fail(new Error('lost'));
  clock.advanceBy(1_000_000);
  fake.attempts[7]?.fail(new Error('lost'));
  clock.advanceBy(1_000_000);
  manager.shutdown();
  return starts;
}

describe.each(REAL_PEERS.map((real) => [real.name, model(real.name), real] as const))(
  'the %s formula model',
  (_name, formula, real) => {
    it('has the same rules as the benchmark’s real code', () => {
      const random = seededRandom(1);
      expect(real.forClient(random).rules).toEqual(formula.forClient(random).rules);
      expect(real.description.startsWith(formula.description)).toBe(true);
    });

    it('gives the same storm as the library’s own code, refused or stalled, for several seeds', () => {
      for (const seed of [1, 2, 3]) {
        for (const server of ['refuse', 'stall'] as const) {
          const options = { clients: 150, outage: 25_000, capacity: 15, seed, server, horizon: 400_000 };
          const expected = simulateStorm({ policy: real, ...options });
          const actual = simulateStorm({ policy: formula, ...options });
          expect({ ...actual, description: '' }).toEqual({ ...expected, description: '' });
        }
      }
    });

    it('gives the same waits when a manager drives it over two reconnect cycles', () => {
      for (const seed of [1, 42]) {
        const expected = managerStarts(real, seed);
        const actual = managerStarts(formula, seed);
        expect(actual.length).toBe(expected.length);
        actual.forEach((t, i) => {
          expect(t, `attempt ${String(i + 1)}`).toBeCloseTo(expected[i] ?? NaN, 6);
        });
      }
    });
  },
);

describe('the benchmark’s contestants', () => {
  it('are the shipped catalog, in its order, with each peer replaced by its real code', () => {
    expect(BENCH_POLICIES.map((p) => p.name)).toEqual(STORM_POLICIES.map((p) => p.name));
    for (const real of REAL_PEERS) expect(BENCH_POLICIES).toContain(real);
  });

  it('restart grpc-js from 1 s after a reset (the subchannel resets its backoff on READY)', () => {
    const random = seededRandom(9);
    const policy = grpcJsReal.forClient(random).backoff;
    const a = policy.first(random);
    expect(a.delay).toBe(1000);
    expect(a.next(random).delay).not.toBe(1000);
    expect(policy.first(random).delay).toBe(1000);
  });
});
