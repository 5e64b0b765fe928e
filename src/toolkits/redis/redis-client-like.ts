/**
 * The part of an ioredis client that `redialer/redis` uses, typed structurally so that redialer never
 * imports ioredis itself (an optional peer) and any ioredis ≥ 5 client — or a Cluster — fits.
 * @module
 */

/** An ioredis client (`new Redis(…)`), as far as a shared budget uses it. */
export interface RedisClientLike {
  /** ioredis's connection status; a budget talks to Redis only while it is `ready`. */
  readonly status: string;
  /** `EVALSHA sha numkeys key… arg…`. */
  evalsha(sha: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** `EVAL script numkeys key… arg…`. */
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
}
