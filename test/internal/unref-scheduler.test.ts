/**
 * The unref scheduler keeps every pending action in one queue behind one host timer. On the host's
 * timers faked (virtual time, no sleeping), it must behave like a host timer per action: each work
 * runs once, at or after its due time and never before, in due order with ties in scheduling order,
 * a cancelled or rescheduled action runs only as last scheduled, and nothing pending leaves no timer.
 */
import fc from 'fast-check';
import type { SchedulerAction, Subscription } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SLICE_MS, unrefScheduler } from '../../src/internal/unref-scheduler.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

type Op =
  | { readonly type: 'schedule'; readonly delay: number }
  | { readonly type: 'cancel'; readonly which: number }
  | { readonly type: 'reschedule'; readonly which: number; readonly delay: number }
  | { readonly type: 'advance'; readonly ms: number };

const delay = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constantFrom(0, 10, 10, 25));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ type: fc.constant('schedule' as const), delay }),
  fc.record({ type: fc.constant('cancel' as const), which: fc.nat() }),
  fc.record({ type: fc.constant('reschedule' as const), which: fc.nat(), delay }),
  fc.record({ type: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40 }) }),
);

describe('unrefScheduler', () => {
  it('runs every pending work once, at its due time, in due order with ties in scheduling order', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        interface Model {
          readonly id: number;
          dueAt: number;
          order: number;
          pending: boolean;
          action: SchedulerAction<number> | undefined;
          readonly subscription: Subscription;
        }
        const models: Model[] = [];
        const ran: { id: number; at: number; dueAt: number }[] = [];
        const expected: { id: number; dueAt: number; order: number }[] = [];
        let order = 0;
        const take = (): void => {
          // The model: what is due by now runs, earliest first, ties in scheduling order.
          const due = models
            .filter((m) => m.pending && m.dueAt <= Date.now())
            .sort((a, b) => a.dueAt - b.dueAt || a.order - b.order);
          for (const m of due) {
            m.pending = false;
            expected.push({ id: m.id, dueAt: m.dueAt, order: m.order });
          }
        };
        for (const o of ops) {
          if (o.type === 'schedule') {
            const id = models.length;
            const model: Model = {
              id,
              dueAt: Date.now() + o.delay,
              order: order++,
              pending: true,
              action: undefined,
              subscription: unrefScheduler.schedule(
                function (this: SchedulerAction<number>, state) {
                  model.action = this;
                  ran.push({ id: state ?? -1, at: Date.now(), dueAt: model.dueAt });
                },
                o.delay,
                id,
              ),
            };
            models.push(model);
          } else if (o.type === 'cancel' && models.length > 0) {
            const m = models[o.which % models.length];
            m?.subscription.unsubscribe();
            if (m !== undefined) m.pending = false;
          } else if (o.type === 'reschedule' && models.length > 0) {
            const m = models[o.which % models.length];
            // An action reschedules itself (as a manager's timer does) through its Subscription.
            if (m !== undefined && !m.subscription.closed) {
              (m.subscription as unknown as SchedulerAction<number>).schedule(m.id, o.delay);
              m.dueAt = Date.now() + o.delay;
              m.order = order++;
              m.pending = true;
            }
          } else if (o.type === 'advance') {
            // Step one ms at a time so that the model sees the same batches as the queue.
            for (let t = 0; t < o.ms; t++) {
              vi.advanceTimersByTime(1);
              take();
            }
          }
        }
        for (let t = 0; t < 200; t++) {
          vi.advanceTimersByTime(1);
          take();
        }
        expect(ran.map((r) => r.id)).toEqual(expected.map((e) => e.id));
        for (const r of ran) expect(r.at).toBeGreaterThanOrEqual(r.dueAt);
        // Nothing pending: no host timer left behind.
        expect(vi.getTimerCount()).toBe(0);
        for (const m of models) m.subscription.unsubscribe();
      }),
      { numRuns: 300 },
    );
  });

  it('holds one host timer however many actions wait', () => {
    const subscriptions = Array.from({ length: 1000 }, (_, i) => unrefScheduler.schedule(() => undefined, 10 + i));
    expect(vi.getTimerCount()).toBe(1);
    for (const s of subscriptions) s.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a work that throws does not hold back the works due with it', () => {
    const ran: string[] = [];
    unrefScheduler.schedule(() => {
      ran.push('a');
      throw new Error('boom');
    }, 5);
    unrefScheduler.schedule(() => {
      ran.push('b');
    }, 5);
    expect(() => vi.advanceTimersByTime(5)).toThrow('boom');
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an action scheduled from inside a work runs on a later turn, not in the same batch', () => {
    const ran: string[] = [];
    unrefScheduler.schedule(() => {
      ran.push('outer');
      unrefScheduler.schedule(() => {
        ran.push('inner');
      }, 0);
    }, 5);
    vi.advanceTimersByTime(5);
    expect(ran).toEqual(['outer']);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['outer', 'inner']);
  });

  describe('slices', () => {
    beforeEach(() => {
      vi.useRealTimers();
      vi.useFakeTimers({
        toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'],
        now: 1_000_000,
      });
    });

    afterEach(() => {
      vi.restoreAllMocks();
    });

    /** Each work "takes" `cost` ms on the slice's clock. */
    const costly = (cost: number): void => {
      let now = 0;
      vi.spyOn(performance, 'now').mockImplementation(() => (now += cost));
    };

    it(`one host callback runs due works for at most ${String(SLICE_MS)} ms, then yields; all run, in order`, () => {
      costly(1);
      const ran: number[] = [];
      for (let i = 0; i < 50; i++)
        unrefScheduler.schedule(() => {
          ran.push(i);
        }, 10);
      vi.advanceTimersByTime(9);
      expect(ran).toEqual([]);
      const immediates = vi.spyOn(globalThis, 'setImmediate');
      const timeouts = vi.spyOn(globalThis, 'setTimeout');
      const perCallback: number[] = [];
      while (ran.length < 50 && perCallback.length < 100) {
        const before = ran.length;
        vi.advanceTimersToNextTimer();
        perCallback.push(ran.length - before);
      }
      expect(ran).toEqual(Array.from({ length: 50 }, (_, i) => i));
      // The clock is read once before the batch and once after each work: SLICE_MS works per callback.
      expect(Math.max(...perCallback)).toBe(SLICE_MS);
      expect(perCallback.length).toBe(Math.ceil(50 / SLICE_MS));
      // Went on in the next turn (setImmediate), not a timer's delay later.
      expect(immediates).toHaveBeenCalledTimes(perCallback.length - 1);
      expect(timeouts).not.toHaveBeenCalled();
      expect(vi.getTimerCount()).toBe(0);
    });

    it('the continuation is cancelled when nothing is left to run, and a later work still runs at its time', () => {
      costly(10);
      const ran: string[] = [];
      unrefScheduler.schedule(() => {
        ran.push('a');
      }, 0);
      const b = unrefScheduler.schedule(() => {
        ran.push('b');
      }, 0);
      unrefScheduler.schedule(() => {
        ran.push('c');
      }, 20);
      vi.advanceTimersToNextTimer();
      expect(ran).toEqual(['a']);
      b.unsubscribe();
      vi.advanceTimersByTime(19);
      expect(ran).toEqual(['a']);
      vi.advanceTimersByTime(1);
      expect(ran).toEqual(['a', 'c']);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('works not yet due when a slice ends wait for their own time', () => {
      costly(10);
      const ran: string[] = [];
      unrefScheduler.schedule(() => {
        ran.push('a');
      }, 0);
      unrefScheduler.schedule(() => {
        ran.push('b');
      }, 30);
      vi.advanceTimersToNextTimer();
      expect(ran).toEqual(['a']);
      vi.advanceTimersByTime(29);
      expect(ran).toEqual(['a']);
      vi.advanceTimersByTime(1);
      expect(ran).toEqual(['a', 'b']);
    });
  });
});
