/**
 * The simulator drives each peer by its own rules (where waits run from, connect timeouts), models a
 * server that stalls attempts over its budget, runs server-side herd control, and sums up seeds.
 */
import { describe, expect, it } from 'vitest';
import { constantBackoff } from '../../../src/backoff/constant-backoff.js';
import { grpcBackoff } from '../../../src/backoff/grpc-backoff.js';
import { STORM_POLICIES, stormPolicy } from '../../../src/tools/simulator/policies/policy-catalog.js';
import { simulateStorm } from '../../../src/tools/simulator/simulate-storm.js';
import type { StormPolicy } from '../../../src/tools/simulator/storm-policy.js';
import { STORM_SEEDS_COLUMNS, stormSeedsTable, summarizeSeeds } from '../../../src/tools/simulator/storm-seeds.js';

const peer = (measuredFrom: 'attempt-start' | 'failure', connectTimeout: number, wait = 1000): StormPolicy => ({
  name: `${measuredFrom}-${String(connectTimeout)}`,
  description: 'test peer',
  forClient: () => ({ rules: { measuredFrom, connectTimeout }, backoff: constantBackoff(wait) }),
});

/** `clients` lost at 0; the server is back at 0.5 s, takes one handshake a second and refuses or stalls the rest. */
const backAtHalfSecond = (policy: StormPolicy, clients: number, server: 'refuse' | 'stall') =>
  simulateStorm({ policy, clients, outage: 500, capacity: 1, server });

describe('peers by their own rules', () => {
  it('a failure-measured peer waits before its first attempt and after each failure', () => {
    // Lost at 0: attempts at 1, 2, 3 s (down until 2.5 s), accepted at 3 s.
    const r = simulateStorm({ policy: peer('failure', 4000), clients: 1, outage: 2500, capacity: 1 });
    expect(r.perSecond).toEqual([0, 1, 1, 1]);
    expect(r.reconnectedIn.p100).toBe(500);
  });

  it('an attempt-start peer redials at once and then every wait from the start of each attempt', () => {
    const r = simulateStorm({ policy: peer('attempt-start', 127_000), clients: 1, outage: 2500, capacity: 1 });
    expect(r.perSecond).toEqual([1, 1, 1, 1]);
  });

  it('a stalled attempt lasts the client’s own connect timeout; from-failure waits then add to it', () => {
    // 3 clients, 1 handshake/s, server back at 0.5 s. Attempts at 1 s (after the 1 s first wait):
    // one accepted, two stalled until 1 + 4 = 5 s, then wait 1 s: at 6 s, one accepted, one stalled to 10 s, next at 11 s.
    const r = backAtHalfSecond(peer('failure', 4000), 3, 'stall');
    expect(r.wasted).toBe(3);
    expect(r.reconnectedIn.p100).toBe(10_500);
    const refused = backAtHalfSecond(peer('failure', 4000), 3, 'refuse');
    expect(refused.reconnectedIn.p100).toBe(2500);
  });

  it('with a stalling server an attempt-start peer’s next attempt follows the timeout at once', () => {
    const r = backAtHalfSecond(peer('attempt-start', 4000), 2, 'stall');
    // At 0 both refused (down); at 1 s one accepted, one stalled until 5 s and retried at once: accepted.
    expect(r.reconnectedIn.p100).toBe(4500);
  });

  it('redialer clients under a stalling server are cut at max(deadline, 20 s)', () => {
    const redialer: StormPolicy = {
      name: 'r',
      description: 'r',
      forClient: () => ({ backoff: constantBackoff(1000) }),
    };
    const r = backAtHalfSecond(redialer, 2, 'stall');
    expect(r.reconnectedIn.p100).toBe(20_500);
  });

  it('reconnecting-websocket in one process moves in lockstep; as page loads it spreads', () => {
    const process = simulateStorm({
      policy: stormPolicy('reconnecting-websocket-process'),
      clients: 500,
      outage: 20_000,
      capacity: 100,
    });
    const pages = simulateStorm({
      policy: stormPolicy('reconnecting-websocket'),
      clients: 500,
      outage: 20_000,
      capacity: 100,
    });
    expect(process.peakPerSecond).toBe(500);
    expect(pages.peakPerSecond).toBeLessThan(250);
    expect(process.wasted).toBeGreaterThan(pages.wasted);
  });

  it('every built-in policy runs under both server models', () => {
    for (const policy of STORM_POLICIES) {
      for (const server of ['refuse', 'stall'] as const) {
        const r = simulateStorm({ policy, clients: 40, outage: 5000, capacity: 10, server, horizon: 300_000 });
        expect(r.server).toBe(server);
        expect(r.attempts).toBeGreaterThanOrEqual(40);
      }
    }
  });
});

