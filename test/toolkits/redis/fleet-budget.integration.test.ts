/**
 * Three BullMQ worker processes against a dependency that fails every other request: with one ratio
 * budget shared through a real redis-server, the fleet's retries stay within the budget (10 % of
 * attempts plus the minimum per window); with three local budgets, each process spends its own
 * minimum and the fleet retries about three times as much.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, skipWithoutRedis, startRedisServer } from '../../support/redis-server.js';
import { type JobService, type WorkerProcess, spawnWorker, startJobService, until } from '../bullmq/support.js';

const skip = skipWithoutRedis('the shared retry budget fleet test');

const JOBS = 60;
const RATIO = 0.1;
const MIN_RETRIES = 10;
// The window outlasts the run, so that one window holds every request.
const budgetOptions = { ratio: RATIO, window: 120_000, minRetries: MIN_RETRIES };

describe.skipIf(skip)('a retry budget shared by three worker processes through Redis', () => {
  let redis: RedisServer;
  let service: JobService;
  const queues: Queue[] = [];
  const workers: WorkerProcess[] = [];
  let requests = 0;

  beforeAll(async () => {
    redis = await startRedisServer();
    // Every other request fails with a 503 (nothing processed, so any job may be retried).
    service = await startJobService(() => ((requests += 1) % 2 === 1 ? { status: 503 } : {}));
  }, 30_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(queues.map((q) => q.close()));
    await service?.close();
    await redis?.dispose();
  }, 30_000);

  async function runFleet(name: string, budget: Record<string, unknown>) {
    const fleet = await Promise.all(
      ['1', '2', '3'].map((n) =>
        spawnWorker({
          name: `${name}-${n}`,
          socket: redis.socket,
          queue: name,
          service: service.url,
          backoff: { kind: 'constant', delay: 20 },
          budget,
        }),
      ),
    );
    workers.push(...fleet);
    if (budget['kind'] === 'shared') {
      // Start once every process has synced and sees the other two: each then spends a third of the allowance.
      await Promise.all(
        fleet.map((w) => w.waitFor((e) => e.type === 'budget' && e['mode'] === 'shared' && e['members'] === 3)),
      );
    }
    const queue = new Queue(name, { connection: { path: redis.socket, maxRetriesPerRequest: null } });
    queues.push(queue);
    const before = service.arrivals.length;
    await queue.addBulk(
      Array.from({ length: JOBS }, (_, i) => ({
        name: 'call',
        data: { i },
        opts: { attempts: 10, backoff: { type: 'redialer' } },
      })),
    );
    await until(
      async () => {
        const counts = await queue.getJobCounts('completed', 'failed');
        return (counts['completed'] ?? 0) + (counts['failed'] ?? 0) === JOBS;
      },
      `all ${String(JOBS)} jobs of ${name} to finish`,
      60_000,
    );
    const arrivals = service.arrivals.slice(before);
    const retries = arrivals.filter((a) => a.attempt > 1).length;
    const counts = await queue.getJobCounts('completed', 'failed');
    return {
      // How many jobs each process started: every process (every budget) took part.
      startsPerProcess: fleet.map((w) => w.events.filter((e) => e.type === 'start').length),
      attempts: arrivals.length,
      retries,
      ratio: retries / arrivals.length,
      completed: counts['completed'] ?? 0,
      failed: counts['failed'] ?? 0,
    };
  }

  it('keeps the fleet within one budget, where three local budgets triple the allowance', async () => {
    const shared = await runFleet('shared', {
      kind: 'shared',
      options: { ...budgetOptions, key: 'budget:dependency', syncInterval: 100 },
    });
    const local = await runFleet('local', { kind: 'local', options: budgetOptions });
    const line = (what: string, r: typeof shared) =>
      `${what}: ${String(r.retries)} retries / ${String(r.attempts)} requests = ${(100 * r.ratio).toFixed(1)} % ` +
      `(budget: 10 % + ${String(MIN_RETRIES)} = ${(RATIO * r.attempts + MIN_RETRIES).toFixed(0)} retries), jobs completed ${String(r.completed)}, failed ${String(r.failed)}`;
    console.log(`${line('shared budget', shared)}\n${line('3 local budgets', local)}`);
    // The shared budget: at most ratio × attempts plus the minimum per window, for the whole fleet.
    expect(shared.retries).toBeLessThanOrEqual(RATIO * shared.attempts + MIN_RETRIES);
    expect(shared.retries).toBeGreaterThan(0);
    // Three local budgets each allow their own minimum: the fleet goes past the one budget's bound.
    expect(local.retries).toBeGreaterThan(RATIO * local.attempts + MIN_RETRIES);
    // How far past depends on how evenly the queue spreads the jobs over the three processes, which a
    // loaded machine skews (a process that gets few failing jobs leaves its minimum unspent: 27 local
    // against 16 shared retries was seen), so no fixed multiple of the shared figure is asserted.
    expect(local.retries).toBeGreaterThan(shared.retries);
    expect(local.startsPerProcess.filter((n) => n > 0)).toHaveLength(3);
  }, 120_000);
});
