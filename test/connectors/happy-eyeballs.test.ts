import { describe, expect, it } from 'vitest';
import {
  ConnectionManager,
  constantBackoff,
  type ConnectionSnapshot,
  happyEyeballs,
  isAllAddressesFailedError,
  isBackoffPolicyError,
  isPermanentError,
  PermanentError,
  retryAfter,
} from '../../src/index.js';
import { DEFAULT_ATTEMPT_SPACING, maxStartsIn } from '../../src/core/index.js';
import { createFakeConnector, createVirtualClock, type FakeConnector } from '../../src/testing/index.js';

function setup(count: number, options: { attemptDelay?: number } = {}) {
  const clock = createVirtualClock();
  const fakes: FakeConnector<string>[] = Array.from({ length: count }, () => createFakeConnector());
  const connector = happyEyeballs(
    fakes.map((f, i) => ({ label: `addr${String(i)}`, connector: f.connector })),
    { ...options, scheduler: clock.scheduler, random: () => 0.5 },
  );
  const manager = new ConnectionManager({ connector, scheduler: clock.scheduler, random: () => 0.5 });
  const states: ConnectionSnapshot<string>[] = [];
  manager.state$.subscribe((s) => states.push(s));
  return { clock, fakes, connector, manager, states };
}

const starts = (fake: FakeConnector<string>): number => fake.attempts.length;

