/**
 * The Lua scripts of the shared budgets: one round trip per sync adds a process's local counts to the
 * fleet's and returns the fleet's totals. Times come from Redis (`TIME`), never from the processes'
 * clocks, and both keys of a budget share one hash tag so that a Redis Cluster keeps them on one slot.
 * @module
 */
import { createHash } from 'node:crypto';
import type { RedisClientLike } from './redis-client-like.js';

/** A Lua script and its SHA-1, run with EVALSHA and loaded with EVAL when Redis does not know it. */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Shared by both scripts: register this process (ARGV[1]) in the members set (KEYS[2]) at Redis time,
// drop members silent for longer than the member TTL, and count the rest.
const MEMBERS = `
local function members(now, ttl)
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  return redis.call('ZCARD', KEYS[2])
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
if redis.replicate_commands then redis.replicate_commands() end
`;

/**
 * The ratio budget. KEYS: counts hash, members set. ARGV: member id, attempts delta, retries delta,
 * window ms, buckets, member TTL ms. The counts live in `buckets` fixed slices of the window (fields
 * `a:<slice>` and `r:<slice>`); slices older than the window are deleted. Returns
 * `{ attempts, retries, members }` over the window.
 */
export const RATIO_SYNC = script(`${MEMBERS}
local now = now_ms()
local window = tonumber(ARGV[4])
local buckets = tonumber(ARGV[5])
local width = math.max(1, math.floor(window / buckets))
local current = math.floor(now / width)
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', KEYS[1], 'a:' .. current, ARGV[2]) end
if tonumber(ARGV[3]) > 0 then redis.call('HINCRBY', KEYS[1], 'r:' .. current, ARGV[3]) end
local oldest = current - buckets + 1
local attempts, retries = 0, 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local slice = tonumber(string.sub(fields[i], 3))
  if slice == nil or slice < oldest then
    redis.call('HDEL', KEYS[1], fields[i])
  elseif string.sub(fields[i], 1, 1) == 'a' then
    attempts = attempts + tonumber(fields[i + 1])
  else
    retries = retries + tonumber(fields[i + 1])
  end
end
redis.call('PEXPIRE', KEYS[1], window + width)
return { attempts, retries, members(now, tonumber(ARGV[6])) }
`);

/**
 * The gRFC A6 token bucket, in thousandths of a token. KEYS: state hash, members set. ARGV: member
 * id, failures, credit (successes × tokenRatio, thousandths), max (thousandths), member TTL ms, idle
 * TTL ms. The bucket starts full and is forgotten (full again) after the idle TTL. Returns
 * `{ tokens, members }`.
 */
export const TOKEN_BUCKET_SYNC = script(`${MEMBERS}
local now = now_ms()
local max = tonumber(ARGV[4])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or max)
tokens = math.max(0, tokens - 1000 * tonumber(ARGV[2]))
tokens = math.min(max, tokens + tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'tokens', tokens)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
return { tokens, members(now, tonumber(ARGV[5])) }
`);

/** Runs `lua` with EVALSHA, loading it with EVAL when Redis answers NOSCRIPT (after a restart or a flush). */
export async function runScript(
  redis: RedisClientLike,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(lua.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!String((error as { message?: unknown } | null)?.message).startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua.source, keys.length, ...keys, ...args);
  }
}
