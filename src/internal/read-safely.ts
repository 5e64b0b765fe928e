/**
 * Reading from values that someone else threw. An error may be a Proxy whose traps throw, a revoked
 * Proxy, or an object whose getters throw; redialer reads fields, brands and messages from errors on
 * every failure, so every such read goes through here and turns a throw into "absent".
 * @module
 */

/** `value[key]`, or undefined when `value` is not an object or the read throws. */
export function readSafely(value: unknown, key: PropertyKey): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * A one-line description of a thrown value for messages and traces: `Name: message` for an error,
 * the text of a primitive, and never a throw (a hostile value reads as `a hostile object`).
 */
export function describeSafely(value: unknown): string {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    const message = readSafely(value, 'message');
    if (typeof message === 'string') {
      const name = readSafely(value, 'name');
      return typeof name === 'string' && name !== '' ? `${name}: ${message}` : message;
    }
  }
  try {
    return String(value);
  } catch {
    return `a hostile ${typeof value}`;
  }
}
