/**
 * The resumable-stream contract (core/resume-cursor.ts), rule by rule: where an open resumes from,
 * which items are new, what a refusal does, and that a refusal of an open without a cursor is none.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CannotResumeError } from '../../src/errors/cannot-resume-error.js';
import { isCannotResumeError, ResumeCursor } from '../../src/index.js';

const ordered = { isAfter: (a: number, b: number) => a > b };

/** Feeds `items` (undefined: an item without a cursor) to one open; the ones delivered. */
function deliver(cursor: ResumeCursor<number>, items: readonly (number | undefined)[]): (number | undefined)[] {
  cursor.open();
  return items.filter((item) => cursor.accept(item));
}

describe('ResumeCursor: where an open resumes from', () => {
  it('the first open starts from the initial cursor, or from the beginning without one', () => {
    expect(new ResumeCursor<number>({ initial: 7 }).open()).toBe(7);
    expect(new ResumeCursor<number>().open()).toBeUndefined();
  });

  it('each later open starts from the cursor of the last item delivered', () => {
    const cursor = new ResumeCursor<number>();
    deliver(cursor, [1, 2, undefined, 3]);
    expect(cursor.current).toBe(3);
    expect(cursor.open()).toBe(3);
  });

  it('an item without a cursor leaves the position where it is', () => {
    const cursor = new ResumeCursor<number>({ initial: 4 });
    expect(deliver(cursor, [undefined])).toEqual([undefined]);
    expect(cursor.current).toBe(4);
  });
});

describe('ResumeCursor: replays are dropped only with an order', () => {
  it('without isAfter every item is new and moves the position, even backwards', () => {
    const cursor = new ResumeCursor<number>({ initial: 5 });
    expect(deliver(cursor, [3, 4, 5, 6])).toEqual([3, 4, 5, 6]);
    expect(cursor.current).toBe(6);
  });

  it('with isAfter, items at or before the position are dropped and leave it', () => {
    const cursor = new ResumeCursor<number>({ initial: 5, ...ordered });
    expect(deliver(cursor, [4, 5, 6, 7])).toEqual([6, 7]);
    expect(cursor.current).toBe(7);
  });

  it('items without a cursor that follow a replay are replays too, until a new item', () => {
    const cursor = new ResumeCursor<number>({ initial: 5, ...ordered });
    expect(deliver(cursor, [undefined, 4, undefined, 5, undefined, 6, undefined])).toEqual([undefined, 6, undefined]);
  });

  it('a new open is not a replay until an item says so', () => {
    const cursor = new ResumeCursor<number>({ initial: 5, ...ordered });
    expect(deliver(cursor, [5, undefined])).toEqual([]);
    expect(deliver(cursor, [undefined, 6])).toEqual([undefined, 6]);
  });

  it('the first item after a start from the beginning is new whatever its cursor', () => {
    const cursor = new ResumeCursor<number>(ordered);
    expect(deliver(cursor, [9, 1, 10])).toEqual([9, 10]);
  });

  it('across any cuts and inclusive replays, each item is delivered once and in order', () => {
    // A server with the log 1..n that, on each resume after k, replays from k - back; the stream is cut anywhere.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 4 })), { maxLength: 12 }),
        (n, cuts) => {
          const cursor = new ResumeCursor<number>(ordered);
          const delivered: number[] = [];
          let opens = 0;
          while (opens <= cuts.length) {
            const [length, back] = cuts[opens] ?? [Infinity, 0];
            opens += 1;
            const from = cursor.open() ?? 0;
            const sent = [];
            for (let seq = Math.max(1, from - back); seq <= n && sent.length < length; seq++) sent.push(seq);
            for (const seq of sent) if (cursor.accept(seq)) delivered.push(seq);
          }
          expect(delivered).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        },
      ),
    );
  });
});

describe('ResumeCursor: a refusal to resume', () => {
  it('is signalled on resync$ with the cursor refused and the answer as cause, and forgets the position', () => {
    const cursor = new ResumeCursor<number>(ordered);
    const seen: CannotResumeError<number>[] = [];
    cursor.resync$.subscribe((error) => seen.push(error));
    deliver(cursor, [1, 2]);
    const from = cursor.open();
    const answer = new Error('compacted');
    const error = cursor.refuse(from, answer);
    expect(error).toBeInstanceOf(CannotResumeError);
    expect(seen).toEqual([error]);
    expect(error?.cursor).toBe(2);
    expect(error?.cause).toBe(answer);
    expect(error?.message).toBe(
      'the server cannot resume the stream from its cursor 2; it restarts from the beginning: compacted',
    );
    expect(cursor.current).toBeUndefined();
    expect(cursor.open()).toBeUndefined();
  });

  it('of an open without a cursor is none: nothing signalled, the result undefined', () => {
    const cursor = new ResumeCursor<number>();
    const seen: unknown[] = [];
    cursor.resync$.subscribe((error) => seen.push(error));
    expect(cursor.refuse(cursor.open(), new Error('out of range'))).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('ends a replay: the restart from the beginning delivers from its first item', () => {
    const cursor = new ResumeCursor<number>({ initial: 5, ...ordered });
    cursor.open();
    expect(cursor.accept(3)).toBe(false);
    cursor.refuse(5, 'gone');
    expect(deliver(cursor, [undefined, 1, 2])).toEqual([undefined, 1, 2]);
  });

  it('names a cursor that is a string or a number, not an object', () => {
    expect(new CannotResumeError('abc').message).toBe(
      'the server cannot resume the stream from its cursor "abc"; it restarts from the beginning',
    );
    expect(new CannotResumeError({ revision: 3 }).message).toBe(
      'the server cannot resume the stream from its cursor; it restarts from the beginning',
    );
  });

  it('is branded: the guard knows it across copies, and nothing else', () => {
    expect(isCannotResumeError(new CannotResumeError(1))).toBe(true);
    expect(isCannotResumeError(new Error('x'))).toBe(false);
    expect(isCannotResumeError({ name: 'CannotResumeError' })).toBe(false);
    expect(new CannotResumeError(1).name).toBe('CannotResumeError');
  });
});

describe('ResumeCursor: reset and the end', () => {
  it('reset() forgets the position without a signal', () => {
    const cursor = new ResumeCursor<number>({ initial: 3 });
    const seen: unknown[] = [];
    cursor.resync$.subscribe((error) => seen.push(error));
    cursor.reset();
    expect(cursor.open()).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('complete() completes resync$', () => {
    const cursor = new ResumeCursor<number>();
    let completed = false;
    cursor.resync$.subscribe({ complete: () => (completed = true) });
    cursor.complete();
    expect(completed).toBe(true);
  });
});
