/**
 * The schedule invariant (test/support/connection-schedule.ts) for health checking (gRFC A17), on
 * virtual time, against generated servers: a ConnectionManager with `http2Connector({ healthCheck })`,
 * whose fake sessions (node:http2's `connect()` is replaced in this file) come up after a latency,
 * live for a while or for the run, and answer each Watch stream as a generated script says: statuses
 * then an end with any gRPC status, a trailers-only failure, a proxy's HTTP 502, UNIMPLEMENTED, or
 * silence. Two schedules are checked in every run:
 * - the connections', as the manager sees them: a connection counts as established when it is handed
 *   over (on the Watch's first answer or end), so one whose Watch never answers is a failed attempt;
 * - on each connection, the Watch streams', as attempts of their own (established by their first
 *   answer, `minUptime: 0`) on gRPC's default backoff: no health check hammers a server.
 * And nothing is left: no stream open on a closed session, no session or timer after shutdown().
 *
 * Cases per run: 150.
 */
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { http2Connector } from '../../src/adapters/grpc/index.js';
import { grpcBackoff } from '../../src/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import {
  type AttemptEnd,
  type ScheduleRules,
  scheduleViolations,
  type TracedAttempt,
} from '../support/connection-schedule.js';
import type { ManagerSpec, PolicySpec, RandomSpec } from './support/generated.js';
import { MAX_ATTEMPTS, managerSpec, policyOf, policySpec, randomSpec } from './support/generated.js';
import { latency } from './support/servers.js';
import { runManager } from './support/run-manager.js';

const server = vi.hoisted(() => ({ connect: undefined as (() => unknown) | undefined }));
vi.mock('node:http2', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  connect: () => {
    if (server.connect === undefined) throw new Error('no fake HTTP/2 server is running');
    return server.connect();
  },
}));

/** Watch streams on one connection at which a run stops, so that a hot loop fails instead of hanging. */
const RUNAWAY = 2000;
/** Virtual time a run lasts at most: a healthy connection's Watch may be re-opened for ever. */
const RUN_MS = 600_000;

/** What the server does with one Watch stream. */
type WatchScript =
  | { readonly kind: 'silent' }
  | { readonly kind: 'unimplemented'; readonly after: number }
  | { readonly kind: 'bad-gateway'; readonly after: number }
  | { readonly kind: 'fails'; readonly after: number; readonly code: number }
  | {
      readonly kind: 'answers';
      readonly after: number;
      readonly statuses: readonly number[];
      readonly every: number;
      /** Ends with this gRPC status `endAfter` ms after the last status; never when undefined. */
      readonly end: { readonly after: number; readonly code: number } | undefined;
    };

const watchScript: fc.Arbitrary<WatchScript> = fc.oneof(
  fc.constant({ kind: 'silent' as const }),
  fc.record({ kind: fc.constant('unimplemented' as const), after: latency }),
  fc.record({ kind: fc.constant('bad-gateway' as const), after: latency }),
  fc.record({ kind: fc.constant('fails' as const), after: latency, code: fc.constantFrom(0, 1, 2, 4, 13, 14) }),
  fc.record({
    kind: fc.constant('answers' as const),
    after: latency,
    statuses: fc.array(fc.constantFrom(0, 1, 2, 3), { minLength: 1, maxLength: 4 }),
    every: fc.integer({ min: 0, max: 3000 }),
    end: fc.option(fc.record({ after: fc.integer({ min: 0, max: 5000 }), code: fc.constantFrom(0, 13, 14) }), {
      nil: undefined,
    }),
  }),
);

/** What the server does with one connection: come up after `after`, end it `uptime` ms later (never: undefined). */
interface ConnectionScript {
  readonly after: number;
  readonly uptime: number | undefined;
  readonly watches: readonly WatchScript[];
}

const connectionScript: fc.Arbitrary<ConnectionScript> = fc.record({
  after: latency,
  uptime: fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }),
  watches: fc.array(watchScript, { minLength: 1, maxLength: 5 }),
});

/**
 * One Watch stream as the server sees it. The manager sees its connection established when the health
 * check hands it over: on the first answer or end of a Watch, so one whose Watches never answer is a
 * failed attempt, cut at its deadline.
 */
