/**
 * DNS names to several addresses for `happyEyeballs()` and `ManagedChannel`: `dns.lookup` with
 * `all: true`, ordered as RFC 8305 §4 says.
 * @module
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { type FamilyAddress, interleaveFamilies } from '../../connectors/interleave-families.js';
import { describeValue } from '../../internal/validate.js';

/** Options of {@link lookupAddresses}. */
export interface LookupAddressesOptions {
  /** How many addresses of the first family go before the first of the other (RFC 8305 §4). @defaultValue 1 */
  readonly firstFamilyCount?: number;
  /** The resolver. @defaultValue `dns.promises.lookup` */
  readonly lookup?: (hostname: string, options: { all: true; order: 'verbatim' }) => Promise<readonly FamilyAddress[]>;
}

/**
 * Every address `hostname` resolves to (the system resolver, like `net.connect`), in the resolver's
 * order with the IPv6 and IPv4 families interleaved. An IP literal resolves to itself.
 *
 * @example
 * ```ts
 * const addresses = await lookupAddresses('localhost');
 * const channel = new ManagedChannel(addresses.map((a) => hostPort(a.address, 50051)), credentials.createInsecure());
 * ```
 */
export async function lookupAddresses(
  hostname: string,
  options: LookupAddressesOptions = {},
): Promise<FamilyAddress[]> {
  if (typeof hostname !== 'string' || hostname === '') {
    throw new TypeError(`redialer: lookupAddresses() needs a host name, got ${describeValue(hostname)}`);
  }
  const lookup = options.lookup ?? ((name, o) => dnsLookup(name, o));
  const found = await lookup(hostname, { all: true, order: 'verbatim' });
  return interleaveFamilies(found, options.firstFamilyCount ?? 1);
}

/** `host:port`, with an IPv6 address in brackets, as gRPC targets and URLs need it. */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${String(port)}` : `${address}:${String(port)}`;
}
