import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createStormClock } from '../../src/simulator/storm-clock.js';
import { seededRandom } from '../../src/simulator/seeded-random.js';

function order(scheduler: VirtualTimeScheduler, flush: () => void): string[] {
  const random = seededRandom(3);
  const log: string[] = [];
  const cancelled: { unsubscribe(): void }[] = [];
  for (let i = 0; i < 200; i++) {
    const delay = Math.floor(random() * 20);
    const sub = scheduler.schedule(() => {
      log.push(`${String(i)}@${String(scheduler.now())}`);
      if (i % 7 === 0) scheduler.schedule(() => log.push(`${String(i)}'@${String(scheduler.now())}`), Math.floor(random() * 5));
    }, delay);
    if (i % 5 === 0) cancelled.push(sub);
  }
  for (const sub of cancelled) sub.unsubscribe();
  flush();
  return log;
}

describe('the storm clock', () => {
  it('runs actions in the same order as the stock VirtualTimeScheduler', () => {
    const stock = new VirtualTimeScheduler();
    const clock = createStormClock();
    const expected = order(stock, () => { stock.flush(); });
    expect(expected.length).toBeGreaterThan(150);
    expect(order(clock.scheduler, () => { clock.advanceTo(1000); })).toEqual(expected);
  });
});
