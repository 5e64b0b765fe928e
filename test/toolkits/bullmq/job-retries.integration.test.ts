/**
 * redialer/bullmq against the real thing: a redis-server started here, BullMQ worker processes on
 * dist/, and a local HTTP service whose answers are scripted per job. The waits between a job's
 * requests are measured where they arrive.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, skipWithoutRedis, startRedisServer } from '../../support/redis-server.js';
import {
  type Arrival,
  type JobService,
  type WorkerEvent,
  type WorkerProcess,
  spawnWorker,
  startJobService,
  until,
} from './support.js';

const skip = skipWithoutRedis('redialer/bullmq integration tests');

/** The scripted answers: job id → the answer to its n-th request. */
const script: Record<string, (a: Arrival) => { status?: number; headers?: Record<string, string>; hold?: boolean }> = {
  // Fails twice, then 503 with Retry-After: 1, then succeeds.
  flaky: (a) => (a.n <= 2 ? { status: 500 } : a.n === 3 ? { status: 503, headers: { 'retry-after': '1' } } : {}),
  permanent: () => ({ status: 400 }),
  // A POST that is not idempotent: a 500 may have been processed, a 503 was not.
  'never-500': () => ({ status: 500 }),
  'never-503': (a) => (a.n === 1 ? { status: 503 } : {}),
  // The first request is taken and never answered: the worker is killed while it waits.
  killed: (a) => (a.n === 1 ? { hold: true } : {}),
  // The provider throttles: 429 with Retry-After: 1 pauses the whole queue.
  throttled: (a) => (a.n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : {}),
};

