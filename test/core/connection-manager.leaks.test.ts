/**
 * Leak checks on real timers: shutdown leaves no active handle behind; and, in a child process, a
 * manager's options are collectable once the manager is gone.
 */
import { NEVER, Observable, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConnectionManager } from '../../src/index.js';
import { fixture, requireDist, runNode } from '../support/child-process.js';

const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('leaks (real timers)', () => {
  it('100 managers waiting in backoff hold one timer each, and none after shutdown', () => {
    const baseline = timeouts();
    const managers = Array.from(
      { length: 100 },
      () => new ConnectionManager({ connector: () => throwError(() => new Error('ECONNREFUSED')) }),
    );
    for (const m of managers) m.connect();
    expect(managers.every((m) => m.snapshot.state === 'TRANSIENT_FAILURE')).toBe(true);
    expect(timeouts() - baseline).toBe(100);
    for (const m of managers) m.shutdown();
    expect(timeouts()).toBe(baseline);
  });

  it('an attempt in flight (cut timer and socket teardown) leaves nothing after shutdown', () => {
    const baseline = timeouts();
    let tornDown = 0;
    const manager = new ConnectionManager({
      connector: () =>
        new Observable<never>(() => () => {
          tornDown += 1;
        }),
    });
    manager.connect();
    expect(timeouts() - baseline).toBe(1);
    manager.shutdown();
    expect(tornDown).toBe(1);
    expect(timeouts()).toBe(baseline);
  });

  it('a pending waitForStateChange with a timeout leaves nothing once settled', async () => {
    const baseline = timeouts();
    const manager = new ConnectionManager({ connector: () => NEVER });
    const wait = manager.waitForStateChange('IDLE', { timeout: 60_000 });
    expect(timeouts() - baseline).toBe(1);
    manager.shutdown();
    await expect(wait).resolves.toBe(true);
    expect(timeouts()).toBe(baseline);
  });
});

describe('leaks (child processes, against dist/)', () => {
  it("a manager's options (its connector and what it holds) are collectable once the manager is gone", async () => {
    requireDist();
    const { stdout } = await runNode(['--expose-gc', fixture('options-retention.mjs')], 15_000);
    expect(stdout).toBe('collected');
  });
});
