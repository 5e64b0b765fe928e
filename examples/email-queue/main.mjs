// Emails queued in BullMQ and sent through three local fake providers (one down, one slow, one
// answering 429 + Retry-After), each with its own backoff and circuit breaker (redialer/retry's
// failover), the job's retries on the queue (redialer/bullmq), a retry budget shared through Redis
// (redialer/redis), and a dead-letter queue for what cannot be sent.
//
// Run it: npm run build && node examples/email-queue/main.mjs
// It uses the Redis at REDIS_URL (or the unix socket REDIS_SOCKET); with neither, it starts a
// redis-server of its own on a unix socket in a temp dir, and stops it at the end.
/* global fetch */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { exponentialBackoff, grpcBackoff } from 'redialer';
import {
  HttpResponseError,
  RetryMetrics,
  classify,
  failover,
  httpStatusOf,
  isFailoverError,
  transient,
} from 'redialer/retry';
import { ioredisRetryStrategy, jobRetries } from 'redialer/bullmq';
import { sharedRatioBudget } from 'redialer/redis';
import { deliveries, startProviders } from './providers.mjs';

const started = Date.now();
const log = (line) => console.log(`${((Date.now() - started) / 1000).toFixed(2).padStart(5)} s  ${line}`);

// Redis: the given one, or a redis-server of our own.
async function redisConnection() {
  if (process.env.REDIS_URL) return { options: process.env.REDIS_URL, stop: () => Promise.resolve() };
  if (process.env.REDIS_SOCKET) return { options: { path: process.env.REDIS_SOCKET }, stop: () => Promise.resolve() };
  const dir = mkdtempSync(join(tmpdir(), 'email-queue-'));
  const socket = join(dir, 'redis.sock');
  const server = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--save', '', '--dir', dir], {
    stdio: 'ignore',
  });
  server.on('error', () => {
    console.error('redis-server was not found: install it (apt-get install redis-server) or set REDIS_URL');
    process.exit(1);
  });
  while (!existsSync(socket)) await new Promise((resolve) => setTimeout(resolve, 10));
  return {
    options: { path: socket },
    stop: async () => {
      server.kill();
      await new Promise((resolve) => server.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const redis = await redisConnection();
const connect = (extra = {}) => {
  // A jittered reconnect schedule, so that a fleet that lost Redis does not come back in lock-step.
  const client = new Redis(redis.options, {
    maxRetriesPerRequest: null,
    retryStrategy: ioredisRetryStrategy(),
    ...extra,
  });
  client.on('error', (error) => log(`redis: ${error.message}`));
  return client;
};
const connection = connect();
const budgetClient = connect({ maxRetriesPerRequest: 1 });
const providers = await startProviders();

// One call, three providers: each keeps its own backoff (a 429's Retry-After is a floor under it) and
// its own circuit breaker across calls; a call tries them in order within one 1.2 s deadline, and
// then the job goes back to the queue.
// What the mailer saw of each provider, for the summary.
const seen = new Map(
  providers.map((p) => [p.name, { calls: 0, sent: 0, throttled: 0, refused: 0, timedOut: 0, rejected: 0 }]),
);
const sendMail = failover(
  providers.map((provider) => ({
    name: provider.name,
    backoff: exponentialBackoff({ initialDelay: 250, maxDelay: 5000 }),
    // A 429 is the provider asking for time (its Retry-After sets when it is tried again), not an outage.
    breaker: {
      name: provider.name,
      consecutiveFailures: 2,
      breakDuration: 1500,
      isFailure: (error) => httpStatusOf(error) !== 429,
    },
    call: async (email, { signal, idempotencyKey }) => {
      const counts = seen.get(provider.name);
      counts.calls += 1;
      try {
        const response = await fetch(provider.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify(email),
          signal,
        });
        if (!response.ok) {
          await response.body?.cancel();
          throw new HttpResponseError(response, { method: 'POST' });
        }
        counts.sent += 1;
        return provider.name;
      } catch (error) {
        const status = httpStatusOf(error);
        if (status === 429) counts.throttled += 1;
        else if (status !== undefined) counts.rejected += 1;
        else if (signal.aborted) counts.timedOut += 1;
        else counts.refused += 1;
        throw error;
      }
    },
  })),
  // An email must not go out twice: once a provider may have it (its attempt was cut at 800 ms, or
  // failed after the request went out), no other provider is sent it, and the queue's retries of
  // that email go to that provider only, which tells the repeat by its Idempotency-Key.
  { deadline: 1200, attemptTimeout: 800, idempotency: 'never' },
);

// Every provider failed or was skipped: not the email's fault, so the queue tries again later.
const classifyForQueue = (error) =>
  isFailoverError(error) ? transient(`every provider failed or waits (${error.reason})`, 'maybe') : classify(error);

const budget = sharedRatioBudget({ redis: budgetClient, key: 'email:retry-budget', ratio: 0.2, minRetries: 10 });
const metrics = new RetryMetrics({ attributes: { queue: 'email' } });
const retries = jobRetries({
  backoff: grpcBackoff({ initialBackoff: 500, maxBackoff: 5000 }),
  classify: classifyForQueue,
  budget,
  metrics,
});

const queue = new Queue('email', { connection });
const deadLetters = new Queue('email-dead-letter', { connection });
const sentBy = new Map();
const worker = new Worker(
  'email',
  retries.process(async (job) => {
    const provider = await sendMail(job.data, { idempotencyKey: job.data.id });
    sentBy.set(job.data.id, provider);
    log(`${job.data.id} to ${job.data.to}: sent by ${provider} (attempt ${job.attemptsMade + 1})`);
    return provider;
  }),
  { connection, concurrency: 3, settings: { backoffStrategy: retries.backoffStrategy } },
);
worker.on('failed', async (job, error) => {
  if (job === undefined) return;
  if ((await job.getState()) !== 'failed') {
    log(`${job.data.id}: every provider failed or waits; back in the queue (attempt ${job.attemptsMade} failed)`);
    return;
  }
  // Final: permanent, or out of attempts. Kept for a person to look at, not dropped.
  await deadLetters.add('undeliverable', { email: job.data, reason: error.message, attempts: job.attemptsMade });
  log(`${job.data.id} to ${job.data.to}: dead-lettered (${error.message})`);
});

const emails = Array.from({ length: 24 }, (_, i) => ({
  id: `mail-${String(i + 1).padStart(2, '0')}`,
  to: i === 4 || i === 17 ? `nobody${i}@example.invalid` : `user${i}@example.com`,
  subject: 'Your receipt',
}));
await queue.addBulk(
  emails.map((email) => ({ name: 'send', data: email, opts: { jobId: email.id, ...retries.jobOptions(6) } })),
);
log(`queued ${emails.length} emails`);

// Wait until every email is sent or dead-lettered.
for (;;) {
  const counts = await queue.getJobCounts('completed', 'failed');
  if (counts.completed + counts.failed === emails.length) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await worker.close();

const dead = await deadLetters.getJobs(['waiting']);
const byProvider = providers
  .map((p) => `${p.name} ${[...sentBy.values()].filter((n) => n === p.name).length}`)
  .join(', ');
const snapshot = metrics.snapshot.total;
console.log('\nSummary');
console.log(
  `  emails: ${emails.length} queued, ${sentBy.size} sent, ${dead.length} dead-lettered, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`  sent by: ${byProvider}`);
for (const p of providers) {
  const c = seen.get(p.name);
  const breaker = await breakerState(sendMail, p.name);
  console.log(
    `  provider ${p.name}: ${c.calls} calls: ${c.sent} sent, ${c.throttled} × 429, ${c.refused} refused, ` +
      `${c.timedOut} timed out, ${c.rejected} × 400; ${p.stats.duplicates} duplicates; breaker ${breaker}`,
  );
}
console.log(
  `  job attempts ${snapshot.attempts}, queue retries ${snapshot.retries}, permanent ${snapshot.permanentFailures}, gave up ${snapshot.giveUps}`,
);
console.log(
  `  retry budget: ${budget.mode} (shared through Redis), fleet retry ratio ${(100 * budget.retryRatio).toFixed(1)} %`,
);
const twice = [...deliveries].filter(([, by]) => by.length > 1);
console.log(
  `  delivered twice: ${twice.length}${twice.map(([id, by]) => ` ${id} (${by.join(' + ')})`).join(',')}` +
    (twice.length > 0 ? ': sent by two providers' : ''),
);
for (const job of dead)
  console.log(
    `  dead letter: ${job.data.email.id} to ${job.data.email.to} after ${job.data.attempts} attempt(s): ${job.data.reason}`,
  );

function breakerState(send, name) {
  return new Promise((resolve) => {
    const subscription = send.providers$.subscribe((list) =>
      resolve(list.find((p) => p.name === name)?.breaker ?? 'unknown'),
    );
    subscription.unsubscribe();
  });
}

sendMail.dispose();
budget.close();
metrics.close();
await deadLetters.obliterate({ force: true });
await queue.obliterate({ force: true });
await Promise.all([queue.close(), deadLetters.close()]);
connection.disconnect();
budgetClient.disconnect();
await Promise.all(providers.map((p) => p.close()));
await redis.stop();
