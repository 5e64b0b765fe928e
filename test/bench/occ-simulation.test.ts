import { describe, expect, it } from 'vitest';
import { constantBackoff } from '../../src/backoff/constant-backoff.js';
import { exponentialBackoff } from '../../src/backoff/exponential-backoff.js';
import { seededRandom } from '../../src/testing/seeded-random.js';
import { OccRow, runOcc } from '../../bench/aws/occ-simulation.js';
import { AWS_STRATEGIES } from '../../bench/aws/aws-strategies.js';
import { runAwsStudy } from '../../bench/aws/aws-study.js';

const fixedDelay = (): number => 10;

describe('the AWS optimistic-concurrency model', () => {
  it('a write succeeds only with the version it read, and then bumps it', () => {
    const row = new OccRow();
    expect(row.write(0)).toBe(true);
    expect(row.version).toBe(1);
    expect(row.write(0)).toBe(false);
    expect(row.write(1)).toBe(true);
    expect(row.version).toBe(2);
  });

  it('two clients, 10 ms per message, no backoff: 3 calls, done at 80 ms (worked by hand)', () => {
    // Both read version 0 (server at 10 ms), both write at 30 ms: A wins, B conflicts and hears at 40 ms,
    // re-reads (server 50 ms), writes (server 70 ms) and hears of its success at 80 ms.
    const writes: number[] = [];
    const r = runOcc({
      clients: 2,
      policy: constantBackoff(0),
      random: () => 0.5,
      delay: fixedDelay,
      onWrite: (t) => writes.push(t),
    });
    expect(r).toEqual({ calls: 3, conflicts: 1, completion: 80 });
    expect(writes).toEqual([30, 30, 70]);
  });

  it('the loser sleeps its backoff before the re-read (10 ms: done at 90 ms)', () => {
    const r = runOcc({
      clients: 2,
      policy: exponentialBackoff({ initialDelay: 10, maxDelay: 2000, jitter: 'none' }),
      random: () => 0.5,
      delay: fixedDelay,
    });
    expect(r).toEqual({ calls: 3, conflicts: 1, completion: 90 });
  });

  it('one client never conflicts', () => {
    expect(runOcc({ clients: 1, policy: constantBackoff(0), random: () => 0.5, delay: fixedDelay })).toEqual({
      calls: 1,
      conflicts: 0,
      completion: 40,
    });
  });

  it('every client eventually writes once: calls = N + conflicts', () => {
    for (const { policy } of AWS_STRATEGIES) {
      const r = runOcc({ clients: 25, policy, random: seededRandom(4), delay: () => 10 });
      expect(r.calls).toBe(25 + r.conflicts);
    }
  });

  it("uses the post's waits: 10, 20, 40 ms ... capped at 2 s for un-jittered backoff", () => {
    const expo = AWS_STRATEGIES.find((s) => s.name === 'exponential')!.policy;
    let step = expo.first(() => 0.5);
    const waits = [step.delay];
    for (let i = 0; i < 9; i++) {
      step = step.next(() => 0.5);
      waits.push(step.delay);
    }
    expect(waits).toEqual([10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000]);
    const decorrelated = AWS_STRATEGIES.find((s) => s.name === 'decorrelated jitter')!.policy;
    expect(decorrelated.first(() => 0).delay).toBe(5);
    expect(decorrelated.first(() => 1).delay).toBe(15);
  });

  it('a study is reproducible for a seed', () => {
    const run = () => runAwsStudy({ clients: [10, 20], runs: 3, seed: 5, seriesClients: 20 });
    const a = run();
    expect(a).toEqual(run());
    expect(a.points).toHaveLength(10);
    expect(Object.keys(a.series)).toHaveLength(5);
    expect(a.claims).toHaveLength(6);
  });
});
