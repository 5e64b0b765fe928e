/**
 * The schedule invariant (test/support/connection-schedule.ts) for a ConnectionManager with
 * http2Connector, on virtual time, against generated servers. node:http2's `connect()` is replaced
 * in this file by a fake session that does what a server would, on the virtual clock: refuse
 * (`error` ECONNREFUSED, `close`), accept and close before SETTINGS, never answer (a black hole), or
 * send SETTINGS (`remoteSettings`: READY) and end the connection later with GOAWAY NO_ERROR (with or
 * without a `retry-after` in its debug data), GOAWAY ENHANCE_YOUR_CALM, a close or an error. Each
 * run records the attempts as the server sees them and counts the sessions the client left open.
 *
 * Cases per run: 200 (any server, policy and options) + 1 (issue 29's server) + 40 (SETTINGS then
 * GOAWAY NO_ERROR on every connection) + 30 (GOAWAY NO_ERROR asking for 1e30 ms) = 271.
 */
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { http2Connector } from '../../src/adapters/grpc/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import { type AttemptEnd, type ScheduleRules, scheduleViolations } from '../support/connection-schedule.js';
import type { ManagerSpec, PolicySpec, RandomSpec } from './support/generated.js';
import { MAX_ATTEMPTS, managerSpec, policyOf, policySpec, randomSpec } from './support/generated.js';
import type { At, BlackHole, ServedAttempt, Up } from './support/servers.js';
import { HUGE_HINT, blackHole, latency, nthBehaviour, playUp, up, uptime } from './support/servers.js';
import { runManager } from './support/run-manager.js';

const server = vi.hoisted(() => ({ connect: undefined as (() => unknown) | undefined }));
vi.mock('node:http2', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  connect: () => {
    if (server.connect === undefined) throw new Error('no fake HTTP/2 server is running');
    return server.connect();
  },
}));

/** What the server does with one connection. */
type Behaviour =
  | { readonly kind: 'refuse'; readonly after: number }
  | { readonly kind: 'accept-close'; readonly after: number }
  | BlackHole
  | Up<'end', 'goaway-no-error' | 'goaway-enhance-your-calm' | 'close' | 'error'>;

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constant('refuse' as const), after: latency }),
  fc.record({ kind: fc.constant('accept-close' as const), after: latency }),
  blackHole,
  up('end', fc.constantFrom('goaway-no-error', 'goaway-enhance-your-calm', 'close', 'error')),
);

/** SETTINGS, then GOAWAY NO_ERROR at once: issue 29's flapping server. */
const FLAP: Behaviour = { kind: 'up', after: 0, uptime: 0, end: 'goaway-no-error', hint: undefined };

/** A session as http2Connector uses one; the client's close() and destroy() close it. */
class FakeSession extends EventEmitter {
  destroyed = false;
  closed = false;
  readonly socket = undefined;

  constructor(private readonly onClientEnd: () => void) {
    super();
  }

  request(): never {
    throw new Error('the schedule properties open no streams');
  }

  ping(): boolean {
    return false;
  }

  close(): void {
    this.closed = true;
    this.onClientEnd();
  }

  destroy(): void {
    this.destroyed = true;
    this.onClientEnd();
  }
}

/**
 * Runs one manager against `behaviours` (one per connection, in turn): every broken rule, and the
 * attempt starts.
 */
