/**
 * Cross-realm, cross-copy error brands. `instanceof` fails when two copies of redialer are installed
 * (or across realms), so every error carries a registered symbol that the `isX()` guards check.
 * @module
 */
import { readSafely } from './read-safely.js';

/** Marks `error` with the registered brand `redialer.<name>`. */
export function brand(error: Error, name: string): void {
  Object.defineProperty(error, Symbol.for(`redialer.${name}`), { value: true });
}

/**
 * Whether `value` carries the brand `redialer.<name>`. A value whose property access throws (a Proxy,
 * a revoked Proxy) carries none.
 */
export function hasBrand(value: unknown, name: string): boolean {
  return typeof value === 'object' && readSafely(value, Symbol.for(`redialer.${name}`)) === true;
}