describe('happyEyeballs on virtual time', () => {
  it('starts the next address after attemptDelay without interrupting the first; the first to connect wins', () => {
    const { clock, fakes, manager } = setup(3);
    manager.connect();
    expect(fakes.map(starts)).toEqual([1, 0, 0]);
    clock.advanceTo(249);
    expect(fakes.map(starts)).toEqual([1, 0, 0]);
    clock.advanceTo(250);
    expect(fakes.map(starts)).toEqual([1, 1, 0]);
    expect(fakes[0]?.last?.torndown).toBe(false);
    clock.advanceTo(500);
    expect(fakes.map(starts)).toEqual([1, 1, 1]);
    clock.advanceTo(600);
    fakes[1]?.last?.establish('b');
    expect(manager.snapshot.state).toBe('READY');
    expect(manager.snapshot.state === 'READY' && manager.snapshot.connection).toBe('b');
    // The losers are closed, their signals aborted; the winner stays.
    expect(fakes[0]?.last?.torndown).toBe(true);
    expect(fakes[2]?.last?.torndown).toBe(true);
    expect(fakes[0]?.last?.context.signal.aborted).toBe(true);
    expect(fakes[1]?.last?.torndown).toBe(false);
    // No stagger timer is left running: nothing else starts.
    clock.advanceBy(10_000);
    expect(fakes.map(starts)).toEqual([1, 1, 1]);
    manager.shutdown();
    expect(fakes[1]?.last?.torndown).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('starts the next address at once when an attempt fails, even while another is in flight', () => {
    const { clock, fakes, manager } = setup(3);
    manager.connect();
    clock.advanceTo(250);
    expect(fakes.map(starts)).toEqual([1, 1, 0]);
    clock.advanceTo(300);
    fakes[1]?.last?.fail(new Error('ECONNREFUSED'));
    expect(fakes.map(starts)).toEqual([1, 1, 1]);
    expect(fakes[0]?.last?.torndown).toBe(false);
    manager.shutdown();
  });

  it('a black-holed first address delays the connection by attemptDelay only', () => {
    const { clock, fakes, manager } = setup(2, { attemptDelay: 300 });
    manager.connect();
    clock.advanceTo(300);
    clock.advanceTo(310);
    fakes[1]?.last?.establish('b');
    expect(manager.snapshot).toMatchObject({ state: 'READY', since: 310, connection: 'b' });
    manager.shutdown();
  });

  it('after a failed pass each address follows its own backoff; the manager waits for the soonest', () => {
    const { clock, fakes, manager, connector } = setup(3);
    manager.connect();
    clock.advanceTo(100);
    fakes[0]?.last?.fail(new Error('refused 0')); // due at 0 + 1000
    expect(starts(fakes[1]!)).toBe(1);
    clock.advanceTo(300);
    fakes[1]?.last?.fail(new Error('refused 1')); // started at 100: due at 1100
    clock.advanceTo(400);
    fakes[2]?.last?.fail(new Error('refused 2')); // started at 300: due at 1300
    const snapshot = manager.snapshot;
    expect(snapshot.state).toBe('TRANSIENT_FAILURE');
    expect(snapshot.state === 'TRANSIENT_FAILURE' && snapshot.nextAttemptAt).toBe(1000);
    expect(isAllAddressesFailedError(snapshot.lastError)).toBe(true);
    expect((snapshot.lastError as Error).message).toMatch(/addr0: refused 0; addr1: refused 1; addr2: refused 2/);
    let addresses: readonly { nextAttemptAt: number; state: string }[] = [];
    connector.addresses$.subscribe((list) => (addresses = list));
    expect(addresses.map((a) => a.nextAttemptAt)).toEqual([1000, 1100, 1300]);
    expect(addresses.map((a) => a.state)).toEqual(['backing-off', 'backing-off', 'backing-off']);

    // Second pass at 1000: only addr0 is due; addr1 joins at 1250 (stagger after addr0), not at 1100.
    clock.advanceTo(1000);
    expect(fakes.map(starts)).toEqual([2, 1, 1]);
    clock.advanceTo(1249);
    expect(fakes.map(starts)).toEqual([2, 1, 1]);
    clock.advanceTo(1250);
    expect(fakes.map(starts)).toEqual([2, 2, 1]);
    // addr1 fails at once: addr2 is not due until 1300, so it starts then.
    fakes[1]?.last?.fail(new Error('refused 1 again')); // grpc: 1000 * 1.6 = 1600 from 1250
    clock.advanceTo(1299);
    expect(fakes.map(starts)).toEqual([2, 2, 1]);
    clock.advanceTo(1300);
    expect(fakes.map(starts)).toEqual([2, 2, 2]);
    fakes[0]?.last?.fail(new Error('refused 0 again')); // 1600 from 1000
    fakes[2]?.last?.fail(new Error('refused 2 again')); // 1600 from 1300
    expect(addresses.map((a) => a.nextAttemptAt)).toEqual([2600, 2850, 2900]);
    expect(manager.snapshot.state === 'TRANSIENT_FAILURE' && manager.snapshot.nextAttemptAt).toBe(2600);
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('the manager waits for the soonest address, not for its own backoff', () => {
    const { clock, fakes, manager } = setup(2);
    manager.connect();
    clock.advanceTo(100);
    fakes[0]?.last?.fail(new Error('refused')); // due at 1000
    fakes[1]?.last?.fail(new Error('refused')); // started at 100: due at 1100
    clock.advanceTo(1000);
    fakes[0]?.last?.fail(new Error('refused')); // due at 2600; the manager's own backoff: 2600 too
    const snapshot = manager.snapshot;
    expect(snapshot.state === 'TRANSIENT_FAILURE' && snapshot.nextAttemptAt).toBe(1100);
    clock.advanceTo(1100);
    expect(fakes.map(starts)).toEqual([2, 2]);
    manager.shutdown();
  });

  it('addresses with no backoff at all cannot make the manager dial in a tight loop: the floor on attempt starts holds', () => {
    const clock = createVirtualClock();
    const fakes = [
      createFakeConnector((a) => {
        a.fail(new Error('refused'));
      }),
      createFakeConnector((a) => {
        a.fail(new Error('refused'));
      }),
    ];
    const connector = happyEyeballs(
      fakes.map((f) => f.connector),
      { scheduler: clock.scheduler, backoff: constantBackoff(0) },
    );
    const manager = new ConnectionManager({ connector, scheduler: clock.scheduler });
    const passes: number[] = [];
    manager.state$.subscribe((snapshot) => {
      if (snapshot.state === 'CONNECTING') passes.push(snapshot.since);
    });
    manager.connect();
    clock.advanceBy(10_000);
    expect(passes.length).toBeGreaterThan(1);
    expect(passes.length).toBeLessThanOrEqual(maxStartsIn(DEFAULT_ATTEMPT_SPACING, 10_000));
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a server hint on one address is a floor for that address only', () => {
    const { clock, fakes, manager } = setup(2);
    manager.connect();
    fakes[0]?.last?.fail(retryAfter(new Error('busy'), 5000));
    fakes[1]?.last?.fail(new Error('refused'));
    expect(manager.snapshot.state === 'TRANSIENT_FAILURE' && manager.snapshot.nextAttemptAt).toBe(1000);
    clock.advanceTo(1000);
    expect(fakes.map(starts)).toEqual([1, 2]);
    manager.shutdown();
  });

  it('resetBackoff() starts a fresh pass over every address at once', () => {
    const { fakes, manager } = setup(2);
    manager.connect();
    fakes[0]?.last?.fail(new Error('refused'));
    fakes[1]?.last?.fail(new Error('refused'));
    expect(manager.snapshot.state).toBe('TRANSIENT_FAILURE');
    manager.resetBackoff();
    expect(manager.snapshot.state).toBe('CONNECTING');
    expect(fakes.map(starts)).toEqual([2, 1]);
    fakes[0]?.last?.fail(new Error('refused'));
    expect(fakes.map(starts)).toEqual([2, 2]);
    manager.shutdown();
  });

  it('the manager cut counts against the addresses in flight; a lost connection reconnects by the manager rules', () => {
    const { clock, fakes, manager, connector } = setup(2);
    let addresses: readonly { failures: number }[] = [];
    connector.addresses$.subscribe((list) => (addresses = list));
    manager.connect();
    clock.advanceTo(20_000); // both black-holed: the manager cuts the pass at 20 s
    expect(fakes[0]?.attempts[0]?.torndown).toBe(true);
    expect(fakes[1]?.attempts[0]?.torndown).toBe(true);
    expect(fakes[0]?.attempts[0]?.context.signal.aborted).toBe(true);
    // Both count as failed; their waits run from their starts (0 and 250), so both are due: a new
    // pass starts at once with addr0, as the manager itself would after a cut attempt.
    expect(addresses.map((a) => a.failures)).toEqual([1, 1]);
    expect(manager.snapshot.state).toBe('CONNECTING');
    expect(fakes.map(starts)).toEqual([2, 1]);
    clock.advanceBy(250);
    expect(fakes.map(starts)).toEqual([2, 2]);
    // A fresh pass starts when an address is due; addr0 wins and later drops.
    const latest = fakes[0]?.last;
    latest?.establish('a');
    expect(manager.snapshot.state).toBe('READY');
    latest?.fail(new Error('reset'));
    expect(manager.snapshot.state).toBe('TRANSIENT_FAILURE');
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an address that fails permanently is left out; when none is left the manager stops', () => {
    const { clock, fakes, manager } = setup(2);
    manager.connect();
    fakes[0]?.last?.fail(new PermanentError('bad certificate'));
    expect(starts(fakes[1]!)).toBe(1);
    fakes[1]?.last?.fail(new Error('refused'));
    clock.advanceTo(1000);
    expect(fakes.map(starts)).toEqual([1, 2]);
    fakes[1]?.last?.fail(new PermanentError('unauthorized'));
    expect(manager.snapshot.state).toBe('SHUTDOWN');
    expect(isPermanentError(manager.snapshot.lastError)).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('shutdown during a pass aborts every attempt and leaves no timer', () => {
    const { clock, fakes, manager } = setup(3);
    manager.connect();
    clock.advanceTo(260);
    manager.shutdown();
    expect(fakes[0]?.last?.torndown).toBe(true);
    expect(fakes[1]?.last?.torndown).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    clock.advanceBy(5000);
    expect(fakes.map(starts)).toEqual([1, 1, 0]);
  });

  it('clamps attemptDelay to [100, 2000] ms and rejects bad input by name', () => {
    const c = createFakeConnector();
    expect(happyEyeballs([c.connector], { attemptDelay: 10 }).attemptDelay).toBe(100);
    expect(happyEyeballs([c.connector], { attemptDelay: 60_000 }).attemptDelay).toBe(2000);
    expect(happyEyeballs([c.connector]).attemptDelay).toBe(250);
    expect(() => happyEyeballs([])).toThrow(TypeError);
    expect(() => happyEyeballs([c.connector], { attemptDelay: Number.NaN })).toThrow(/"attemptDelay"/);
    expect(() => happyEyeballs([42 as never])).toThrow(/address 0/);
    expect(() => happyEyeballs([c.connector], { backoff: {} as never })).toThrow(/"backoff"/);
  });
});

describe('happyEyeballs follows the one backoff step and hint rule', () => {
  it('a policy that breaks on a later step stops the manager with policy-error, never a 0 ms retry', () => {
    const clock = createVirtualClock();
    const fakes = [createFakeConnector(), createFakeConnector()];
    let steps = 0;
    const breaking = {
      first: () => ({
        get delay() {
          steps += 1;
          return steps > 2 ? NaN : 1000;
        },
        next() {
          return this;
        },
      }),
    };
    const connector = happyEyeballs(
      fakes.map((f) => f.connector),
      { scheduler: clock.scheduler, backoff: breaking },
    );
    const manager = new ConnectionManager({ connector, scheduler: clock.scheduler, random: () => 0.5 });
    manager.connect();
    fakes[0]?.last?.fail(new Error('refused'));
    fakes[1]?.last?.fail(new Error('refused'));
    clock.advanceBy(1000);
    fakes[0]?.last?.fail(new Error('refused')); // its next step is NaN
    expect(manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'policy-error' });
    expect(isBackoffPolicyError(manager.snapshot.lastError)).toBe(true);
    const attempts = fakes.map(starts);
    clock.advanceBy(60_000);
    expect(fakes.map(starts)).toEqual(attempts);
    expect(fakes.reduce((n, f) => n + f.inFlight(), 0)).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an address told to wait 1e30 ms waits at most the ceiling, and measures its backoff from its start', () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector();
    const connector = happyEyeballs([{ label: 'only', connector: fake.connector }], {
      scheduler: clock.scheduler,
      random: () => 0,
    });
    const snapshots: number[] = [];
    connector.addresses$.subscribe((a) => snapshots.push(a[0]?.nextAttemptAt ?? NaN));
    const manager = new ConnectionManager({ connector, scheduler: clock.scheduler, random: () => 0 });
    manager.connect();
    clock.advanceBy(300);
    fake.last?.fail(Object.assign(retryAfter(new Error('503'), 0), { delay: 1e30 }));
    expect(snapshots.at(-1)).toBe(300 + 144_000);
    manager.shutdown();
    // A slow failure eats into its own wait: 1 s from the start, not from the failure.
    const clock2 = createVirtualClock();
    const fake2 = createFakeConnector();
    const he = happyEyeballs([{ label: 'only', connector: fake2.connector }], { scheduler: clock2.scheduler });
    const at: number[] = [];
    he.addresses$.subscribe((a) => at.push(a[0]?.nextAttemptAt ?? NaN));
    const m2 = new ConnectionManager({ connector: he, scheduler: clock2.scheduler });
    m2.connect();
    clock2.advanceBy(400);
    fake2.last?.fail(new Error('refused'));
    expect(at.at(-1)).toBe(1000);
    m2.shutdown();
  });

  it('rejects a bad maxRetryAfter by name', () => {
    expect(() => happyEyeballs([() => undefined as never], { maxRetryAfter: -1 })).toThrow(
      /option "maxRetryAfter" must be/,
    );
  });
});
