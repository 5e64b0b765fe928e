/**
 * Model-based tests of the connection manager (fast-check commands): random sequences of connector
 * outcomes (establish, fail, close, hang), time advances, resets, idles, shutdowns and subscriptions,
 * with the protocol's invariants checked after every step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ConnectionSnapshot, ConnectionManager, isConnectTimeoutError } from '../../src/index.js';
import { isAllowedTransition } from '../../src/core/index.js';
import { type FakeAttempt, createFakeConnector, createVirtualClock } from '../../src/testing/index.js';
import { nominalWait } from '../support/harness.js';

const MIN_CONNECT_TIMEOUT = 20_000;
const MIN_UPTIME = 5000;

interface Real {
  readonly clock: ReturnType<typeof createVirtualClock>;
  readonly fake: ReturnType<typeof createFakeConnector<string>>;
  readonly manager: ConnectionManager<string>;
  readonly emitted: ConnectionSnapshot<string>[];
  /** Index into `emitted` at the last connect() or resetBackoff(): either may start an attempt early. */
  requestedAt: number;
  cutTimes: Map<FakeAttempt<string>, number>;
  startTimes: Map<FakeAttempt<string>, number>;
}

interface Model {
  steps: number;
}

function setup(): Real {
  const clock = createVirtualClock();
  const startTimes = new Map<FakeAttempt<string>, number>();
  const fake = createFakeConnector((attempt) => startTimes.set(attempt, clock.now()));
  const manager = new ConnectionManager<string>({
    connector: fake.connector,
    scheduler: clock.scheduler,
    random: () => 0.5,
    minConnectTimeout: MIN_CONNECT_TIMEOUT,
    minUptime: MIN_UPTIME,
  });
  const real: Real = { clock, fake, manager, emitted: [], requestedAt: -1, cutTimes: new Map(), startTimes };
  manager.state$.subscribe((s) => {
    real.emitted.push(s);
    if (s.state === 'TRANSIENT_FAILURE' && isConnectTimeoutError(s.lastError)) {
      const attempt = fake.attempts.at(-1);
      if (attempt !== undefined) real.cutTimes.set(attempt, clock.now());
    }
  });
  return real;
}

/** Checks every invariant over everything emitted so far. */
function checkInvariants(real: Real, from: number): void {
  const { emitted, fake, clock, manager } = real;
  // state$ replays the current state to a new subscriber.
  let replayed: ConnectionSnapshot<string> | undefined;
  manager.state$.subscribe((s) => (replayed ??= s)).unsubscribe();
  expect(replayed).toBe(manager.snapshot);
  // Never two attempts in flight, never more than one timer.
  expect(fake.inFlight()).toBeLessThanOrEqual(1);
  expect(clock.pendingTimers()).toBeLessThanOrEqual(1);
  for (let i = Math.max(1, from); i < emitted.length; i += 1) {
    const prev = emitted[i - 1]!;
    const next = emitted[i]!;
    // Only allowed transitions, or a data update after resetBackoff: within CONNECTING (the cut moves
    // forward), or within TRANSIENT_FAILURE when the floor on attempt starts holds the next attempt
    // back (the wait is brought forward to the floor, never pushed back).
    if (prev.state !== next.state) expect(isAllowedTransition(prev.state, next.state)).toBe(true);
    else if (prev.state === 'TRANSIENT_FAILURE' && next.state === 'TRANSIENT_FAILURE') {
      expect(next.nextAttemptAt).toBeLessThan(prev.nextAttemptAt);
      expect(next.lastError).toBe(prev.lastError);
    } else expect(next.state).toBe('CONNECTING');
    // Every attempt is cut at max(deadline, start + minConnectTimeout).
    if (next.state === 'CONNECTING' && prev.state !== 'CONNECTING') {
      expect(next.timeoutAt).toBeCloseTo(next.since + Math.max(nominalWait(next.attempt), MIN_CONNECT_TIMEOUT), 6);
    }
  }
  // Attempt numbers count up within a backoff cycle.
  const starts = emitted.filter((s, i) => s.state === 'CONNECTING' && emitted[i - 1]?.state !== 'CONNECTING');
  for (let i = 1; i < starts.length; i += 1) {
    expect([1, starts[i - 1]!.attempt + 1]).toContain(starts[i]!.attempt);
  }
  // A cut happens at the attempt's planned timeoutAt (resetBackoff may bring it forward), and never
  // before start + minConnectTimeout.
  for (const [attempt, at] of real.cutTimes) {
    expect(at).toBeLessThanOrEqual(attempt.context.timeoutAt + 1e-6);
    expect(at - (real.startTimes.get(attempt) ?? NaN)).toBeGreaterThanOrEqual(MIN_CONNECT_TIMEOUT - 1e-6);
  }
  // After SHUTDOWN: nothing pending, nothing emitted.
  if (manager.snapshot.state === 'SHUTDOWN') {
    expect(clock.pendingTimers()).toBe(0);
    expect(fake.inFlight()).toBe(0);
    expect(emitted.filter((s) => s.state === 'SHUTDOWN')).toHaveLength(1);
    expect(emitted.at(-1)?.state).toBe('SHUTDOWN');
  }
}

