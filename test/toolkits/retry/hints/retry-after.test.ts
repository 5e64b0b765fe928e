import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS } from '../../../../src/core/index.js';
import { parseRetryAfter, readRetryAfter } from '../../../../src/toolkits/retry/index.js';
import { parseHttpDate } from '../../../../src/toolkits/retry/hints/retry-after.js';

// The RFC 9110 example instant, and a clock 37 s before it.
const EXAMPLE = Date.UTC(1994, 10, 6, 8, 49, 37);
const BEFORE = EXAMPLE - 37_000;

describe('Retry-After delay-seconds (RFC 9110 §10.2.3)', () => {
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['1', 1000],
    ['007', 7000],
    [' 5 ', 5000],
  ])('%j waits %i ms', (value, ms) => {
    expect(parseRetryAfter(value, BEFORE)).toBe(ms);
  });

  it.each(['-1', '1.5', '+3', '1e3', '0x10', '', ' ', 'soon', '١٢', '5 s', '5,6'])(
    '%j is invalid and ignored',
    (value) => {
      expect(parseRetryAfter(value, BEFORE)).toBeUndefined();
    },
  );

  it('a delay too long for any timer is clamped, never Infinity', () => {
    expect(parseRetryAfter('9'.repeat(400), BEFORE)).toBe(MAX_DELAY_MS);
    expect(parseRetryAfter('3000000', BEFORE)).toBe(MAX_DELAY_MS);
  });
});

describe('Retry-After HTTP-date, all three forms (RFC 9110 §5.6.7)', () => {
  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['obsolete RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['ANSI C asctime', 'Sun Nov  6 08:49:37 1994'],
  ])('%s reads as the same instant', (_form, value) => {
    expect(parseHttpDate(value, BEFORE)).toBe(EXAMPLE);
    expect(parseRetryAfter(value, BEFORE)).toBe(37_000);
  });

  it('a date in the past means retry now (0), not a negative wait', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', EXAMPLE + 3_600_000)).toBe(0);
  });

  it('asctime with a two-digit day', () => {
    expect(parseHttpDate('Sun Nov 13 08:49:37 1994')).toBe(Date.UTC(1994, 10, 13, 8, 49, 37));
  });

  it.each([
    ['lower-case day name', 'sun, 06 Nov 1994 08:49:37 GMT'],
    ['lower-case month', 'Sun, 06 nov 1994 08:49:37 GMT'],
    ['not GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['one-digit day in IMF-fixdate', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['asctime day without its padding space', 'Sun Nov 6 08:49:37 1994'],
    ['31 February', 'Mon, 31 Feb 2025 00:00:00 GMT'],
    ['29 February of a common year', 'Sat, 29 Feb 2025 00:00:00 GMT'],
    ['29 February 2100 (not a leap year)', 'Mon, 29 Feb 2100 00:00:00 GMT'],
    ['hour 24', 'Wed, 01 Jan 2025 24:00:00 GMT'],
    ['minute 60', 'Wed, 01 Jan 2025 23:60:00 GMT'],
    ['day 00', 'Wed, 00 Jan 2025 10:00:00 GMT'],
    ['ISO 8601', '2025-01-01T00:00:00Z'],
    ['two dates joined by a repeated field', 'Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT'],
  ])('%s is invalid', (_what, value) => {
    expect(parseHttpDate(value, BEFORE)).toBeUndefined();
    expect(parseRetryAfter(value, BEFORE)).toBeUndefined();
  });

  it('29 February of leap years 2024 and 2000 is valid', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT')).toBe(Date.UTC(2024, 1, 29));
    expect(parseHttpDate('Tue, 29 Feb 2000 00:00:00 GMT')).toBe(Date.UTC(2000, 1, 29));
  });

  it('second 60 (a leap second) is allowed by the grammar and reads as the next second', () => {
    expect(parseHttpDate('Wed, 31 Dec 2025 23:59:60 GMT')).toBe(Date.UTC(2026, 0, 1, 0, 0, 0));
  });

  it('RFC 850 two-digit years: more than 50 years ahead means the most recent past such year', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(new Date(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now) ?? NaN).getUTCFullYear()).toBe(1994);
    expect(new Date(parseHttpDate('Monday, 06-Nov-76 08:49:37 GMT', now) ?? NaN).getUTCFullYear()).toBe(2076);
    expect(new Date(parseHttpDate('Saturday, 06-Nov-77 08:49:37 GMT', now) ?? NaN).getUTCFullYear()).toBe(1977);
    expect(new Date(parseHttpDate('Friday, 06-Nov-26 08:49:37 GMT', now) ?? NaN).getUTCFullYear()).toBe(2026);
  });
});

describe('reading Retry-After from the shapes that carry headers', () => {
  it('a fetch Response and its Headers', () => {
    const response = new Response(null, { status: 503, headers: { 'Retry-After': '3' } });
    expect(readRetryAfter(response, 0)).toBe(3000);
    expect(readRetryAfter(response.headers, 0)).toBe(3000);
  });

  it('a Node IncomingMessage-like object (lower-case keys in `headers`)', () => {
    expect(readRetryAfter({ statusCode: 429, headers: { 'retry-after': '4' } }, 0)).toBe(4000);
  });

  it('a plain header object, any case, string or number or one-element array', () => {
    expect(readRetryAfter({ 'Retry-After': '5' }, 0)).toBe(5000);
    expect(readRetryAfter({ 'RETRY-AFTER': 6 }, 0)).toBe(6000);
    expect(readRetryAfter({ 'retry-after': ['7'] }, 0)).toBe(7000);
  });

  it('a field sent twice is invalid (it is a singleton field), so the own backoff applies', () => {
    expect(readRetryAfter({ 'retry-after': ['7', '8'] }, 0)).toBeUndefined();
    const headers = new Headers();
    headers.append('Retry-After', '7');
    headers.append('Retry-After', '8');
    expect(readRetryAfter(headers, 0)).toBeUndefined();
  });

  it('absent or non-text values read as no hint', () => {
    expect(readRetryAfter({}, 0)).toBeUndefined();
    expect(readRetryAfter(new Headers(), 0)).toBeUndefined();
    expect(readRetryAfter({ 'retry-after': { toString: () => '5' } }, 0)).toBeUndefined();
    expect(readRetryAfter(null, 0)).toBeUndefined();
    expect(readRetryAfter('Retry-After: 5', 0)).toBeUndefined();
  });
});

describe('properties: hostile Retry-After values never yield a NaN, infinite or negative wait', () => {
  const finiteWait = (ms: number | undefined): boolean =>
    ms === undefined || (Number.isFinite(ms) && ms >= 0 && ms <= MAX_DELAY_MS);
  const now = fc.integer({ min: -8.64e15, max: 8.64e15 });

  it('any string, any clock', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), now, (value, at) =>
        finiteWait(parseRetryAfter(value, at)),
      ),
    );
  });

  it('any digit string, however long', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,400}$/), now, (value, at) => {
        const ms = parseRetryAfter(value, at);
        return ms !== undefined && finiteWait(ms);
      }),
    );
  });

  it('any well-formed IMF-fixdate, including far past and far future, and a NaN clock', () => {
    const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.constantFrom(...days),
        fc.integer({ min: 0, max: 99 }),
        fc.constantFrom(...months),
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.oneof(now, fc.constant(Number.NaN), fc.constant(Infinity)),
        (d, day, mon, year, h, m, s, at) =>
          finiteWait(parseRetryAfter(`${d}, ${pad(day)} ${mon} ${pad(year, 4)} ${pad(h)}:${pad(m)}:${pad(s)} GMT`, at)),
      ),
    );
  });
});
