/**
 * Cross-realm, cross-copy error brands. `instanceof` fails when two copies of redialer are installed
 * (or across realms), so every error carries a registered symbol that the `isX()` guards check.
 * @module
 */
import { readSafely } from './read-safely.js';

const symbols = new Map<string, symbol>();

/** The registered symbol `redialer.<name>`, looked up once per name (the checks run on every failure). */
function brandSymbol(name: string): symbol {
  let symbol = symbols.get(name);
  if (symbol === undefined) {
    symbol = Symbol.for(`redialer.${name}`);
    symbols.set(name, symbol);
  }
  return symbol;
}

/** Marks `error` with the registered brand `redialer.<name>`. */
export function brand(error: Error, name: string): void {
  Object.defineProperty(error, brandSymbol(name), { value: true });
}

/**
 * Whether `value` carries the brand `redialer.<name>`. A value whose property access throws (a Proxy,
 * a revoked Proxy) carries none.
 */
export function hasBrand(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && readSafely(value, brandSymbol(name)) === true;
}
