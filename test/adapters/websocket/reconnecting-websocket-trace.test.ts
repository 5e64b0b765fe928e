/**
 * The client's trace costs nothing unless asked for: the machine writes a transition's detail only
 * when it is read, and the client reads it only for a `trace` or `debug` the application gave. The
 * machine's `transition` is wrapped here to count transitions and reads of their `detail`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Machine from '../../../src/core/connection-machine.js';
import type { TraceEntry } from '../../../src/index.js';
import type { ReconnectingWebSocket, ReconnectingWebSocketOptions } from '../../../src/adapters/websocket/index.js';
import { fakeClient } from '../../support/websocket/fake-client.js';

const counts = vi.hoisted(() => ({ transitions: 0, detailReads: 0 }));

vi.mock('../../../src/core/connection-machine.js', async (importOriginal) => {
  const machine = await importOriginal<typeof Machine>();
  return {
    ...machine,
    transition: (...args: Parameters<typeof machine.transition>) => {
      const result = machine.transition(...args);
      counts.transitions += 1;
      return {
        state: result.state,
        effects: result.effects,
        get detail() {
          counts.detailReads += 1;
          return result.detail;
        },
      };
    },
  };
});

const open: ReconnectingWebSocket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) if (socket.snapshot.state !== 'SHUTDOWN') socket.close();
});

/** Ten refused attempts, then a connection that opens and is closed: a few dozen transitions. */
function run(options: ReconnectingWebSocketOptions): void {
  counts.transitions = 0;
  counts.detailReads = 0;
  const h = fakeClient(open, { minReconnectionDelay: 100, maxReconnectionDelay: 100, ...options });
  for (let i = 0; i < 10; i += 1) {
    h.last().fail();
    h.clock.advanceBy(100);
  }
  h.last().open();
  h.socket.resetBackoff();
  h.socket.close();
  h.last().finish();
}

describe('trace', () => {
  it('a client without trace or debug never reads a transition detail', () => {
    run({});
    expect(counts.transitions).toBeGreaterThan(20);
    expect(counts.detailReads).toBe(0);
  });

  it('a trace receives every transition, each with its detail', () => {
    const entries: TraceEntry[] = [];
    run({ trace: (entry) => entries.push(entry) });
    expect(entries).toHaveLength(counts.transitions);
    expect(counts.detailReads).toBe(counts.transitions);
    expect(entries.every((e) => e.detail !== '')).toBe(true);
    expect(entries.at(-1)).toMatchObject({ event: 'shutdown', from: 'READY', to: 'SHUTDOWN' });
  });

  it('debug logs every transition without a trace', () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '));
    });
    try {
      run({ debug: true });
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(counts.transitions);
    expect(lines.at(-1)).toMatch(/^redialer\/websocket READY -> SHUTDOWN \(shutdown\): /);
  });
});
