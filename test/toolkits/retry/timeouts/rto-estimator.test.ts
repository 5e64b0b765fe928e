import { describe, expect, it } from 'vitest';
import { constantBackoff } from '../../../../src/index.js';
import { RtoTracker, retry, rtoEstimator } from '../../../../src/toolkits/retry/index.js';
import { createVirtualClock } from '../../../../src/testing/index.js';
import { drive } from '../support.js';

// Every figure below is worked by hand from RFC 6298 sections 2 and 5 (K = 4, alpha = 1/8, beta = 1/4).
describe('RFC 6298 arithmetic', () => {
  it('(2.1) RTO is 1 s before the first measurement', () => {
    const e = rtoEstimator();
    expect([e.srtt, e.rttvar, e.rto]).toEqual([undefined, undefined, 1000]);
  });

  it('(2.2) first measurement R = 2000: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, K·RTTVAR)', () => {
    const e = rtoEstimator().sample(2000);
    // SRTT 2000, RTTVAR 1000, RTO = 2000 + max(1, 4 × 1000) = 6000.
    expect([e.srtt, e.rttvar, e.rto]).toEqual([2000, 1000, 6000]);
  });

  it('(2.3) RTTVAR is updated with the old SRTT before SRTT is updated', () => {
    const e = rtoEstimator().sample(2000).sample(1000);
    // RTTVAR = 3/4 × 1000 + 1/4 × |2000 − 1000| = 750 + 250 = 1000
    // SRTT   = 7/8 × 2000 + 1/8 × 1000 = 1750 + 125 = 1875
    // RTO    = 1875 + 4 × 1000 = 5875
    expect([e.srtt, e.rttvar, e.rto]).toEqual([1875, 1000, 5875]);
    // Updating SRTT first would give RTTVAR = 750 + 1/4 × |1875 − 1000| = 968.75 and RTO = 5750.
    expect(e.rto).not.toBe(5750);
  });

  it('(2.3) a third measurement', () => {
    const e = rtoEstimator().sample(2000).sample(1000).sample(3000);
    // RTTVAR = 3/4 × 1000 + 1/4 × |1875 − 3000| = 750 + 281.25 = 1031.25
    // SRTT   = 7/8 × 1875 + 1/8 × 3000 = 1640.625 + 375 = 2015.625
    // RTO    = 2015.625 + 4 × 1031.25 = 6140.625
    expect([e.srtt, e.rttvar, e.rto]).toEqual([2015.625, 1031.25, 6140.625]);
  });

  it('(2.4) an RTO below 1 s is rounded up to 1 s', () => {
    // R = 10: SRTT 10, RTTVAR 5, RTO = 10 + 20 = 30 -> 1000.
    expect(rtoEstimator().sample(10).rto).toBe(1000);
  });

  it('G: RTO = SRTT + max(G, K·RTTVAR) when the variation is below the clock granularity', () => {
    // R = 100 with G = 5000: 100 + max(5000, 200) = 5100.
    expect(rtoEstimator({ granularity: 5000 }).sample(100).rto).toBe(5100);
    // Constant RTTs drive RTTVAR towards 0; G keeps RTO above SRTT.
    let e = rtoEstimator({ minRto: 0, granularity: 10 });
    for (let i = 0; i < 200; i++) e = e.sample(500);
    expect(e.rto).toBeCloseTo(510, 6);
  });

  it('(5.5) each expiry doubles RTO ("back off the timer"), up to the 60 s cap (2.5)', () => {
    let e = rtoEstimator().sample(2000).sample(1000).sample(3000); // 6140.625
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      e = e.timeout();
      seen.push(e.rto);
    }
    expect(seen).toEqual([12281.25, 24562.5, 49125, 60000, 60000]);
    expect(e.backoffs).toBe(5);
    expect(rtoEstimator().timeout().timeout().rto).toBe(4000);
  });

  it("Karn's rule: a retransmitted sample is ignored and the backed-off RTO stays; a clean sample collapses it", () => {
    const backedOff = rtoEstimator().sample(2000).sample(1000).sample(3000).timeout().timeout().timeout().timeout();
    expect(backedOff.rto).toBe(60000);
    expect(backedOff.sample(2000, { retransmitted: true })).toBe(backedOff);
    const fresh = backedOff.sample(2000);
    // RTTVAR = 3/4 × 1031.25 + 1/4 × |2015.625 − 2000| = 773.4375 + 3.90625 = 777.34375
    // SRTT   = 7/8 × 2015.625 + 1/8 × 2000 = 1763.671875 + 250 = 2013.671875
    // RTO    = 2013.671875 + 4 × 777.34375 = 5123.046875
    expect([fresh.srtt, fresh.rttvar, fresh.rto, fresh.backoffs]).toEqual([2013.671875, 777.34375, 5123.046875, 0]);
  });

  it('the cap may be raised but never set below 60 s', () => {
    expect(() => rtoEstimator({ maxRto: 30_000 })).toThrow(/maxRto.*>= 60000.*30000/);
    expect(rtoEstimator({ maxRto: 120_000 }).sample(50_000).rto).toBe(120_000);
    expect(() => rtoEstimator().sample(-1)).toThrow(/rtt/);
    expect(() => rtoEstimator().sample(Number.NaN)).toThrow(/rtt/);
  });
});

describe('RtoTracker as an adaptive per-attempt timeout', () => {
  it('cuts attempts at the current RTO, doubles it on each cut, and learns from the success', async () => {
    const clock = createVirtualClock();
    const tracker = new RtoTracker();
    const starts: number[] = [];
    let n = 0;
    const promise = retry(
      ({ signal }) => {
        starts.push(clock.now());
        n++;
        // Two hung attempts; the third answers after 1500 ms.
        return new Promise<string>((resolve) => {
          if (n < 3) return;
          const timer = clock.scheduler.schedule(() => {
            resolve('ok');
          }, 1500);
          signal.addEventListener('abort', () => {
            timer.unsubscribe();
          });
        });
      },
      { scheduler: clock.scheduler, attemptTimeout: tracker, backoff: constantBackoff(0), maxAttempts: 3 },
    );
    const outcome = await drive(clock, promise);
    // Attempt 1 cut at 1000 (RTO 1 s), attempt 2 cut after 2000 (doubled), attempt 3 given 4000 and answers after 1500.
    expect(starts).toEqual([0, 1000, 3000]);
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'ok', at: 4500 });
    // First valid sample R = 1500: SRTT 1500, RTTVAR 750, RTO = 1500 + 3000 = 4500.
    expect(tracker.estimate).toMatchObject({ srtt: 1500, rttvar: 750, rto: 4500, backoffs: 0 });
  });
});
