/**
 * The schedule invariant (test/support/connection-schedule.ts) for `ReconnectingEventSource`, on
 * virtual time, against generated servers behind a fake `fetch`: each request is answered after a
 * latency with a stream that lives for a while (sending a `retry:` field or not), ends at once, or
 * with 204, 404, 408, 409, 410, 429 or 503 (with or without `Retry-After`), 500, a wrong content
 * type, a network error, or never. Each stream's event carries an id, so a 409 or 410 to a request
 * that sent it is a refusal to resume: a failed attempt (with its `Retry-After`), one `resync$`
 * signal, and the next request sends no `Last-Event-ID`; to a request without a cursor, permanent. Any backoff policy and manager options. The hints the checker is told
 * are the ones the protocol gives: `Retry-After` on that failure, and the last `retry:` the source
 * received on every later end. And nothing is left after `close()`: no timer, no request or body
 * open. A permanent answer (204, 404, a wrong type) must end the run: no attempt after it.
 *
 * Cases per run: 120.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReconnectingEventSource } from '../../src/adapters/sse/index.js';
import { createVirtualClock, type VirtualClock } from '../../src/testing/index.js';
import {
  type AttemptEnd,
  longestAllowedWait,
  type ScheduleRules,
  scheduleViolations,
  type TracedAttempt,
} from '../support/connection-schedule.js';
import {
  MAX_ATTEMPTS,
  type ManagerSpec,
  managerSpec,
  type PolicySpec,
  policyOf,
  policySpec,
  randomOf,
  type RandomSpec,
  randomSpec,
} from './support/generated.js';
import { latency, nthBehaviour, uptime } from './support/servers.js';

/** What the server does with one request. */
type Answer =
  | { readonly kind: 'silent' }
  | { readonly kind: 'network-error'; readonly after: number }
  | {
      readonly kind: 'status';
      readonly after: number;
      readonly status: number;
      readonly retryAfter: number | undefined;
    }
  | { readonly kind: 'wrong-type'; readonly after: number }
  | { readonly kind: 'stream'; readonly after: number; readonly uptime: number; readonly retry: number | undefined };

const answer: fc.Arbitrary<Answer> = fc.oneof(
  fc.constant({ kind: 'silent' as const }),
  fc.record({ kind: fc.constant('network-error' as const), after: latency }),
  fc.record({
    kind: fc.constant('status' as const),
    after: latency,
    status: fc.constantFrom(204, 404, 408, 409, 410, 429, 500, 503),
    retryAfter: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('wrong-type' as const), after: latency }),
  fc.record({
    kind: fc.constant('stream' as const),
    after: latency,
    uptime,
    retry: fc.option(fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 200_000 })), {
      nil: undefined,
    }),
  }),
);
const answers = fc.array(answer, { minLength: 1, maxLength: 6 });

const PERMANENT = new Set([204, 404]);
/** Answers that refuse to resume when the request sent a cursor, and are permanent when it sent none. */
const REFUSALS = new Set([409, 410]);

/** One request as the fake server records it. */
interface Served {
  readonly start: number;
  readyAt?: number;
  end?: AttemptEnd;
  /** Whether its body (or the request itself) is still open. */
  open: boolean;
  permanent: boolean;
  /** The `Last-Event-ID` it sent, if any. */
  readonly cursor: string | undefined;
  /** Its answer refused to resume from that cursor. */
  refused: boolean;
}

