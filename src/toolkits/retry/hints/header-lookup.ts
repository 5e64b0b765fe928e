/**
 * Reads one header from the shapes that carry headers in browsers and Node, without importing either:
 * a fetch `Response` or `Headers`, a Node `IncomingMessage` (or anything with a `headers` object), a
 * `Map`, or a plain object with case-insensitive keys.
 * @module
 */

/** Where a header is read from: an object with `headers` (an error or a response), anything with a `get(name)` like fetch's Headers, or a plain record. */
export type HeaderSource =
  | { readonly headers: unknown }
  | {
      /** The value of header `name` (any case), as `Headers.get` returns it. */
      get(name: string): unknown;
    }
  | Readonly<Record<string, unknown>>;

function fromValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    // A repeated field is read the way fetch's Headers reads it: the values joined by ", ".
    const parts = value.filter((v): v is string => typeof v === 'string');
    return parts.length === value.length && parts.length > 0 ? parts.join(', ') : undefined;
  }
  return undefined;
}

/**
 * The value of header `name` in `source`, or undefined when it is absent or not text. A field sent
 * more than once reads as its values joined by ", " (as fetch's `Headers.get` does).
 */
export function readHeader(source: unknown, name: string, depth = 0): string | undefined {
  try {
    return lookup(source, name, depth);
  } catch {
    // A source whose property access throws (a Proxy, a revoked Proxy) carries no header.
    return undefined;
  }
}

function lookup(source: unknown, name: string, depth: number): string | undefined {
  if (typeof source !== 'object' || source === null || depth > 2) return undefined;
  const lower = name.toLowerCase();
  const getter = (source as { get?: unknown }).get;
  if (typeof getter === 'function') {
    try {
      const value = fromValue((getter as (key: string) => unknown).call(source, lower));
      if (value !== undefined) return value;
    } catch {
      // A getter that rejects the name (for example a strict metadata map) has no such header.
    }
  }
  if ('headers' in source) {
    return readHeader(source.headers, name, depth + 1);
  }
  if (typeof getter === 'function') return undefined;
  for (const key of Object.keys(source)) {
    if (key.toLowerCase() === lower) return fromValue((source as Record<string, unknown>)[key]);
  }
  return undefined;
}
