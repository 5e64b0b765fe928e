import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/testing/seeded-random.js';
import { EventQueue } from '../../bench/support/event-queue.js';
import { idleShare, logLogSlope } from '../../bench/support/fit.js';
import { absNormal } from '../../bench/support/normal-delay.js';
import { spliceResults, spliceSections, START, END } from '../../bench/report/render-markdown.js';

describe('bench support', () => {
  it('the event queue pops by time, then in insertion order', () => {
    const q = new EventQueue();
    const log: string[] = [];
    for (const [t, name] of [
      [5, 'a'],
      [1, 'b'],
      [5, 'c'],
      [3, 'd'],
      [1, 'e'],
      [0, 'f'],
    ] as const)
      q.push(t, () => log.push(name));
    for (let e = q.pop(); e !== undefined; e = q.pop()) e.event();
    expect(log).toEqual(['f', 'b', 'e', 'd', 'a', 'c']);
  });

  it('|Normal(10, 2)| has the right mean and spread', () => {
    const draw = absNormal(seededRandom(11), 10, 2);
    const xs = Array.from({ length: 20_000 }, draw);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    expect(mean).toBeCloseTo(10, 1);
    expect(sd).toBeCloseTo(2, 1);
    expect(xs.every((x) => x >= 0)).toBe(true);
  });

  it('fits exponents and measures idle time', () => {
    expect(logLogSlope([1, 2, 4, 8], [3, 12, 48, 192])).toBeCloseTo(2, 9);
    expect(idleShare([0, 5, 35, 40], 10)).toBeCloseTo(0.5, 9); // slots [0,10) and [30,40] used of 4
  });

  it('replaces only the generated block of BENCHMARKS.md', () => {
    const doc = `# B\n\nintro\n\n${START}\nold\n${END}\n\n## analysis\nkept\n`;
    expect(spliceResults(doc, 'new')).toBe(`# B\n\nintro\n\n${START}\nnew\n${END}\n\n## analysis\nkept\n`);
    expect(spliceResults('# B\n', 'x')).toBe(`# B\n\n${START}\nx\n${END}\n`);
  });

  it('a partial run replaces only its own sections of the generated block', () => {
    const doc = `# B\n\n${START}\nMeasured then.\n\n### 1. A\n\nold a\n\n### 2. B\n\nold b\n#### B.1\nold b1\n\n### 3. C\n\nold c\n\n${END}\n\n## kept\n`;
    const out = spliceSections(doc, ['### 2. B\n\nnew b', '### 3. C\n\nnew c']);
    expect(out).toBe(
      `# B\n\n${START}\nMeasured then.\n\n### 1. A\n\nold a\n\n### 2. B\n\nnew b\n\n### 3. C\n\nnew c\n\n${END}\n\n## kept\n`,
    );
    expect(() => spliceSections(doc, ['### 9. Z\n'])).toThrow(/no section 9/);
  });
});
