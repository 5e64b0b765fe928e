/** Thrown values that fight back: every read from them throws. */

/** An Error behind a Proxy whose traps all throw. */
export function trappingProxy(): unknown {
  const fail = (trap: string) => (): never => {
    throw new Error(`${trap} trap`);
  };
  return new Proxy(new Error('boom'), {
    get: fail('get'),
    has: fail('has'),
    getPrototypeOf: fail('getPrototypeOf'),
    ownKeys: fail('ownKeys'),
    getOwnPropertyDescriptor: fail('getOwnPropertyDescriptor'),
  });
}

/** An Error behind a revoked Proxy: every operation on it throws a TypeError. */
export function revokedProxy(): unknown {
  const revocable = Proxy.revocable(new Error('gone'), {});
  revocable.revoke();
  return revocable.proxy;
}

/** Both, named for `it.each`. */
export function hostileErrors(): [string, unknown][] {
  return [
    ['a Proxy whose traps throw', trappingProxy()],
    ['a revoked Proxy', revokedProxy()],
  ];
}
