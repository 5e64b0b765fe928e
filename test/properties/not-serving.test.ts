/**
 * The schedule invariant (test/support/connection-schedule.ts) for a ConnectionManager whose
 * connections' servers report, at generated times, that they are not serving and then serving again
 * (`AttemptContext.reportServing`, which health checking drives), on virtual time. Generated servers
 * refuse, never answer, or accept (reporting not serving before the connection is emitted, or not)
 * and flip any number of times during the connection's life before ending it. The flips never start
 * an attempt and never change the schedule: a connection's uptime counts from its establishment, and
 * its end follows the rules of a READY connection's. The state always says what the last report said.
 *
 * Cases per run: 150.
 */
import fc from 'fast-check';
import { Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConnectionManager, type Connector, markGracefulEnd } from '../../src/index.js';
import { createVirtualClock } from '../../src/testing/index.js';
import { type TracedAttempt, longestAllowedWait, scheduleViolations } from '../support/connection-schedule.js';
import {
  MAX_ATTEMPTS,
  type ManagerSpec,
  type PolicySpec,
  type RandomSpec,
  managerSpec,
  policyOf,
  policySpec,
  randomOf,
  randomSpec,
  runUntilQuiet,
} from './support/generated.js';
import { blackHole, latency, nthBehaviour, uptime, type BlackHole } from './support/servers.js';

type Behaviour =
  | { readonly kind: 'refuse'; readonly after: number }
  | BlackHole
  | {
      readonly kind: 'up';
      readonly after: number;
      readonly uptime: number;
      /** Reported not serving before the connection was emitted. */
      readonly startsNotServing: boolean;
      /** When (ms after establishment) the server's report flips. */
      readonly flips: readonly number[];
      readonly graceful: boolean;
    };

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constant('refuse' as const), after: latency }),
  blackHole,
  fc.record({
    kind: fc.constant('up' as const),
    after: latency,
    uptime,
    startsNotServing: fc.boolean(),
    flips: fc.array(fc.integer({ min: 0, max: 12_000 }), { maxLength: 6 }).map((f) => [...f].sort((a, b) => a - b)),
    graceful: fc.boolean(),
  }),
);

function run(script: readonly Behaviour[], policy: PolicySpec, options: ManagerSpec, random: RandomSpec): string[] {
  const clock = createVirtualClock();
  const attempts: (TracedAttempt & { end?: TracedAttempt['end']; open: boolean; serving?: boolean })[] = [];
  const problems: string[] = [];
  let stopping = false;
  const connector: Connector<number> = (context) =>
    new Observable<number>((subscriber) => {
      const record: (typeof attempts)[number] = { start: clock.now(), open: true };
      const n = attempts.length;
      attempts.push(record);
      const b = nthBehaviour<Behaviour>(script, n, { kind: 'black-hole' });
      const timers: Subscription[] = [];
      const at = (delay: number, act: () => void): void => {
        timers.push(clock.scheduler.schedule(act, delay));
      };
      if (b.kind === 'refuse') {
        at(b.after, () => {
          record.end = { kind: 'failed', at: clock.now() };
          record.open = false;
          subscriber.error(new Error('ECONNREFUSED'));
        });
      } else if (b.kind === 'up') {
        at(b.after, () => {
          const readyAt = clock.now();
          record.serving = !b.startsNotServing;
          if (b.startsNotServing) context.reportServing(false);
          subscriber.next(n);
          for (const flip of b.flips.filter((f) => f < b.uptime)) {
            at(flip, () => {
              record.serving = record.serving !== true;
              context.reportServing(record.serving);
            });
          }
          at(b.uptime, () => {
            record.end = { kind: 'lost', readyAt, at: clock.now(), graceful: b.graceful };
            record.open = false;
            const error = new Error('ECONNRESET');
            subscriber.error(b.graceful ? markGracefulEnd(error) : error);
          });
        });
      }
      return () => {
        for (const timer of timers) timer.unsubscribe();
        if (!record.open) return;
        record.open = false;
        record.end ??= { kind: record.serving === undefined && !stopping ? 'failed' : 'stopped', at: clock.now() };
      };
    });

  const backoff = policyOf(policy);
  const rules = { backoff, ...options };
  const { attemptSpacing, ...rest } = options;
  const manager = new ConnectionManager({
    connector,
    backoff,
    scheduler: clock.scheduler,
    random: randomOf(random),
    ...rest,
    ...(attemptSpacing === undefined ? {} : { attemptSpacing }),
  });
  // The state says what the open connection's last report said, at every change.
  const watch = manager.state$.subscribe((snapshot) => {
    const open = attempts.at(-1);
    if (snapshot.state === 'READY' && open?.serving !== true)
      problems.push(`READY at ${String(clock.now())} ms while the server reported not serving`);
    if (snapshot.state === 'TRANSIENT_FAILURE' && snapshot.connected === true && open?.serving !== false)
      problems.push(`not serving at ${String(clock.now())} ms while the server reported serving`);
  });
  try {
    manager.connect();
    runUntilQuiet(clock, longestAllowedWait(rules) + 1000, () => attempts.length >= MAX_ATTEMPTS);
  } finally {
    stopping = true;
    manager.shutdown();
    watch.unsubscribe();
  }
  problems.push(...scheduleViolations({ attempts, end: clock.now() }, rules));
  if (attempts.some((a) => a.open)) problems.push('an attempt is open after shutdown()');
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after shutdown()`);
  return problems;
}

describe('ConnectionManager with servers that report not serving: the schedule invariant on virtual time', () => {
  it('any servers, flips, policy and options', () => {
    fc.assert(
      fc.property(
        fc.array(behaviour, { minLength: 1, maxLength: 5 }),
        policySpec,
        managerSpec,
        randomSpec,
        (...args) => {
          expect(run(...args)).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
