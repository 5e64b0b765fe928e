/**
 * RFC 8305 §4 address ordering: alternate the address families so that one unreachable family costs
 * one stagger, not a whole list.
 * @module
 */

/** An address with its IP family, as `dns.lookup({ all: true })` returns them. */
export interface FamilyAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/**
 * Reorders `addresses` as RFC 8305 §4 says: the first `firstFamilyCount` addresses of the family of
 * the first address, then one of the other family, then alternate; the order within each family is
 * kept. gRFC A61 flattens endpoint addresses the same way.
 *
 * @example
 * ```ts
 * interleaveFamilies([
 *   { address: '2001:db8::1', family: 6 }, { address: '2001:db8::2', family: 6 },
 *   { address: '192.0.2.1', family: 4 },
 * ]); // 2001:db8::1, 192.0.2.1, 2001:db8::2
 * ```
 */
export function interleaveFamilies<A extends FamilyAddress>(addresses: readonly A[], firstFamilyCount = 1): A[] {
  if (!Number.isInteger(firstFamilyCount) || firstFamilyCount < 1) {
    throw new RangeError(
      `redialer: option "firstFamilyCount" must be an integer >= 1, got ${String(firstFamilyCount)}`,
    );
  }
  const first = addresses[0];
  if (first === undefined) return [];
  const preferred = addresses.filter((a) => a.family === first.family);
  const others = addresses.filter((a) => a.family !== first.family);
  const out: A[] = preferred.splice(0, firstFamilyCount);
  while (preferred.length > 0 || others.length > 0) {
    const other = others.shift();
    if (other !== undefined) out.push(other);
    const next = preferred.shift();
    if (next !== undefined) out.push(next);
  }
  return out;
}
