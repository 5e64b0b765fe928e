/**
 * The real parts of the queue tests: an HTTP service with a scripted answer per job and arrival log,
 * and BullMQ worker processes (fixtures/worker.mjs on dist/) that report JSON lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** One request the service received. */
export interface Arrival {
  readonly job: string;
  readonly attempt: number;
  readonly worker: string;
  readonly key: string;
  /** Epoch ms on the test process's clock. */
  readonly at: number;
  /** The how-manieth request for this job (1-based). */
  readonly n: number;
}

/** What the service answers; `hold: true` never answers (the request stays open until the client goes away). */
export interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly hold?: boolean;
  readonly delay?: number;
}

export interface JobService {
  readonly url: string;
  readonly arrivals: Arrival[];
  /** Idempotency key → times the side effect was applied (at most 1 with a working key). */
  readonly effects: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Starts the service on 127.0.0.1. A 2xx answer applies the job's side effect once per idempotency
 * key (a repeat is acknowledged, not applied again), as a payment or mail API with keys does.
 */
export async function startJobService(answer: (arrival: Arrival) => Answer): Promise<JobService> {
  const arrivals: Arrival[] = [];
  const effects = new Map<string, number>();
  const perJob = new Map<string, number>();
  const open = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const job = String(req.headers['x-job'] ?? '');
    const n = (perJob.get(job) ?? 0) + 1;
    perJob.set(job, n);
    const arrival: Arrival = {
      job,
      attempt: Number(req.headers['x-attempt'] ?? 0),
      worker: String(req.headers['x-worker'] ?? ''),
      key: String(req.headers['idempotency-key'] ?? ''),
      at: Date.now(),
      n,
    };
    arrivals.push(arrival);
    // A worker killed mid-request resets its connection: expected here, not a failure of the service.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.resume();
    const reply = answer(arrival);
    const status = reply.status ?? 200;
    if (status < 300 || reply.hold === true) {
      const applied = effects.get(arrival.key) ?? 0;
      if (applied === 0) effects.set(arrival.key, 1);
    }
    if (reply.hold === true) {
      open.add(res);
      res.on('close', () => open.delete(res));
      return;
    }
    const send = (): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify({ job, n }));
    };
    if (reply.delay !== undefined) setTimeout(send, reply.delay);
    else send();
  });
  server.keepAliveTimeout = 500;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/send`,
    arrivals,
    effects,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A line a worker process reported. */
export type WorkerEvent = { readonly worker: string; readonly at: number; readonly type: string } & Record<
  string,
  unknown
>;

export interface WorkerProcess {
  readonly name: string;
  readonly events: WorkerEvent[];
  readonly child: ChildProcess;
  /** Resolves with the first event (already seen or coming) that matches; rejects after `timeout` ms. */
  waitFor(predicate: (event: WorkerEvent) => boolean, timeout?: number): Promise<WorkerEvent>;
  /** SIGTERM: the worker closes gracefully and reports its metrics. */
  stop(): Promise<void>;
  /** SIGKILL, mid-job if need be. */
  kill(): Promise<void>;
}

const fixture = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

/** Spawns a worker process with `config` (see fixtures/worker.mjs) and waits until it is ready. */
export async function spawnWorker(config: Record<string, unknown> & { name: string }): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [fixture], {
    env: { ...process.env, WORKER_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: WorkerEvent[] = [];
  const waiters = new Set<{ predicate: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }>();
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let index;
    while ((index = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 1);
      if (line.trim() === '') continue;
      let event: WorkerEvent;
      try {
        event = JSON.parse(line) as WorkerEvent;
      } catch {
        stderr += `${line}\n`;
        continue;
      }
      events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(event)) {
          waiters.delete(waiter);
          waiter.resolve(event);
        }
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit');
  const waitFor = (predicate: (event: WorkerEvent) => boolean, timeout = 15_000): Promise<WorkerEvent> => {
    const seen = events.find(predicate);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (e: WorkerEvent) => {
          clearTimeout(timer);
          resolve(e);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `worker ${config.name}: no matching event within ${String(timeout)} ms; stderr: ${stderr.slice(-2000)}`,
          ),
        );
      }, timeout);
      waiters.add(waiter);
    });
  };
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const worker: WorkerProcess = {
    name: config.name,
    events,
    child,
    waitFor,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
  await waitFor((e) => e.type === 'ready', 20_000);
  return worker;
}

/** Waits until `check` returns true, polling every 50 ms; rejects with `what` after `timeout` ms. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeout = 20_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