interface ServedWatch {
  readonly start: number;
  answeredAt?: number;
  end?: AttemptEnd;
  open: boolean;
}

/** A Watch stream as http2-health-watch.ts uses one. */
class FakeStream extends EventEmitter {
  closed = false;
  rstCode = 0;

  constructor(private readonly onClientClose: () => void) {
    super();
  }

  end(): void {
    // The request: nothing to do, the script answers it.
  }

  close(code = 8): void {
    if (this.closed) return;
    this.rstCode = code;
    this.onClientClose();
    this.finish();
  }

  finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }
}

/** A grpc frame of a HealthCheckResponse with `status`. */
function response(status: number): Buffer {
  const message = status === 0 ? Buffer.alloc(0) : Buffer.from([0x08, status]);
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

function run(
  scripts: readonly ConnectionScript[],
  policy: PolicySpec,
  options: ManagerSpec,
  random: RandomSpec,
): { problems: string[]; watches: number } {
  const clock = createVirtualClock();
  const connections: {
    start: number;
    handedOverAt?: number;
    end?: AttemptEnd;
    open: boolean;
    watches: ServedWatch[];
    streams: FakeStream[];
  }[] = [];
  let stopping = false;
  const timers: { unsubscribe(): void }[] = [];
  const at = (delay: number, act: () => void): void => {
    timers.push(clock.scheduler.schedule(act, delay));
  };

  server.connect = () => {
    const script = scripts[Math.min(connections.length, scripts.length - 1)] ?? scripts[0]!;
    const connection = {
      start: clock.now(),
      open: true,
      watches: [] as ServedWatch[],
      streams: [] as FakeStream[],
    } as (typeof connections)[number];
    connections.push(connection);
    const session = new EventEmitter() as EventEmitter & Record<string, unknown>;
    const ends = (by: 'client' | 'server'): void => {
      if (!connection.open) return;
      connection.open = false;
      const now = clock.now();
      // Its Watch streams end with it.
      connection.watches.forEach((watch, i) => {
        if (!watch.open) return;
        watch.open = false;
        watch.end ??= { kind: 'stopped', at: now };
        connection.streams[i]?.finish();
      });
      const handed = connection.handedOverAt;
      connection.end ??=
        by === 'server'
          ? handed === undefined
            ? { kind: 'failed', at: now }
            : { kind: 'lost', readyAt: handed, at: now, graceful: false }
          : stopping || handed !== undefined
            ? { kind: 'stopped', at: now }
            : { kind: 'failed', at: now };
    };
    Object.assign(session, {
      destroyed: false,
      closed: false,
      socket: undefined,
      ping: () => false,
      close: () => {
        session['closed'] = true;
        ends('client');
      },
      destroy: () => {
        session['destroyed'] = true;
        ends('client');
      },
      request: () => {
        if (!connection.open) throw new Error('the session is closed');
        if (connection.watches.length >= RUNAWAY)
          throw new Error(`a runaway: ${String(RUNAWAY)} Watch streams on one connection`);
        const watch: ServedWatch = { start: clock.now(), open: true };
        connection.watches.push(watch);
        const index = connection.watches.length - 1;
        const w = script.watches[Math.min(index, script.watches.length - 1)]!;
        const stream: FakeStream = new FakeStream(() => {
          if (!watch.open) return;
          watch.open = false;
          // The client cut it: its own deadline (a failure of the Watch), or the connection's end.
          watch.end ??=
            watch.answeredAt !== undefined || stopping || !connection.open
              ? { kind: 'stopped', at: clock.now() }
              : { kind: 'failed', at: clock.now() };
        });
        connection.streams.push(stream);
        const serverEnds = (headers: Record<string, string>, trailers: boolean, final = false): void => {
          if (!watch.open || !connection.open) return;
          watch.open = false;
          const now = clock.now();
          // The health check hands the connection over on the first answer or end of a Watch: at once
          // for UNIMPLEMENTED, and one turn later for any other end, so that a connection that ends in
          // the same turn is reported as ended (a failed attempt), never as READY.
          if (final) connection.handedOverAt ??= now;
          else
            at(0, () => {
              if (connection.open) connection.handedOverAt ??= now;
            });
          // UNIMPLEMENTED ends health checking on this connection for good (A17): no retry is owed.
          watch.end = final
            ? { kind: 'stopped', at: now }
            : watch.answeredAt === undefined
              ? { kind: 'failed', at: now }
              : { kind: 'lost', readyAt: watch.answeredAt, at: now, graceful: false };
          if (trailers) stream.emit('trailers', headers);
          else stream.emit('response', headers);
          stream.finish();
        };
        switch (w.kind) {
          case 'silent':
            break;
          case 'unimplemented':
            at(w.after, () => {
              serverEnds({ ':status': '200', 'grpc-status': '12', 'grpc-message': 'no health' }, false, true);
            });
            break;
          case 'bad-gateway':
            at(w.after, () => {
              serverEnds({ ':status': '502' }, false);
            });
            break;
          case 'fails':
            at(w.after, () => {
              serverEnds({ ':status': '200', 'grpc-status': String(w.code) }, false);
            });
            break;
          case 'answers':
            at(w.after, () => {
              if (!watch.open || !connection.open) return;
              stream.emit('response', { ':status': '200' });
            });
            w.statuses.forEach((status, i) => {
              at(w.after + i * w.every, () => {
                if (!watch.open || !connection.open) return;
                watch.answeredAt ??= clock.now();
                connection.handedOverAt ??= clock.now();
                stream.emit('data', response(status));
              });
            });
            if (w.end !== undefined) {
              const { code } = w.end;
              at(w.after + (w.statuses.length - 1) * w.every + w.end.after, () => {
                serverEnds({ 'grpc-status': String(code) }, true);
              });
            }
            break;
        }
        return stream;
      },
    });
    // Past MAX_ATTEMPTS connections the server stops answering (as nthBehaviour makes every generated
    // server do), so that a schedule allowed to reconnect at once (0 backoff, floor off) ends its run.
    if (connections.length > MAX_ATTEMPTS) return session;
    at(script.after, () => {
      if (!connection.open) return;
      session.emit('remoteSettings', {});
      if (script.uptime !== undefined) {
        at(script.uptime, () => {
          if (!connection.open) return;
          // Recorded first: the client's reaction to 'close' (a destroy()) is not its own end.
          ends('server');
          session.emit('close');
        });
      }
    });
    return session;
  };

  const notes: string[] = [];
  let rules: ScheduleRules;
  try {
    rules = runManager({
      clock,
      connector: http2Connector('http://server.test', {
        scheduler: clock.scheduler,
        healthCheck: {
          serviceName: '',
          log: (message) => {
            notes.push(message);
          },
        },
      }),
      backoff: policyOf(policy),
      options,
      random,
      done: () => connections.length >= MAX_ATTEMPTS || clock.now() >= RUN_MS,
      stopping: () => {
        stopping = true;
      },
    });
  } finally {
    server.connect = undefined;
  }
  for (const timer of timers) timer.unsubscribe();
  const end = clock.now();

  const problems: string[] = scheduleViolations(
    { attempts: connections.map((c) => ({ start: c.start, end: c.end })), end },
    rules,
  ).map((problem) => `connections: ${problem}`);
  for (const connection of connections) {
    if (connection.watches.some((w) => w.open) && !connection.open)
      problems.push('a Watch stream open on a closed connection');
    const watches: TracedAttempt[] = connection.watches.map((w) => ({ start: w.start, end: w.end }));
    const watchEnd = connection.end?.at ?? end;
    for (const problem of scheduleViolations(
      { attempts: watches, end: watchEnd },
      { backoff: grpcBackoff(), minUptime: 0 },
    ))
      problems.push(`Watch streams: ${problem}`);
  }
  if (connections.some((c) => c.open)) problems.push('a session open after shutdown()');
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after shutdown()`);
  if (notes.length > 1) problems.push(`the missing health service was said ${String(notes.length)} times`);
  return { problems, watches: connections.reduce((n, c) => n + c.watches.length, 0) };
}

describe('http2Connector({ healthCheck }) on virtual time: the schedule invariant of connections and of Watch streams', () => {
  it('any server, any Watch script, any policy and options', () => {
    fc.assert(
      fc.property(
        fc.array(connectionScript, { minLength: 1, maxLength: 4 }),
        policySpec,
        managerSpec,
        randomSpec,
        (...args) => {
          expect(run(...args).problems).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
