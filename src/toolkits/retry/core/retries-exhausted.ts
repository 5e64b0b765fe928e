/**
 * The mark that stops retry amplification across layers: an error that one retry layer has already
 * given up on (or found permanent) carries it, and every retry layer treats a marked error as
 * permanent. Two layers of 3 attempts then make 3 attempts, not 9.
 * @module
 */
import { readSafely } from '../../../internal/read-safely.js';

const MARK = Symbol.for('redialer.RetriesExhausted');

/**
 * Marks `error` as having used up its retries and returns it. Primitives, frozen objects and hostile
 * Proxies cannot carry the mark and are returned unchanged.
 */
export function markRetriesExhausted<E>(error: E): E {
  if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
    try {
      if (Object.isExtensible(error) && !Object.hasOwn(error, MARK)) {
        Object.defineProperty(error, MARK, { value: true });
      }
    } catch {
      // A Proxy whose traps throw (or a revoked one) cannot carry the mark either.
    }
  }
  return error;
}

/** Whether a retry layer has already given up on `error` (from any copy of redialer). */
export function isRetriesExhausted(error: unknown): boolean {
  return readSafely(error, MARK) === true;
}