/** No automatic attempt starts before the deadline of the attempt before it. */
function checkNoEarlyStart(real: Real, before: number): void {
  const { emitted } = real;
  for (let i = before; i < emitted.length; i += 1) {
    const s = emitted[i]!;
    if (s.state !== 'CONNECTING' || emitted[i - 1]?.state === 'CONNECTING') continue;
    const previous = [...emitted.slice(0, i)].reverse().find((e) => e.state === 'CONNECTING');
    if (previous === undefined || real.requestedAt >= emitted.lastIndexOf(previous)) continue;
    const ready = emitted.slice(emitted.indexOf(previous), i).find((e) => e.state === 'READY');
    const lost = emitted
      .slice(emitted.indexOf(previous), i)
      .find((e) => e.state === 'TRANSIENT_FAILURE' || e.state === 'IDLE');
    const stable = ready !== undefined && lost !== undefined && lost.since - ready.since >= MIN_UPTIME;
    const floor = previous.since + (stable ? nominalWait(1) : nominalWait(previous.attempt));
    expect(s.since).toBeGreaterThanOrEqual(floor - 1e-6);
  }
}

type Cmd = fc.Command<Model, Real>;

class Step implements Cmd {
  constructor(
    readonly label: string,
    readonly act: (real: Real) => void,
    readonly requestsAttempt = false,
  ) {}

  check(): boolean {
    return true;
  }

  run(model: Model, real: Real): void {
    model.steps += 1;
    const from = real.emitted.length;
    const wasShutdown = real.manager.snapshot.state === 'SHUTDOWN';
    if (this.requestsAttempt) real.requestedAt = from;
    this.act(real);
    if (wasShutdown) expect(real.emitted.length).toBe(from);
    checkInvariants(real, from);
    checkNoEarlyStart(real, from);
  }

  toString(): string {
    return this.label;
  }
}

const pending = (real: Real) => (real.fake.last?.status === 'pending' ? real.fake.last : undefined);
const live = (real: Real) => (real.fake.last?.status === 'ended' ? undefined : real.fake.last);

const commands = [
  fc.constant(
    new Step(
      'connect',
      (r) => {
        r.manager.connect();
      },
      true,
    ),
  ),
  fc.constant(
    new Step(
      'resetBackoff',
      (r) => {
        r.manager.resetBackoff();
      },
      true,
    ),
  ),
  fc.constant(
    new Step('idle', (r) => {
      r.manager.idle();
    }),
  ),
  fc.constant(
    new Step('shutdown', (r) => {
      r.manager.shutdown();
    }),
  ),
  fc.constant(
    new Step('establish', (r) => {
      pending(r)?.establish('conn');
    }),
  ),
  fc.constant(
    new Step('fail', (r) => {
      live(r)?.fail(new Error('ECONNRESET'));
    }),
  ),
  fc.constant(
    new Step('close', (r) => {
      live(r)?.close();
    }),
  ),
  fc.integer({ min: 0, max: 150_000 }).map(
    (ms) =>
      new Step(`advance ${String(ms)}`, (r) => {
        r.clock.advanceBy(ms);
      }),
  ),
  fc.constant(
    new Step('subscribe', (r) => {
      const seen: string[] = [];
      r.manager.state$.subscribe((s) => seen.push(s.state)).unsubscribe();
      expect(seen).toEqual([r.manager.snapshot.state]);
    }),
  ),
];

describe('model-based: random sequences keep every invariant', () => {
  it('holds over 500 random command sequences of up to 80 steps', () => {
    let total = 0;
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 80, size: 'max' }), (cmds) => {
        const real = setup();
        const model: Model = { steps: 0 };
        fc.modelRun(() => ({ model, real }), cmds);
        total += model.steps;
        real.manager.shutdown();
        expect(real.clock.pendingTimers()).toBe(0);
        expect(real.fake.inFlight()).toBe(0);
      }),
      { numRuns: 500 },
    );
    expect(total).toBeGreaterThan(10_000); // the steps actually run (and checked)
  });
});