function fakeServer(clock: VirtualClock, script: readonly Answer[]) {
  const served: Served[] = [];
  const state = { stopping: false, lastRetry: undefined as number | undefined };
  const fetch = (_input: unknown, init?: RequestInit): Promise<Response> => {
    const sent = new Headers(init?.headers).get('last-event-id');
    const record: Served = {
      start: clock.now(),
      open: true,
      permanent: false,
      cursor: sent ?? undefined,
      refused: false,
    };
    served.push(record);
    const b = nthBehaviour(script, served.length - 1, { kind: 'silent' });
    const signal = init?.signal ?? undefined;
    // The floor the source carries from an earlier `retry:` field, as the checker should apply it.
    const carried = state.lastRetry;
    const end = (e: AttemptEnd): void => {
      if (record.end !== undefined) return;
      record.end = e;
      record.open = false;
    };
    const failed = (hint?: number): AttemptEnd => {
      const floor = Math.max(hint ?? 0, carried ?? 0);
      return { kind: 'failed', at: clock.now(), ...(floor > 0 ? { hint: floor } : {}) };
    };
    return new Promise<Response>((resolve, reject) => {
      const timers: { unsubscribe(): void }[] = [];
      const at = (delay: number, act: () => void): void => {
        timers.push(clock.scheduler.schedule(act, delay));
      };
      let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
      signal?.addEventListener('abort', () => {
        for (const t of timers) t.unsubscribe();
        const now = clock.now();
        if (record.end === undefined) {
          if (state.stopping) end({ kind: 'stopped', at: now });
          // Cut by the manager at its connect timeout: the error is the core's, without the `retry:` floor.
          else if (record.readyAt === undefined) end({ kind: 'failed', at: now });
          else end({ kind: 'lost', readyAt: record.readyAt, at: now, graceful: false, hint: state.lastRetry });
        }
        record.open = false;
        try {
          controller?.error(signal.reason);
        } catch {
          // already closed
        }
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      });
      switch (b.kind) {
        case 'silent':
          return;
        case 'network-error':
          at(b.after, () => {
            end(failed());
            reject(new TypeError('fetch failed'));
          });
          return;
        case 'status':
          at(b.after, () => {
            record.refused = REFUSALS.has(b.status) && record.cursor !== undefined;
            record.permanent = PERMANENT.has(b.status) || (REFUSALS.has(b.status) && !record.refused);
            const hinted = b.status === 429 || b.status === 503 || record.refused ? b.retryAfter : undefined;
            end(
              record.permanent
                ? { kind: 'stopped', at: clock.now() }
                : failed(hinted === undefined ? undefined : hinted * 1000),
            );
            const headers: Record<string, string> = { 'content-type': 'text/plain' };
            if (b.retryAfter !== undefined) headers['retry-after'] = String(b.retryAfter);
            resolve(new Response(b.status === 204 ? null : 'no', { status: b.status, headers }));
          });
          return;
        case 'wrong-type':
          at(b.after, () => {
            record.permanent = true;
            end({ kind: 'stopped', at: clock.now() });
            resolve(new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } }));
          });
          return;
        case 'stream':
          at(b.after, () => {
            record.readyAt = clock.now();
            const body = new ReadableStream<Uint8Array>({
              start: (c) => {
                controller = c;
                if (b.retry !== undefined) {
                  state.lastRetry = b.retry;
                  c.enqueue(new TextEncoder().encode(`retry: ${String(b.retry)}\n\n`));
                }
                // Each stream's event has an id: the cursor the next request sends.
                c.enqueue(new TextEncoder().encode(`id: ${String(served.length)}\ndata: hello\n\n`));
              },
            });
            resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
            at(b.uptime, () => {
              end({
                kind: 'lost',
                readyAt: record.readyAt ?? 0,
                at: clock.now(),
                graceful: false,
                hint: state.lastRetry,
              });
              try {
                controller?.close();
              } catch {
                // already errored
              }
            });
          });
          return;
      }
    });
  };
  return { served, state, fetch };
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

async function runSource(
  script: readonly Answer[],
  policy: PolicySpec,
  options: ManagerSpec,
  random: RandomSpec,
): Promise<string[]> {
  const clock = createVirtualClock();
  const server = fakeServer(clock, script);
  const backoff = policyOf(policy);
  const { attemptSpacing, ...rest } = options;
  const rules: ScheduleRules = { backoff, ...options };
  const source = new ReconnectingEventSource('http://server.test/events', {
    ...rest,
    ...(attemptSpacing === undefined ? {} : { attemptSpacing }),
    backoff,
    scheduler: clock.scheduler,
    random: randomOf(random),
    fetch: server.fetch,
    environment: {},
  });
  let resyncs = 0;
  source.resync$.subscribe(() => (resyncs += 1));
  const quiet = longestAllowedWait(rules) + 1000;
  try {
    for (let fired = 0; fired < 5000; fired++) {
      await flush();
      if (server.served.length >= MAX_ATTEMPTS || source.readyState === source.CLOSED) break;
      const next = clock.scheduler.actions[0];
      if (next === undefined || next.delay > clock.now() + quiet) {
        clock.advanceBy(quiet);
        await flush();
        break;
      }
      clock.advanceTo(next.delay);
    }
  } finally {
    server.state.stopping = true;
    source.close();
  }
  await flush();
  const end = clock.now();
  clock.advanceBy(0);
  const attempts: TracedAttempt[] = server.served.map(({ start, end: e }) => ({ start, end: e }));
  const problems = scheduleViolations({ attempts, end, ...{} }, rules);
  server.served.forEach((s, i) => {
    const next = server.served[i + 1];
    if (s.refused && next?.cursor !== undefined)
      problems.push(`attempt ${String(i + 2)} sent Last-Event-ID ${next.cursor} after a refusal to resume`);
  });
  if (resyncs !== server.served.filter((s) => s.refused).length)
    problems.push(
      `${String(resyncs)} resync$ signals for ${String(server.served.filter((s) => s.refused).length)} refusals`,
    );
  const stopAt = server.served.findIndex((s) => s.permanent);
  if (stopAt >= 0 && server.served.length > stopAt + 1)
    problems.push(`attempt ${String(stopAt + 2)} after a permanent answer to attempt ${String(stopAt + 1)}`);
  const open = server.served.filter((s) => s.open).length;
  if (open > 0) problems.push(`${String(open)} requests open after close()`);
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after close()`);
  return problems;
}

describe('ReconnectingEventSource on virtual time: the schedule invariant against generated servers', () => {
  it('any server (streams with and without retry:, 204/404/408/409/410/429/500/503, Retry-After, wrong type, network errors, silence), any policy and options', async () => {
    await fc.assert(
      fc.asyncProperty(answers, policySpec, managerSpec, randomSpec, async (...args) => {
        expect(await runSource(...args)).toEqual([]);
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});
