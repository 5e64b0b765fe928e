import { describe, expect, it } from 'vitest';
import { formatDuration, formatIn } from '../../src/internal/format-duration.js';

describe('formatDuration(): a duration as a person reads it', () => {
  it.each([
    ['under 1 s: whole ms', 340, '340 ms'],
    ['under 1 s: rounded, no float noise', 340.499755859375, '340 ms'],
    ['0', 0, '0 ms'],
    ['under half a ms: 0 ms', 0.4, '0 ms'],
    ['-0: 0 ms', -0, '0 ms'],
    ['negative: 0 ms', -1, '0 ms'],
    ['-Infinity: 0 ms', -Infinity, '0 ms'],
    ['the last whole ms', 999.4, '999 ms'],
    ['999.6 rounds up to the next step: 1 s', 999.6, '1 s'],
    ['under 10 s: one decimal', 1640.499755859375, '1.6 s'],
    ['under 10 s: a trailing .0 dropped', 2000, '2 s'],
    ['under 10 s: rounded to the tenth', 4283.13427734375, '4.3 s'],
    ['the last tenth', 9949, '9.9 s'],
    ['9999 rounds up to the next step: 10 s', 9999, '10 s'],
    ['under 1 min: whole seconds', 24_400, '24 s'],
    ['the last whole second', 59_499, '59 s'],
    ['59 999.5 rounds up to the next step: 1 min', 59_999.5, '1 min'],
    ['under 1 h: minutes and seconds', 125_000, '2 min 5 s'],
    ['under 1 h: " 0 s" dropped', 120_000, '2 min'],
    ['the last second under 1 h', 3_599_000, '59 min 59 s'],
    ['3 600 000: 1 h', 3_600_000, '1 h'],
    ['from 1 h: hours and minutes', 3_780_000, '1 h 3 min'],
    ['from 1 h: rounded to the minute', 3_809_000, '1 h 3 min'],
    ['the longest timer (2^31 - 1 ms)', 2 ** 31 - 1, '596 h 31 min'],
    ['Infinity: for ever', Infinity, 'for ever'],
    ['NaN: never "NaN ms"', NaN, 'an unknown time'],
  ])('%s: %d → %j', (_, ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('formatIn(): when, from now', () => {
  it.each([
    ['a wait ahead', 1640.5, 'in 1.6 s'],
    ['under a second', 340, 'in 340 ms'],
    ['over: now', -1, 'now'],
    ['0: now', 0, 'now'],
    ['shown as 0 ms: now', 0.4, 'now'],
    ['Infinity: never', Infinity, 'never'],
    ['NaN', NaN, 'in an unknown time'],
  ])('%s: %d → %j', (_, ms, expected) => {
    expect(formatIn(ms)).toBe(expected);
  });
});
