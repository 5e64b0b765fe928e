/**
 * Hostile input shared by the option and server-hint fuzz tests: any value an option might be given,
 * hostile strings shaped like server hints, and the two outcomes a construction may have (it works,
 * or it throws a TypeError/RangeError whose message names the option).
 */
import fc from 'fast-check';
import { expect } from 'vitest';

export const anything = fc.oneof(
  fc.anything(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, -1, 2 ** 31, 1e308, Number.MIN_VALUE, '', '10', null, true),
  fc.double(),
);

/** Accepts a construction that either succeeds or fails with a message naming the option. */
export function expectCleanOutcome(make: () => unknown): void {
  try {
    make();
  } catch (error) {
    expect(error).toSatisfy((e: unknown) => e instanceof TypeError || e instanceof RangeError);
    expect((error as Error).message).toMatch(/^redialer: /);
  }
}

/** Hostile strings: any text, numbers in every notation, huge digit runs, and server-hint lookalikes. */
export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^\d{1,400}(\.\d{0,5})?$/),
  fc.constantFrom(
    '-1',
    '-0',
    '0',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e309',
    '1e-7',
    '0x10',
    ' 5 ',
    '5, 6',
    '9'.repeat(330),
    '1.5',
    '+3',
    '',
  ),
  fc.double().map(String),
  fc
    .tuple(
      fc.constantFrom('retry-after=', 'Retry-After: ', 'retry after ', ''),
      fc.oneof(fc.double().map(String), fc.stringMatching(/^\d{1,40}$/)),
      fc.constantFrom('', 'ms', 's', 'h'),
    )
    .map(([a, b, c]) => a + b + c),
);

export const finiteIn = (ms: number, min: number, max: number): boolean =>
  Number.isFinite(ms) && ms >= min && ms <= max;

/** Accepts a construction that succeeds, or fails with a TypeError/RangeError that names `option`. */
export function expectNamed(option: string, make: () => unknown): void {
  try {
    make();
  } catch (error) {
    expect(error).toSatisfy((e: unknown) => e instanceof TypeError || e instanceof RangeError);
    expect((error as Error).message).toMatch(/^redialer: /);
    expect((error as Error).message).toContain(option);
  }
}

/** Runs `check` on one hostile value for one of `options` at a time, 2,000 times. */
export function forEachHostileOption<K extends string>(
  options: readonly K[],
  check: (option: K, value: unknown) => void,
): void {
  fc.assert(fc.property(fc.constantFrom(...options), anything, check), { numRuns: 2000 });
}
