import { ConnectionManager, type ConnectionManagerOptions, type ConnectionSnapshot } from '../../src/index.js';
import { createFakeConnector, createVirtualClock, type FakeAttempt } from '../../src/testing/index.js';

/** A manager on a virtual clock with a fake connector, recording every snapshot and attempt start. */
export function harness(
  options: Omit<ConnectionManagerOptions<string>, 'connector' | 'scheduler'> = {},
  respond?: (attempt: FakeAttempt<string>) => void,
) {
  const clock = createVirtualClock();
  const starts: number[] = [];
  const fake = createFakeConnector((attempt) => {
    starts.push(clock.now());
    respond?.(attempt);
  });
  const manager = new ConnectionManager<string>({
    random: () => 0.5,
    ...options,
    connector: fake.connector,
    scheduler: clock.scheduler,
  });
  const snapshots: ConnectionSnapshot<string>[] = [];
  let completed = false;
  manager.state$.subscribe({
    next: (s) => snapshots.push(s),
    complete: () => {
      completed = true;
    },
  });
  return {
    clock,
    fake,
    manager,
    starts,
    snapshots,
    states: () => snapshots.map((s) => s.state),
    completed: () => completed,
    /** Waits between consecutive attempt starts, in seconds. */
    waits: () => starts.slice(1).map((t, i) => (t - (starts[i] ?? 0)) / 1000),
  };
}

/** The protocol page's nominal wait n (1-based), in ms. */
export function nominalWait(n: number): number {
  return Math.min(1000 * 1.6 ** (n - 1), 120_000);
}
