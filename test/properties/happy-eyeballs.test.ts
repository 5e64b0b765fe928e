/**
 * The schedule invariant (test/support/connection-schedule.ts, `raceViolations`) for happyEyeballs
 * under a ConnectionManager, on virtual time: 2 or 3 addresses, each a fake connector with a
 * generated server of its own — refuse (with or without a hint, valid or not: 0, negative, NaN, a
 * string, 1e30), close before it is established, never answer, or establish and end later (gracefully
 * or not, with or without a hint). The manager's attempts (one pass over the addresses each) keep the
 * manager's schedule, each address keeps its own backoff, and no address stays out of a failed pass
 * longer than the longest wait; at most one attempt per address is open at a time, none after
 * shutdown().
 *
 * Cases per run: 150 (any servers, policy and options) + 30 (one address asks for 1e30 ms) = 180.
 */
import fc from 'fast-check';
import { Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  type AttemptContext,
  type Connector,
  isConnectTimeoutError,
  isConnectorBackoffError,
  isGracefulEnd,
  markGracefulEnd,
  retryAfter,
} from '../../src/index.js';
import { happyEyeballs } from '../../src/connectors/happy-eyeballs.js';
import { createVirtualClock } from '../../src/testing/index.js';
import {
  type AddressAttempt,
  type AttemptEnd,
  longestAllowedWait,
  raceViolations,
} from '../support/connection-schedule.js';
import type { ManagerSpec, PolicySpec, RandomSpec } from './support/generated.js';
import { MAX_ATTEMPTS, managerSpec, policyOf, policySpec, randomOf, randomSpec } from './support/generated.js';
import type { At, BlackHole, Hint, Up } from './support/servers.js';
import { HUGE_HINT, blackHole, latency, maybeHint, playUp, up } from './support/servers.js';
import { runManager } from './support/run-manager.js';

/** What one address's server does with one connection. */
type Behaviour =
  | { readonly kind: 'refuse'; readonly after: number; readonly hint: Hint | undefined }
  | { readonly kind: 'accept-close'; readonly after: number }
  | BlackHole
  | Up<'end', 'graceful' | 'error' | 'close'>;

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constant('refuse' as const), after: latency, hint: maybeHint }),
  fc.record({ kind: fc.constant('accept-close' as const), after: latency }),
  blackHole,
  up('end', fc.constantFrom('graceful', 'error', 'close')),
);

const addresses = fc.array(fc.array(behaviour, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 3 });

/** The race's own option: the stagger between addresses. */
const attemptDelay = fc.oneof(fc.constant(250), fc.integer({ min: 100, max: 2000 }));

/** Attempts over every address after which the servers stop answering, so that even a schedule with no floor ends. */
const HARD_LIMIT = 2000;

/** The server's hint on `error`: a RetryAfterError, or for values its constructor refuses a hand-made one with its brand. */
function withHint(error: Error, h: Hint | undefined): Error {
  if (h === undefined) return error;
  if (typeof h.value === 'number' && h.value >= 0) return retryAfter(error, h.value);
  return Object.defineProperties(error, {
    [Symbol.for('redialer.RetryAfterError')]: { value: true },
    delay: { value: h.value },
  });
}

interface Recorded extends AddressAttempt {
  end?: AttemptEnd;
  readyAt?: number;
  open: boolean;
}

