/** examples/email-queue runs as a program against a real redis-server, as its README line says. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, skipWithoutRedis, startRedisServer } from '../support/redis-server.js';

const run = promisify(execFile);
const skip = skipWithoutRedis('examples/email-queue');
const main = fileURLToPath(new URL('../../examples/email-queue/main.mjs', import.meta.url));

describe.skipIf(skip)('examples/email-queue', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('sends every valid email through the providers that work, and dead-letters the two invalid ones', async () => {
    const { stdout } = await run(process.execPath, [main], {
      env: { ...process.env, REDIS_SOCKET: redis.socket },
      timeout: 60_000,
    });
    const summary = stdout.slice(stdout.indexOf('Summary'));
    console.log(summary);
    expect(summary).toMatch(/emails: 24 queued, 22 sent, 2 dead-lettered/);
    const sentBy = /sent by: throttled (\d+), down (\d+), slow (\d+)/.exec(summary)!;
    expect(Number(sentBy[1]) + Number(sentBy[3])).toBe(22);
    expect(Number(sentBy[2])).toBe(0);
    // The provider that is down was tried, refused, and its breaker opened (or is probing again).
    expect(summary).toMatch(/provider down: \d+ calls: 0 sent, 0 × 429, [1-9]\d* refused.*breaker (open|half-open)/);
    expect(summary).toMatch(/provider throttled: \d+ calls: \d+ sent, [1-4] × 429/);
    expect(summary).toMatch(/retry budget: shared/);
    // idempotency: 'never' with the email's id as idempotencyKey: an email cut at its attempt timeout
    // (and then delivered by the slow provider) is retried only there, which tells the repeat by its key.
    expect(summary).toMatch(/delivered twice: 0$/m);
    const dead =
      summary.match(
        /dead letter: (mail-\d+) to (\S+) after 1 attempt\(s\): POST http:\/\/127\.0\.0\.1:\d+\/send answered 400/g,
      ) ?? [];
    expect(dead.map((line) => /to (\S+)/.exec(line)![1]).sort()).toEqual([
      'nobody17@example.invalid',
      'nobody4@example.invalid',
    ]);
  }, 90_000);
});
