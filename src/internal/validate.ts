/**
 * Option validation shared by every public constructor. Each check names the option and the value
 * it rejected, so that a typo fails loudly at construction instead of misbehaving hours later.
 * @module
 */
import type { SchedulerLike } from 'rxjs';

/** Bounds for {@link checkNumber}. */
export interface NumberBounds {
  /** Smallest allowed value (inclusive). */
  readonly min?: number;
  /** Largest allowed value (inclusive). */
  readonly max?: number;
  /** Whether Infinity is accepted (it is never accepted as a lower bound). */
  readonly allowInfinity?: boolean;
  /** Whether the value must be a whole number. */
  readonly integer?: boolean;
}

/** Bounds of a count option: a whole number from 0, or Infinity for no limit. */
export const COUNT_BOUNDS: NumberBounds = Object.freeze({ min: 0, integer: true, allowInfinity: true });

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${String(value)}n`;
  if (typeof value === 'function') return 'a function';
  if (value === null) return 'null';
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return 'undefined';
}

function range(bounds: NumberBounds): string {
  const parts: string[] = [];
  if (bounds.min !== undefined) parts.push(`>= ${String(bounds.min)}`);
  if (bounds.max !== undefined) parts.push(`<= ${String(bounds.max)}`);
  const kind = bounds.integer === true ? 'an integer' : bounds.allowInfinity === true ? 'a number' : 'a finite number';
  return parts.length > 0 ? `${kind} ${parts.join(' and ')}` : kind;
}

/**
 * Returns `value` if it is a number within `bounds`, else throws a TypeError (not a number) or a
 * RangeError (NaN, infinite, out of range) that names `name` and the value.
 */
export function checkNumber(name: string, value: unknown, bounds: NumberBounds = {}): number {
  if (typeof value !== 'number') {
    throw new TypeError(`redialer: option "${name}" must be ${range(bounds)}, got ${describe(value)}`);
  }
  const infiniteOk = bounds.allowInfinity === true && value === Infinity;
  if (
    Number.isNaN(value) ||
    (!Number.isFinite(value) && !infiniteOk) ||
    (bounds.integer === true && !infiniteOk && !Number.isInteger(value)) ||
    (bounds.min !== undefined && value < bounds.min) ||
    (bounds.max !== undefined && value > bounds.max)
  ) {
    throw new RangeError(`redialer: option "${name}" must be ${range(bounds)}, got ${describe(value)}`);
  }
  return value;
}

/** Like {@link checkNumber}, but `undefined` yields `fallback`. */
export function optionalNumber(name: string, value: unknown, fallback: number, bounds: NumberBounds = {}): number {
  return value === undefined ? fallback : checkNumber(name, value, bounds);
}

/** Returns `value` if it is a boolean (or `fallback` when undefined), else throws a TypeError. */
export function optionalBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new TypeError(`redialer: option "${name}" must be a boolean, got ${describe(value)}`);
  }
  return value;
}

/** Returns `value` if it is a function (or `fallback` when undefined), else throws a TypeError. */
export function optionalFunction<F extends (...args: never[]) => unknown>(name: string, value: unknown, fallback: F): F;
export function optionalFunction<F extends (...args: never[]) => unknown>(
  name: string,
  value: unknown,
  fallback?: F,
): F | undefined;
export function optionalFunction<F extends (...args: never[]) => unknown>(
  name: string,
  value: unknown,
  fallback?: F,
): F | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') {
    throw new TypeError(`redialer: option "${name}" must be a function, got ${describe(value)}`);
  }
  return value as F;
}

/** Returns `value` if it is one of `choices` (or `fallback` when undefined), else throws a RangeError. */
export function optionalChoice<T extends string>(name: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    const list = choices.map((c) => JSON.stringify(c)).join(', ');
    const error = typeof value === 'string' ? RangeError : TypeError;
    throw new error(`redialer: option "${name}" must be one of ${list}, got ${describe(value)}`);
  }
  return value as T;
}

/** Throws a TypeError unless `value` is a plain options object (or undefined). */
export function checkOptionsObject(name: string, value: unknown): Readonly<Record<string, unknown>> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`redialer: ${name} must be an object, got ${describe(value)}`);
  }
  return value as Readonly<Record<string, unknown>>;
}

/** Returns `value` if it is a non-empty string, else throws a TypeError naming `name` and the value. */
export function checkText(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`redialer: option "${name}" must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