function run(
  servers: readonly (readonly Behaviour[])[],
  stagger: number,
  policy: PolicySpec,
  options: ManagerSpec,
  random: RandomSpec,
  /** Run at least this long (ms of virtual time), up to {@link HARD_LIMIT} attempts. */
  horizon = 0,
): string[] {
  const clock = createVirtualClock();
  const passes: { start: number; end?: AttemptEnd }[] = [];
  const attempts: Recorded[][] = servers.map(() => []);
  /** The hint each error carried, for the trace. */
  const hints = new WeakMap<object, unknown>();
  let stopping = false;
  let mostOpen = 0;
  let mostOpenOne = 0;
  const total = () => attempts.reduce((n, list) => n + list.length, 0);
  const openNow = () => attempts.reduce((n, list) => n + list.filter((a) => a.open).length, 0);

  const address =
    (n: number): Connector<string> =>
    (context: AttemptContext) =>
      new Observable<string>((subscriber) => {
        const list = attempts[n] ?? [];
        mostOpen = Math.max(mostOpen, openNow() + 1);
        mostOpenOne = Math.max(mostOpenOne, list.filter((a) => a.open).length + 1);
        const record: Recorded = { start: clock.now(), pass: passes.length - 1, open: true };
        const script = servers[n] ?? [];
        const b: Behaviour =
          total() >= HARD_LIMIT
            ? { kind: 'black-hole' }
            : (script[list.length % script.length] ?? { kind: 'black-hole' });
        list.push(record);
        const timers: Subscription[] = [];
        const at: At = (delay, act) => {
          timers.push(clock.scheduler.schedule(act, delay));
        };
        const timeline = { at, now: () => clock.now() };
        const fail = (end: AttemptEnd, error: Error, h: Hint | undefined) => {
          record.end ??= end;
          record.open = false;
          const hinted = withHint(error, h);
          hints.set(hinted, h?.value);
          subscriber.error(end.kind === 'lost' && end.graceful ? markGracefulEnd(hinted) : hinted);
        };
        // The race's teardown is followed by an abort whose reason says why: cut, or shut down or lost.
        let tornDown = false;
        context.signal.addEventListener('abort', () => {
          if (tornDown && isConnectTimeoutError(context.signal.reason) && record.readyAt === undefined)
            record.end = { kind: 'failed', at: clock.now() };
        });
        switch (b.kind) {
          case 'refuse':
            at(b.after, () => {
              fail({ kind: 'failed', at: clock.now(), hint: b.hint?.value }, new Error('ECONNREFUSED'), b.hint);
            });
            break;
          case 'accept-close':
            at(b.after, () => {
              record.end ??= { kind: 'failed', at: clock.now() };
              record.open = false;
              subscriber.complete();
            });
            break;
          case 'black-hole':
            break;
          case 'up':
            playUp(b, record, timeline, {
              ready: () => {
                subscriber.next(`address ${String(n + 1)}`);
              },
              ends: (readyAt) => {
                const end = { kind: 'lost', readyAt, at: clock.now(), graceful: false, hint: b.hint?.value } as const;
                if (b.end === 'close') {
                  record.end ??= { ...end, hint: undefined };
                  record.open = false;
                  subscriber.complete();
                } else if (b.end === 'graceful') fail({ ...end, graceful: true }, new Error('going away'), b.hint);
                else fail(end, new Error('ECONNRESET'), b.hint);
              },
            });
            break;
        }
        return () => {
          for (const timer of timers) timer.unsubscribe();
          if (!record.open) return;
          record.open = false;
          tornDown = true;
          record.end ??= { kind: 'stopped', at: clock.now() };
        };
      });

  const backoff = policyOf(policy);
  const race = happyEyeballs(
    servers.map((_, n) => ({ label: `address ${String(n + 1)}`, connector: address(n) })),
    { attemptDelay: stagger, backoff, scheduler: clock.scheduler, random: randomOf(random) },
  );
  /** The race, recording each pass (the manager's attempt) as the manager sees it. */
  const connector: Connector<string> = (context) =>
    new Observable<string>((subscriber) => {
      const pass: { start: number; end?: AttemptEnd } = { start: clock.now() };
      passes.push(pass);
      let readyAt: number | undefined;
      const ended = (error: unknown, clean: boolean): AttemptEnd =>
        readyAt === undefined
          ? { kind: 'failed', at: clock.now(), delegated: !clean && isConnectorBackoffError(error) }
          : {
              kind: 'lost',
              readyAt,
              at: clock.now(),
              graceful: !clean && isGracefulEnd(error),
              hint: typeof error === 'object' && error !== null ? hints.get(error) : undefined,
            };
      const inner = race(context).subscribe({
        next: (connection) => {
          readyAt ??= clock.now();
          subscriber.next(connection);
        },
        error: (error: unknown) => {
          pass.end ??= ended(error, false);
          subscriber.error(error);
        },
        complete: () => {
          pass.end ??= ended(undefined, true);
          subscriber.complete();
        },
      });
      return () => {
        pass.end ??= { kind: stopping || readyAt !== undefined ? 'stopped' : 'failed', at: clock.now() };
        inner.unsubscribe();
      };
    });

  const rules = runManager({
    clock,
    connector,
    backoff,
    options,
    random,
    done: () =>
      (clock.now() >= horizon && (passes.length >= MAX_ATTEMPTS || total() >= 2 * MAX_ATTEMPTS)) ||
      total() >= HARD_LIMIT,
    stopping: () => {
      stopping = true;
    },
  });
  const problems = raceViolations({ passes, addresses: attempts, end: clock.now() }, rules);
  if (mostOpenOne > 1) problems.push(`${String(mostOpenOne)} attempts of one address were open at once`);
  if (mostOpen > servers.length)
    problems.push(`${String(mostOpen)} attempts were open at once over ${String(servers.length)} addresses`);
  if (openNow() > 0) problems.push(`${String(openNow())} attempts open after shutdown()`);
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after shutdown()`);
  return problems;
}

describe('happyEyeballs under a ConnectionManager on virtual time: the schedule invariant against generated servers', () => {
  it('2 or 3 addresses, any servers, any policy and options', () => {
    fc.assert(
      fc.property(addresses, attemptDelay, policySpec, managerSpec, randomSpec, (...args) => {
        expect(run(...args)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('an address that refuses asking for 1e30 ms is tried again within the hint ceiling', () => {
    fc.assert(
      fc.property(
        fc.array(
          behaviour.filter((b) => b.kind === 'refuse'),
          { minLength: 1, maxLength: 3 },
        ),
        attemptDelay,
        policySpec,
        managerSpec,
        randomSpec,
        (other, stagger, policy, options, random) => {
          const asks: Behaviour = { kind: 'refuse', after: 0, hint: HUGE_HINT };
          // Long enough for the other address's failed passes to come after the longest allowed wait.
          const horizon = longestAllowedWait({ backoff: policyOf(policy), ...options }) + 1000;
          expect(run([[asks], other], stagger, policy, options, random, horizon)).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  });
});
