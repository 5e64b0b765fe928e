/**
 * The attempt signal, model-based: over random sequences of connector outcomes, time advances,
 * resets, idles and shutdowns, an attempt's `context.signal` is aborted exactly when that attempt is
 * over — cut at its deadline, ended by the connector (failed or closed), or given up by the manager
 * (idle, shutdown) — and not before, whether the connector reads the signal at once, later or never.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionManager, isConnectTimeoutError, isShutdownError } from '../../src/index.js';
import { type FakeAttempt, createFakeConnector, createVirtualClock } from '../../src/testing/index.js';

type Read = 'early' | 'late' | 'never';

type Command =
  | { readonly kind: 'connect' }
  | { readonly kind: 'establish' }
  | { readonly kind: 'fail' }
  | { readonly kind: 'close' }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'reset' }
  | { readonly kind: 'idle' }
  | { readonly kind: 'shutdown' }
  | { readonly kind: 'read-late' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ kind: 'connect' } as const),
  fc.constant({ kind: 'establish' } as const),
  fc.constant({ kind: 'fail' } as const),
  fc.constant({ kind: 'close' } as const),
  fc.integer({ min: 0, max: 30_000 }).map((ms) => ({ kind: 'advance', ms }) as const),
  fc.constant({ kind: 'reset' } as const),
  fc.constant({ kind: 'idle' } as const),
  fc.constant({ kind: 'shutdown' } as const),
  fc.constant({ kind: 'read-late' } as const),
);

interface Tracked {
  readonly attempt: FakeAttempt<string>;
  readonly read: Read;
  signal: AbortSignal | undefined;
  abortedWhileLive: boolean;
}

function run(commands: readonly Command[], reads: readonly Read[]): void {
  const clock = createVirtualClock();
  const tracked: Tracked[] = [];
  const fake = createFakeConnector((attempt) => {
    const read = reads[tracked.length % reads.length] ?? 'never';
    const entry: Tracked = { attempt, read, signal: undefined, abortedWhileLive: false };
    if (read === 'early') {
      const signal = attempt.context.signal;
      entry.signal = signal;
      // Aborting while the attempt is still live would be a premature abort.
      signal.addEventListener('abort', () => {
        if (attempt.status !== 'ended') entry.abortedWhileLive = true;
      });
    }
    tracked.push(entry);
  });
  const manager = new ConnectionManager<string>({
    connector: fake.connector,
    scheduler: clock.scheduler,
    random: () => 0.5,
    minUptime: 1000,
  });
  const live = (): FakeAttempt<string> | undefined => {
    const last = fake.last;
    return last !== undefined && last.status !== 'ended' ? last : undefined;
  };
  for (const c of commands) {
    switch (c.kind) {
      case 'connect':
        manager.connect();
        break;
      case 'establish':
        if (live()?.status === 'pending') live()?.establish('connection');
        break;
      case 'fail':
        live()?.fail(new Error('refused'));
        break;
      case 'close':
        live()?.close();
        break;
      case 'advance':
        clock.advanceBy(c.ms);
        break;
      case 'reset':
        manager.resetBackoff();
        break;
      case 'idle':
        manager.idle();
        break;
      case 'shutdown':
        manager.shutdown();
        break;
      case 'read-late':
        for (const t of tracked) if (t.read === 'late' && t.signal === undefined) t.signal = t.attempt.context.signal;
        break;
    }
    for (const t of tracked) {
      const over = t.attempt.status === 'ended';
      // Reading at any moment gives the truth, whether or not it was read before.
      expect(
        t.attempt.context.signal.aborted,
        `attempt ${String(t.attempt.context.attempt)} (${t.read}) after ${c.kind}`,
      ).toBe(over);
      expect(t.abortedWhileLive).toBe(false);
      if (t.attempt.torndown) {
        const reason: unknown = t.attempt.context.signal.reason;
        expect(isConnectTimeoutError(reason) || isShutdownError(reason), String(reason)).toBe(true);
      }
    }
  }
  manager.shutdown();
  for (const t of tracked) expect(t.attempt.context.signal.aborted).toBe(true);
  expect(clock.pendingTimers()).toBe(0);
}

describe('the attempt signal', () => {
  it('is aborted exactly when its attempt is over, read early, late or never', () => {
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 1, maxLength: 60 }),
        fc.array(fc.constantFrom<Read>('early', 'late', 'never'), { minLength: 1, maxLength: 5 }),
        (commands, reads) => {
          run([{ kind: 'connect' }, ...commands], reads);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('carries the error that ended the attempt, and a fresh read after the end is already aborted', () => {
    const clock = createVirtualClock();
    const fake = createFakeConnector();
    const manager = new ConnectionManager<string>({ connector: fake.connector, scheduler: clock.scheduler });
    manager.connect();
    const refused = new Error('refused');
    fake.last?.fail(refused);
    expect(fake.attempts[0]?.context.signal.aborted).toBe(true);
    expect(fake.attempts[0]?.context.signal.reason).toBe(refused);
    manager.shutdown();
  });
});