/** Returns `value` if it is an object (or `fallback` when undefined), else throws a TypeError. */
export function optionalObject<T extends object>(name: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`redialer: option "${name}" must be an object, got ${describe(value)}`);
  }
  return value as T;
}

/** Returns `value` if it is an array (of what `items` names), else throws a TypeError. */
export function checkArray(name: string, value: unknown, items: string): readonly unknown[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`redialer: option "${name}" must be an array of ${items}, got ${describe(value)}`);
  }
  return value;
}

/**
 * An option that plugs in an object (a port): `value` if it has the functions `methods`, `fallback`
 * when it is undefined; otherwise a TypeError naming the option, the methods and the value.
 */
export function optionalPort<T extends object>(
  name: string,
  value: unknown,
  methods: readonly string[],
  fallback: T,
): T;
export function optionalPort<T extends object>(
  name: string,
  value: unknown,
  methods: readonly string[],
  fallback?: T,
): T | undefined;
export function optionalPort<T extends object>(
  name: string,
  value: unknown,
  methods: readonly string[],
  fallback?: T,
): T | undefined {
  if (value === undefined) return fallback;
  if (!hasMethods(value, methods)) {
    throw new TypeError(
      `redialer: option "${name}" must be an object with ${methods.map((m) => `${m}()`).join(', ')}, got ${describe(value)}`,
    );
  }
  return value as T;
}

export { describe as describeValue };

/** A clock: the part of an RxJS scheduler that only reads the time. */
export type Clock = Pick<SchedulerLike, 'now'>;

/**
 * A `scheduler` option: `value` if it is an RxJS SchedulerLike (it has now() and schedule()),
 * `fallback` when it is undefined; otherwise a TypeError naming the option and the value.
 */
export function optionalScheduler(name: string, value: unknown, fallback: SchedulerLike): SchedulerLike {
  if (value === undefined) return fallback;
  if (!hasMethods(value, ['now', 'schedule'])) {
    throw new TypeError(
      `redialer: option "${name}" must be an RxJS SchedulerLike (with now() and schedule()), got ${describe(value)}`,
    );
  }
  return value as SchedulerLike;
}

/**
 * A `scheduler` option where null, like undefined, gives `fallback`: the result if it has schedule()
 * and now() (an object or a function), else a TypeError saying it must be an RxJS scheduler.
 */
export function schedulerOption(value: unknown, fallback: SchedulerLike): SchedulerLike {
  const scheduler = (value ?? fallback) as { readonly schedule?: unknown; readonly now?: unknown };
  if (typeof scheduler.schedule !== 'function' || typeof scheduler.now !== 'function') {
    throw new TypeError(`redialer: option "scheduler" must be an RxJS scheduler, got ${describe(scheduler)}`);
  }
  return scheduler as SchedulerLike;
}

/** Like {@link optionalScheduler}, for options that only read the time: `value` needs only now(). */
export function optionalClock(name: string, value: unknown, fallback: Clock): Clock {
  if (value === undefined) return fallback;
  if (!hasMethods(value, ['now'])) {
    throw new TypeError(
      `redialer: option "${name}" must be an RxJS SchedulerLike (with now()), got ${describe(value)}`,
    );
  }
  return value as Clock;
}

function hasMethods(value: unknown, names: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    names.every((key) => typeof (value as Record<string, unknown>)[key] === 'function')
  );
}
