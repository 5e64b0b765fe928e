/**
 * The optimistic-concurrency model of the AWS Architecture Blog post "Exponential Backoff And Jitter"
 * (2015; aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py), with the waits taken
 * from redialer's own policy objects.
 *
 * One row with a version. Each client reads it (request and reply each take one network delay),
 * then writes it back conditionally: the write succeeds only if the version is unchanged, and then
 * bumps it. A client whose write failed sleeps for its backoff, then reads again. Every write that
 * reaches the server is a call; the run ends when the last client has been told of its success.
 */
import type { Backoff, BackoffPolicy, RandomSource } from '../../src/backoff/backoff.js';
import { EventQueue } from '../support/event-queue.js';

/** Options of one run. */
export interface OccRunOptions {
  readonly clients: number;
  readonly policy: BackoffPolicy;
  readonly random: RandomSource;
  /** One-way network delay in ms, drawn per message. */
  readonly delay: () => number;
  /** Receives the server time of every write. */
  readonly onWrite?: (time: number) => void;
}

/** The outcome of one run. */
export interface OccRunResult {
  /** Writes that reached the server. */
  readonly calls: number;
  /** Writes that failed the version check. */
  readonly conflicts: number;
  /** Time of the last event: the last client learning that its write succeeded. */
  readonly completion: number;
}

/** The server's conflict rule: a write carrying `readVersion` succeeds iff the row still has that version. */
export class OccRow {
  version = 0;

  write(readVersion: number): boolean {
    if (readVersion !== this.version) return false;
    this.version += 1;
    return true;
  }
}

/** Runs one simulation to the end. */
export function runOcc({ clients, policy, random, delay, onWrite }: OccRunOptions): OccRunResult {
  const queue = new EventQueue();
  const row = new OccRow();
  let calls = 0;
  let conflicts = 0;
  let now = 0;

  const startClient = (): void => {
    let backoff: Backoff | undefined;
    const read = (at: number): void => {
      // The read reaches the server after one delay; its reply reaches the client after another.
      queue.push(at + delay(), () => {
        const version = row.version;
        queue.push(now + delay(), () => {
          write(version);
        });
      });
    };
    const write = (version: number): void => {
      queue.push(now + delay(), () => {
        calls += 1;
        onWrite?.(now);
        const ok = row.write(version);
        if (!ok) conflicts += 1;
        queue.push(now + delay(), () => {
          if (ok) return;
          backoff = backoff === undefined ? policy.first(random) : backoff.next(random);
          read(now + backoff.delay);
        });
      });
    };
    read(0);
  };

  for (let i = 0; i < clients; i++) startClient();
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    now = next.time;
    next.event();
  }
  return { calls, conflicts, completion: now };
}