describe('server-side herd control', () => {
  it('announce: every client comes back within 1.1 × N/C of the announced downtime, nothing wasted', () => {
    const exact = stormPolicy('redialer-grpc-exact');
    const r = simulateStorm({ policy: exact, clients: 2000, outage: 30_000, capacity: 200, serverHints: 'announce' });
    expect(r.wasted).toBeLessThanOrEqual(20);
    expect(r.reconnectedIn.p100).toBeLessThanOrEqual(1.1 * 10_000);
    expect(r.peakAfterReturn).toBeLessThanOrEqual(200 * 1.1);
  });

  it('admission: refused clients come back in their own slots, within capacity', () => {
    // Every client dials every 100 ms, so the gate must hand slots out.
    const eager: StormPolicy = {
      name: 'eager',
      description: 'eager',
      forClient: () => ({
        backoff: grpcBackoff({ initialBackoff: 100, multiplier: 1, maxBackoff: 60_000, jitter: 0 }),
        serverHints: 'exact',
      }),
    };
    const plain = simulateStorm({
      policy: { ...eager, forClient: () => ({ backoff: constantBackoff(100) }) },
      clients: 1000,
      outage: 5000,
      capacity: 100,
    });
    const gated = simulateStorm({
      policy: eager,
      clients: 1000,
      outage: 5000,
      capacity: 100,
      serverHints: 'admission',
    });
    expect(gated.reconnected).toBe(1000);
    expect(gated.wasted).toBeLessThan(plain.wasted / 5);
    // The slots handed out are spread at the capacity's pace.
    expect(gated.reconnectedIn.p100).toBeLessThanOrEqual(11_000);
  });

  it('rejects unknown server models and hint modes by name', () => {
    const policy = stormPolicy('redialer-grpc');
    expect(() => simulateStorm({ policy, server: 'drop' as never })).toThrow(/option "server" must be one of/);
    expect(() => simulateStorm({ policy, serverHints: 'yes' as never })).toThrow(/option "serverHints" must be one of/);
  });
});

describe('seeds', () => {
  it('reports mean and range over seeds', () => {
    const runs = [1, 2, 3].map((seed) =>
      simulateStorm({ policy: stormPolicy('full-jitter'), clients: 300, outage: 5000, capacity: 40, seed }),
    );
    const s = summarizeSeeds(runs);
    expect(s.seeds).toEqual([1, 2, 3]);
    const p100 = runs.map((r) => r.reconnectedIn.p100 ?? NaN);
    expect(s.p100).toEqual({
      mean: (p100[0]! + p100[1]! + p100[2]!) / 3,
      min: Math.min(...p100),
      max: Math.max(...p100),
    });
    const table = stormSeedsTable([s], { markdown: true });
    expect(table.split('\n')[0]).toBe(`| ${STORM_SEEDS_COLUMNS.join(' | ')} |`);
    expect(table).toMatch(/\| full-jitter \| [\d,]+( \[[\d,]+–[\d,]+\])? \|/);
  });

  it('does not mix scenarios', () => {
    const a = simulateStorm({ policy: stormPolicy('full-jitter'), clients: 10, outage: 1000, capacity: 5 });
    const b = simulateStorm({ policy: stormPolicy('full-jitter'), clients: 10, outage: 2000, capacity: 5 });
    expect(() => summarizeSeeds([a, b])).toThrow(/mixes scenarios/);
    expect(() => summarizeSeeds([])).toThrow(/at least one result/);
  });
});
