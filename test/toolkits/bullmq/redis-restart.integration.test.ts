/**
 * Redis itself restarts under six BullMQ worker processes: three reconnect on redialer's jittered
 * schedule, three on BullMQ's own (no jitter). Every job still completes, once; the spread of the
 * reconnect times is measured for both.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, skipWithoutRedis, startRedisServer } from '../../support/redis-server.js';
import { type JobService, type WorkerProcess, spawnWorker, startJobService, until } from './support.js';

const skip = skipWithoutRedis('the Redis restart test');
const JOBS = 40;

describe.skipIf(skip)('Redis restarted under a fleet of workers', () => {
  let redis: RedisServer;
  let service: JobService;
  let queue: Queue;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = await startRedisServer({ persistent: true });
    service = await startJobService(() => ({ delay: 20 }));
    queue = new Queue('restart', { connection: { path: redis.socket, maxRetriesPerRequest: null } });
    queue.on('error', () => {
      // The outage is the point of the test; the queue reconnects by itself.
    });
    const spawnOne = (name: string, reconnect: 'redialer' | 'bullmq') =>
      spawnWorker({
        name,
        socket: redis.socket,
        queue: 'restart',
        service: service.url,
        reconnect,
        reconnectInitial: 200,
        // A job cut off by the outage is taken over soon after Redis is back.
        lockDuration: 2000,
        stalledInterval: 1000,
      });
    workers.push(...(await Promise.all([1, 2, 3].map((n) => spawnOne(`redialer-${String(n)}`, 'redialer')))));
    workers.push(...(await Promise.all([1, 2, 3].map((n) => spawnOne(`bullmq-${String(n)}`, 'bullmq')))));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await queue?.close();
    await service?.close();
    await redis?.dispose();
  }, 30_000);

  it('reconnects with jitter and loses no job', async () => {
    const add = (from: number) =>
      queue.addBulk(
        Array.from({ length: JOBS / 2 }, (_, i) => ({
          name: 'send',
          data: {},
          opts: { jobId: `job-${String(from + i)}`, attempts: 5, backoff: { type: 'redialer' } },
        })),
      );
    await add(0);
    await until(() => new Set(service.arrivals.map((a) => a.job)).size >= 5, 'the first jobs to run');
    // Taken before the stop: the workers see their connections close while redis-server shuts down.
    const downAt = Date.now();
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await redis.start();
    const upAt = Date.now();
    await add(JOBS / 2);
    await until(
      async () => (await queue.getJobCounts('completed'))['completed'] === JOBS,
      `all ${String(JOBS)} jobs to complete`,
      60_000,
    );

    // No job lost, none applied twice.
    for (let i = 0; i < JOBS; i++) expect(service.effects.get(`job-job-${String(i)}`), `job-${String(i)}`).toBe(1);

    // Every process reports its reconnection (a process that ran no job since may report it last).
    await Promise.all(workers.map((w) => w.waitFor((e) => e.type === 'redis-ready' && e.at >= upAt, 20_000)));
    // Per process: when its main connection was ready again, when that attempt was planned (the wait
    // ioredis announced before it, from the strategy), and the first wait after the loss.
    const measure = (prefix: string) =>
      workers
        .filter((w) => w.name.startsWith(prefix))
        .map((w) => {
          const ready = w.events.find((e) => e.type === 'redis-ready' && e.at >= upAt);
          expect(ready, `${w.name} reconnected`).toBeDefined();
          const waits = w.events.filter((e) => e.type === 'reconnecting' && e.at >= downAt && e.at <= ready!.at);
          const last = waits.at(-1)!;
          return {
            ready: ready!.at,
            planned: last.at + (last['delay'] as number),
            first: waits[0]!['delay'] as number,
            waits: waits.length,
          };
        });
    const spread = (times: number[]) => Math.max(...times) - Math.min(...times);
    const describeFleet = (what: string, m: ReturnType<typeof measure>) =>
      `${what}: first waits ${m.map((x) => String(x.first)).join('/')} ms, attempts ${m.map((x) => String(x.waits)).join('/')}, ` +
      `successful attempt planned at +${m.map((x) => String(x.planned - downAt)).join('/')} ms after the loss (spread ${String(spread(m.map((x) => x.planned)))} ms), ` +
      `ready at +${m.map((x) => String(x.ready - upAt)).join('/')} ms after Redis was back (spread ${String(spread(m.map((x) => x.ready)))} ms)`;
    const ours = measure('redialer-');
    const theirs = measure('bullmq-');
    console.log(
      `Redis down ${String(upAt - downAt)} ms\n${describeFleet('redialer ioredisRetryStrategy', ours)}\n${describeFleet("BullMQ's own retryStrategy", theirs)}`,
    );
    // redialer's schedule jitters even the first wait; BullMQ's gives every process the same 1000 ms.
    expect(new Set(ours.map((x) => x.first)).size).toBeGreaterThan(1);
    expect(theirs.map((x) => x.first)).toEqual([1000, 1000, 1000]);
  }, 90_000);
});
