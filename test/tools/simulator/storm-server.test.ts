import { describe, expect, it } from 'vitest';
import { StormServer } from '../../../src/tools/simulator/storm-server.js';

describe('StormServer admission', () => {
  const server = (): StormServer => new StormServer({ downAt: 1000, upAt: 3000, capacity: 2 });

  it('accepts everything before the outage and nothing during it', () => {
    const s = server();
    expect([0, 999].map((t) => s.admit(t))).toEqual(['accepted', 'accepted']);
    expect([1000, 2000, 2999].map((t) => s.admit(t))).toEqual(['down', 'down', 'down']);
  });

  it('accepts at most `capacity` handshakes in each one-second window after the return', () => {
    const s = server();
    expect([3000, 3010, 3020, 3999].map((t) => s.admit(t))).toEqual(['accepted', 'accepted', 'refused', 'refused']);
    expect([4000, 4500, 4999].map((t) => s.admit(t))).toEqual(['accepted', 'accepted', 'refused']);
    expect(s.admit(7200)).toBe('accepted');
  });
});