describe.skipIf(skip)('BullMQ jobs with redialer backoff (real redis-server, worker processes)', () => {
  let redis: RedisServer;
  let service: JobService;
  let queue: Queue;
  const workers: WorkerProcess[] = [];
  const config = (name: string) => ({
    name,
    socket: redis.socket,
    queue: 'jobs',
    service: service.url,
    // 100 ms, ×2, no jitter: the waits are 100, 200, 400 ms… so that they can be checked exactly.
    backoff: { kind: 'exponential', initialDelay: 100, multiplier: 2, jitter: 'none', maxDelay: 10_000 },
    lockDuration: 1000,
    stalledInterval: 500,
    throttle: true,
  });

  beforeAll(async () => {
    redis = await startRedisServer();
    service = await startJobService((a) => script[a.job]?.(a) ?? {});
    queue = new Queue('jobs', { connection: { path: redis.socket, maxRetriesPerRequest: null } });
    workers.push(...(await Promise.all([spawnWorker(config('a')), spawnWorker(config('b'))])));
  }, 60_000);

  afterAll(async () => {
    if (process.env['DEBUG_WORKERS'])
      for (const w of workers) console.log(w.name, JSON.stringify(w.events.filter((e) => e.type !== 'budget')));
    await Promise.all(workers.map((w) => w.stop()));
    await queue?.close();
    await service?.close();
    await redis?.dispose();
  }, 30_000);

  const arrivalsOf = (job: string) => service.arrivals.filter((a) => a.job === job);
  const finished = async (id: string) => {
    const state = await queue.getJobState(id);
    return state === 'completed' || state === 'failed';
  };
  const add = (id: string, data: Record<string, unknown> = {}) =>
    queue.add('send', data, { jobId: id, attempts: 5, backoff: { type: 'redialer' } });

  it('waits the backoff after each failure and the Retry-After as a floor: fails twice, 503 + Retry-After: 1, then OK', async () => {
    await add('flaky');
    await until(() => finished('flaky'), 'the flaky job to finish');
    expect(await queue.getJobState('flaky')).toBe('completed');
    const arrivals = arrivalsOf('flaky');
    expect(arrivals.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    // The backoff runs from each attempt's start, so the waits are measured between the attempts'
    // starts in the workers (a request reaches the service some ms later, more or less each time).
    const starts = workers
      .flatMap((w) => w.events)
      .filter((e) => e.type === 'start' && e['job'] === 'flaky')
      .map((e) => e.at)
      .sort((x, y) => x - y);
    expect(starts).toHaveLength(4);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    console.log(
      `flaky job: waits between attempt starts ${gaps.map((g) => `${String(g)} ms`).join(', ')} (backoff 100, 200, then max(400, Retry-After 1000))`,
    );
    // Never shorter than the backoff (100, 200) or the server's hint (1000 > the third step, 400).
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(gaps[2]).toBeGreaterThanOrEqual(1000);
    // …and not the next step either: the hint is a floor, not added to the backoff.
    for (const [i, expected] of [100, 200, 1000].entries()) expect(gaps[i]).toBeLessThan(expected + 5000);
    const job = await queue.getJob('flaky');
    expect(job?.attemptsMade).toBe(4); // BullMQ 6 counts the successful attempt too
  });

  it('fails a permanent 400 at once, with attempts left', async () => {
    await add('permanent');
    await until(() => finished('permanent'), 'the permanent job to fail');
    expect(await queue.getJobState('permanent')).toBe('failed');
    expect(arrivalsOf('permanent')).toHaveLength(1);
    const job = await queue.getJob('permanent');
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/400/);
  });

  it('follows redialer/retry idempotency: a non-idempotent job is not resent after a 500, but is after a 503', async () => {
    await add('never-500', { idempotency: 'never' });
    await add('never-503', { idempotency: 'never' });
    await until(async () => (await finished('never-500')) && (await finished('never-503')), 'both jobs to finish');
    expect(await queue.getJobState('never-500')).toBe('failed');
    expect(arrivalsOf('never-500')).toHaveLength(1);
    expect(await queue.getJobState('never-503')).toBe('completed');
    expect(arrivalsOf('never-503')).toHaveLength(2);
  });

  it("a 429 with Retry-After pauses the whole queue through BullMQ's rate limiter, without spending an attempt", async () => {
    await add('throttled');
    await until(() => arrivalsOf('throttled').length === 1, 'the throttled request');
    await add('bystander');
    await until(async () => (await finished('throttled')) && (await finished('bystander')), 'both jobs to finish');
    const [limited, again] = arrivalsOf('throttled');
    const bystander = arrivalsOf('bystander')[0]!;
    console.log(
      `429 + Retry-After: 1: the job ran again after ${String(again!.at - limited!.at)} ms, a job added meanwhile waited until +${String(bystander.at - limited!.at)} ms`,
    );
    expect(again!.at - limited!.at).toBeGreaterThanOrEqual(1000);
    // Another job of the same queue waited for the pause too.
    expect(bystander.at - limited!.at).toBeGreaterThanOrEqual(1000);
    // The throttled run did not count as an attempt: the job completed on its first counted one.
    expect(again!.attempt).toBe(1);
    expect(await queue.getJobState('throttled')).toBe('completed');
  });

  it('a worker killed mid-job (SIGKILL): another worker runs the job again and it completes exactly once', async () => {
    await add('killed');
    await until(() => arrivalsOf('killed').length === 1, 'the first request of the job');
    const first = arrivalsOf('killed')[0]!;
    const victim = workers.find((w) => w.name === first.worker)!;
    await victim.kill();
    const killedAt = Date.now();
    await until(() => finished('killed'), 'the job to be taken over and finished', 30_000);
    expect(await queue.getJobState('killed')).toBe('completed');
    const arrivals = arrivalsOf('killed');
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]!.worker).not.toBe(first.worker);
    // Both requests carried the same idempotency key: the side effect was applied once.
    expect(new Set(arrivals.map((a) => a.key)).size).toBe(1);
    expect(service.effects.get(first.key)).toBe(1);
    const survivors = workers.filter((w) => w !== victim);
    // The job's state changes before the worker's line reaches us: wait for the line, then count.
    const isCompletion = (e: WorkerEvent) => e.type === 'completed' && e['job'] === 'killed';
    await Promise.any(survivors.map((w) => w.waitFor(isCompletion)));
    expect(survivors.flatMap((w) => w.events).filter(isCompletion)).toHaveLength(1);
    console.log(
      `killed worker: job taken over after ${String(arrivals[1]!.at - killedAt)} ms (lock 1000 ms, stall check every 500 ms)`,
    );
  }, 45_000);
});
