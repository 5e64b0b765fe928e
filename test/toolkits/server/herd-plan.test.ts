/** The pure plans of server-side herd control: drain hints and the admission gate's slots. */
import { describe, expect, it } from 'vitest';
import { AdmissionGate, drainHint } from '../../../src/toolkits/server/herd-plan.js';

describe('drainHint', () => {
  it('is the expected downtime plus U(0, 1.1 × N/C)', () => {
    const plan = { expectedDowntime: 30_000, clients: 10_000, capacity: 1000 };
    expect(drainHint(plan, () => 0)).toBe(30_000);
    expect(drainHint(plan, () => 0.5)).toBeCloseTo(35_500, 9);
    expect(drainHint(plan, () => 1)).toBeCloseTo(41_000, 9);
  });
});

describe('AdmissionGate', () => {
  it('admits `capacity` per one-second window and gives each refusal its own slot, 1/C apart', () => {
    const gate = new AdmissionGate(2);
    expect([gate.admit(100), gate.admit(200)]).toEqual([{ admitted: true }, { admitted: true }]);
    expect(gate.admit(300)).toEqual({ admitted: false, retryAfter: 700 }); // slot 1000
    expect(gate.admit(400)).toEqual({ admitted: false, retryAfter: 1100 }); // slot 1500
    expect(gate.admit(500)).toEqual({ admitted: false, retryAfter: 1500 }); // slot 2000
    expect(gate.queued).toBe(3);
  });

  it('keeps handed-out slots for their holders: a newcomer is refused when the rest of the window is promised', () => {
    const gate = new AdmissionGate(2);
    gate.admit(0);
    gate.admit(0);
    gate.admit(10); // slot 1000
    gate.admit(20); // slot 1500
    // At 1000 the first holder comes: admitted. A newcomer at 1200 finds the 1500 slot promised: refused.
    expect(gate.admit(1000)).toEqual({ admitted: true });
    expect(gate.admit(1200)).toEqual({ admitted: false, retryAfter: 2000 - 1200 });
    expect(gate.admit(1500)).toEqual({ admitted: true });
    expect(gate.queued).toBe(1);
  });

  it('never admits more than the capacity in a window, whatever arrives', () => {
    const gate = new AdmissionGate(50);
    const admitted = new Map<number, number>();
    let t = 0;
    for (let i = 0; i < 20_000; i += 1) {
      t += 0.37;
      if (gate.admit(t).admitted) admitted.set(Math.floor(t / 1000), (admitted.get(Math.floor(t / 1000)) ?? 0) + 1);
    }
    expect(Math.max(...admitted.values())).toBeLessThanOrEqual(50);
  });

  it('rejects a bad capacity by name', () => {
    expect(() => new AdmissionGate(0)).toThrow(/"capacity"/);
    expect(() => new AdmissionGate(1.5)).toThrow(/"capacity"/);
  });
});