function run(
  behaviours: readonly Behaviour[],
  policy: PolicySpec,
  options: ManagerSpec,
  random: RandomSpec,
): { problems: string[]; starts: number[] } {
  const clock = createVirtualClock();
  const attempts: ServedAttempt[] = [];
  let stopping = false;
  let mostOpen = 0;
  const openNow = () => attempts.filter((a) => a.open).length;
  server.connect = () => {
    mostOpen = Math.max(mostOpen, openNow() + 1);
    const record: ServedAttempt = { start: clock.now(), open: true, timers: [] };
    const b = nthBehaviour<Behaviour>(behaviours, attempts.length, { kind: 'black-hole' }, FLAP);
    attempts.push(record);
    const closed = () => {
      if (!record.open) return;
      record.open = false;
      for (const timer of record.timers) timer.unsubscribe();
      // The client ended it first: a cut (before SETTINGS), or shutdown().
      record.end ??= { kind: stopping || record.readyAt !== undefined ? 'stopped' : 'failed', at: clock.now() };
    };
    const session = new FakeSession(closed);
    const at: At = (delay, act) => {
      record.timers.push(clock.scheduler.schedule(act, delay));
    };
    const timeline = { at, now: () => clock.now() };
    /** The server ends the connection: `end` for the trace, then the events the client sees, then the socket closes. */
    const serverEnds = (end: AttemptEnd, ...events: [string, ...unknown[]][]) => {
      if (!record.open) return;
      record.end ??= end;
      for (const [event, ...args] of events) session.emit(event, ...args);
      closed();
    };
    const reset = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:443`), { code });
    switch (b.kind) {
      case 'black-hole':
        break;
      case 'refuse':
        at(b.after, () => {
          serverEnds({ kind: 'failed', at: clock.now() }, ['error', reset('ECONNREFUSED')], ['close']);
        });
        break;
      case 'accept-close':
        at(b.after, () => {
          serverEnds({ kind: 'failed', at: clock.now() }, ['close']);
        });
        break;
      case 'up':
        playUp(b, record, timeline, {
          ready: () => {
            session.emit('remoteSettings', {});
          },
          ends: (readyAt) => {
            const lost = { kind: 'lost', readyAt, at: clock.now(), graceful: false } as const;
            switch (b.end) {
              case 'goaway-no-error': {
                const data = b.hint === undefined ? undefined : Buffer.from(b.hint.text, 'latin1');
                serverEnds({ ...lost, graceful: true, hint: b.hint?.value }, ['goaway', 0, 0, data], ['close']);
                return;
              }
              case 'goaway-enhance-your-calm':
                serverEnds(lost, ['goaway', 11, 0, Buffer.from('calm down', 'latin1')], ['close']);
                return;
              case 'close':
                serverEnds(lost, ['close']);
                return;
              case 'error':
                serverEnds(lost, ['error', reset('ECONNRESET')], ['close']);
                return;
            }
          },
        });
        break;
    }
    return session;
  };
  let rules: ScheduleRules;
  try {
    rules = runManager({
      clock,
      connector: http2Connector('http://server.test', { scheduler: clock.scheduler }),
      backoff: policyOf(policy),
      options,
      random,
      done: () => attempts.length >= MAX_ATTEMPTS,
      stopping: () => {
        stopping = true;
      },
    });
  } finally {
    server.connect = undefined;
  }
  const problems = scheduleViolations({ attempts, end: clock.now() }, rules);
  if (mostOpen > 1) problems.push(`${String(mostOpen)} sessions were open at once`);
  if (openNow() > 0) problems.push(`${String(openNow())} sessions open after shutdown()`);
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after shutdown()`);
  return { problems, starts: attempts.map((a) => a.start) };
}

describe('ConnectionManager + http2Connector on virtual time: the schedule invariant against generated servers', () => {
  it('any server (refuse, close, black hole, SETTINGS then any end, any hint), any policy and options', () => {
    fc.assert(
      fc.property(
        fc.array(behaviour, { minLength: 1, maxLength: 6 }),
        policySpec,
        managerSpec,
        randomSpec,
        (...args) => {
          expect(run(...args).problems).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("issue 29's server, SETTINGS then GOAWAY NO_ERROR at once, with grpcBackoff({ initialBackoff: 100 }): 6 attempts in 2.2 s", () => {
    // Before the flap guard held for graceful ends: 22 attempts in 2.2 s, every wait 100 ms.
    const { problems, starts } = run(
      [FLAP],
      { kind: 'grpc', initialBackoff: 100, maxBackoff: 120_000, multiplier: 1.6, jitter: 0.2, jitterMode: 'episode' },
      { minUptime: 5000, reconnectSpread: 0, attemptSpacing: undefined, minConnectTimeout: 20_000 },
      { pinned: 0.5 },
    );
    expect({ problems, inFirst2200ms: starts.filter((t) => t < 2200).length }).toEqual({
      problems: [],
      inFirst2200ms: 6,
    });
  });

  it('SETTINGS then GOAWAY NO_ERROR on every connection, any policy, minUptime > 0: the schedule of a server that refuses', () => {
    fc.assert(
      fc.property(
        policySpec,
        managerSpec.filter((o) => o.minUptime > 0),
        randomSpec,
        (policy, options, random) => {
          expect(run([FLAP], policy, options, random).problems).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('GOAWAY NO_ERROR asking for 1e30 ms: the next attempt waits at most the hint ceiling', () => {
    fc.assert(
      fc.property(uptime, policySpec, managerSpec, randomSpec, (up, policy, options, random) => {
        const asks: Behaviour = { kind: 'up', after: 0, uptime: up, end: 'goaway-no-error', hint: HUGE_HINT };
        expect(run([asks], policy, options, random).problems).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});
