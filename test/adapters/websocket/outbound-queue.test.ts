/** The outbound queue: FIFO, bounded by count and by bytes, refusing rather than evicting. */
import { describe, expect, it } from 'vitest';
import { OutboundQueue, messageBytes } from '../../../src/adapters/websocket/outbound-queue.js';

describe('messageBytes', () => {
  it.each<[string, string | ArrayBuffer | Uint8Array | Blob, number]>([
    ['ASCII', 'abc', 3],
    ['2-byte UTF-8', 'é', 2],
    ['3-byte UTF-8', '€', 3],
    ['surrogate pair', '😀', 4],
    ['lone surrogate (encoded as U+FFFD)', '\ud800', 3],
    ['ArrayBuffer', new ArrayBuffer(7), 7],
    ['typed array', new Uint8Array(5), 5],
    ['Blob', new Blob(['hello']), 5],
  ])('%s', (_label, data, bytes) => {
    expect(messageBytes(data)).toBe(bytes);
    if (typeof data === 'string') expect(new TextEncoder().encode(data).byteLength).toBe(bytes);
  });
});

describe('OutboundQueue', () => {
  it('is first in, first out, and tracks count and bytes', () => {
    const q = new OutboundQueue(10, 100);
    expect([q.offer('a'), q.offer('bb'), q.offer('ccc')]).toEqual([true, true, true]);
    expect([q.length, q.bytes]).toEqual([3, 6]);
    expect(q.shift()?.data).toBe('a');
    expect([q.length, q.bytes]).toEqual([2, 5]);
    expect(q.clear().map((m) => m.data)).toEqual(['bb', 'ccc']);
    expect([q.length, q.bytes]).toEqual([0, 0]);
  });

  it('refuses the newcomer at the count bound and keeps what it holds', () => {
    const q = new OutboundQueue(2, Infinity);
    expect([q.offer('1'), q.offer('2'), q.offer('3')]).toEqual([true, true, false]);
    expect(q.clear().map((m) => m.data)).toEqual(['1', '2']);
  });

  it('refuses the newcomer at the byte bound, but a smaller later message may still fit', () => {
    const q = new OutboundQueue(Infinity, 4);
    expect([q.offer('abc'), q.offer('de'), q.offer('f')]).toEqual([true, false, true]);
    expect(q.bytes).toBe(4);
  });

  it('with a bound of 0 refuses everything', () => {
    expect(new OutboundQueue(0, 100).offer('x')).toBe(false);
    expect(new OutboundQueue(10, 0).offer('x')).toBe(false);
  });
});
