/**
 * connectionStatus() and connectionEvents() as marble diagrams on RxJS's TestScheduler.
 *
 * Snapshot letters (input): i IDLE, c CONNECTING, r READY, t TRANSIENT_FAILURE, o IDLE paused (offline),
 * s SHUTDOWN after a permanent failure, x SHUTDOWN by shutdown(), u TRANSIENT_FAILURE on an open
 * connection whose server is not serving (health checking).
 * Status letters (output): C connected; n/N connecting, r/R reconnecting, O offline, u/U unavailable,
 * f/F failed —
 * lower case hidden (visible: false), upper case shown (visible: true).
 * Event letters: l lost, b restored (back), f failed.
 */
import { map, Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  type ConnectionStatus,
  type StatusSnapshot,
  ConnectionManager,
  type ConnectionManagerOptions,
  connectionEvents,
  connectionStatus,
  grpcBackoff,
} from '../../src/index.js';
import { NotServingError } from '../../src/errors/not-serving-error.js';
import { createVirtualClock } from '../../src/testing/index.js';

const refused = new Error('ECONNREFUSED');
const fatal = new Error('403');
const notServing = new NotServingError('');

/** Snapshots by letter; `t` waits 1 s from its own time, which the tests do not depend on. */
const SNAPSHOTS: Record<string, StatusSnapshot> = {
  i: { state: 'IDLE', since: 0, attempt: 0, lastError: undefined },
  c: { state: 'CONNECTING', since: 0, attempt: 1, lastError: refused, timeoutAt: 20_000 },
  r: { state: 'READY', since: 0, attempt: 1, lastError: undefined, connection: 'conn' },
  t: { state: 'TRANSIENT_FAILURE', since: 0, attempt: 1, lastError: refused, nextAttemptAt: 1000 },
  o: { state: 'IDLE', since: 0, attempt: 1, lastError: refused, paused: true },
  u: {
    state: 'TRANSIENT_FAILURE',
    since: 0,
    attempt: 1,
    lastError: notServing,
    nextAttemptAt: Infinity,
    connected: true,
    connection: 'conn',
  },
  s: { state: 'SHUTDOWN', since: 0, attempt: 1, lastError: fatal, reason: 'permanent-failure' },
  x: { state: 'SHUTDOWN', since: 0, attempt: 1, lastError: undefined, reason: 'shutdown' },
};

const CODE: Record<ConnectionStatus['phase'], string> = {
  connected: 'c',
  connecting: 'n',
  reconnecting: 'r',
  offline: 'o',
  unavailable: 'u',
  failed: 'f',
};
const code = (s: ConnectionStatus): string => (s.visible ? CODE[s.phase].toUpperCase() : CODE[s.phase]);
const codes = (status$: Observable<ConnectionStatus>) => status$.pipe(map(code));
const STATUS_VALUES = Object.fromEntries('cnroufCNROUF'.split('').map((c) => [c, c]));
const EVENT_VALUES = { l: 'l', b: 'b', f: 'f' };
const EVENT_CODE = { lost: 'l', restored: 'b', failed: 'f' } as const;
const eventCodes = (status$: Observable<ConnectionStatus>) =>
  connectionEvents(status$).pipe(map((e) => EVENT_CODE[e.type]));

function run(body: (helpers: Parameters<Parameters<TestScheduler['run']>[0]>[0], ts: TestScheduler) => void): void {
  const ts = new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
  ts.run((helpers) => {
    body(helpers, ts);
  });
}

/** A manager on `ts` whose n-th attempt (from 1) is `attempt(n)`. */
function scriptedManager(
  ts: TestScheduler,
  attempt: (n: number) => Observable<string>,
  options: Omit<ConnectionManagerOptions<string>, 'connector'> = {},
): ConnectionManager<string> {
  let attempts = 0;
  return new ConnectionManager<string>({
    scheduler: ts,
    random: () => 0.5,
    ...options,
    connector: () => {
      attempts += 1;
      return attempt(attempts);
    },
  });
}

describe('connectionStatus: phases', () => {
  it('the first connection is "connecting", shown once it has taken longer than the grace period', () => {
    run(({ cold, expectObservable }, ts) => {
      const state$ = cold<StatusSnapshot>('i 9ms c 9ms t 4999ms c 9ms r', SNAPSHOTS);
      // IDLE at 0 (not trying: hidden, no grace); the outage starts at the first attempt (10 ms) and is
      // shown at 5010 ms; READY at 5030 ms.
      expectObservable(codes(connectionStatus(state$, { scheduler: ts }))).toBe(
        'n 9ms n 9ms n 4989ms N 9ms N 9ms c',
        STATUS_VALUES,
      );
    });
  });

  /**
   * Rules read from snapshots alone: connectionStatus over `snapshots` (letters of SNAPSHOTS) emits
   * `status`, and connectionEvents over it emits `events`.
   */
  const PHASES: readonly { name: string; snapshots: string; status: string; events: string }[] = [
    {
      name: 'a blip shorter than the grace period never shows, and raises no event',
      snapshots: 'r 99ms t 999ms c 9ms r',
      status: 'c 99ms r 999ms r 9ms c',
      events: '',
    },
    {
      name: 'an outage longer than the grace period shows "reconnecting" at exactly graceMs, lost then restored',
      snapshots: 'r 99ms t 999ms c 4999ms t 9ms c 9ms r',
      // lost at 100 ms, shown at 5100 ms; the next t (6100) and c (6110) stay shown; READY at 6120.
      status: 'c 99ms r 999ms r 3999ms R 999ms R 9ms R 9ms c',
      events: '5100ms l 1019ms b',
    },
    {
      name: 'a server not serving on an open connection is "unavailable", shown after the grace period, lost then restored',
      snapshots: 'r 99ms u 5999ms r',
      status: 'c 99ms u 4999ms U 999ms c',
      events: '5100ms l 999ms b',
    },
    {
      name: 'the first connection not serving from the start is "unavailable" too',
      snapshots: 'c 9ms u',
      // The outage began with the first attempt, at 0.
      status: 'n 9ms u 4989ms U',
      events: '',
    },
    {
      name: 'a connection lost while not serving is "reconnecting", and the outage keeps its start',
      snapshots: 'r 99ms u 4899ms t 999ms c',
      status: 'c 99ms u 4899ms r 99ms R 899ms R',
      events: '5100ms l',
    },
    {
      name: 'shutdown() by the app is "failed" but hidden, and raises no event',
      snapshots: 'r 9ms x|',
      status: 'c 9ms f|',
      events: '11ms |',
    },
  ];
  it.each(PHASES.map((row) => [row.name, row] as const))('%s', (_name, { snapshots, status, events }) => {
    run(({ cold, expectObservable }, ts) => {
      const status$ = connectionStatus(cold<StatusSnapshot>(snapshots, SNAPSHOTS), { scheduler: ts });
      expectObservable(codes(status$)).toBe(status, STATUS_VALUES);
      expectObservable(eventCodes(status$)).toBe(events, EVENT_VALUES);
    });
  });

  it('offline shows at once (no grace), raises lost at once, and stays shown while it reconnects', () => {
    run(({ cold, expectObservable }, ts) => {
      const status$ = connectionStatus(cold<StatusSnapshot>('r 9ms o 99ms c 9ms r', SNAPSHOTS), { scheduler: ts });
      expectObservable(codes(status$)).toBe('c 9ms O 99ms R 9ms c', STATUS_VALUES);
      expectObservable(eventCodes(status$)).toBe('10ms l 109ms b', EVENT_VALUES);
      expectObservable(codes(connectionStatus(cold<StatusSnapshot>('t 9ms o', SNAPSHOTS), { scheduler: ts }))).toBe(
        'n 9ms O',
        STATUS_VALUES,
      );
    });
  });

  it('a permanent failure is "failed", shown at once with its reason; the stream completes with state$', () => {
    run(({ cold, expectObservable }, ts) => {
      const status$ = connectionStatus(cold<StatusSnapshot>('r 9ms s|', SNAPSHOTS), { scheduler: ts });
      expectObservable(codes(status$)).toBe('c 9ms F|', STATUS_VALUES);
      expectObservable(eventCodes(status$)).toBe('10ms f|', EVENT_VALUES);
      expectObservable(status$.pipe(map((s) => s.reason))).toBe('a 9ms b|', { a: undefined, b: fatal });
    });
  });

  it('IDLE after a connection (an idle channel) is "reconnecting" but never shown, however long', () => {
    run(({ cold, expectObservable }, ts) => {
      const status$ = connectionStatus(cold<StatusSnapshot>('r 9ms i 19999ms c', SNAPSHOTS), { scheduler: ts });
      // The grace period starts with the attempt at 20010 ms, not with IDLE.
      expectObservable(codes(status$)).toBe('c 9ms r 19999ms r 4999ms R', STATUS_VALUES);
    });
  });

  it('graceMs: 0 shows every outage at once; a longer grace waits longer', () => {
    run(({ cold, expectObservable }, ts) => {
      expectObservable(
        codes(connectionStatus(cold<StatusSnapshot>('r 9ms t', SNAPSHOTS), { scheduler: ts, graceMs: 0 })),
      ).toBe('c 9ms R', STATUS_VALUES);
      expectObservable(
        codes(connectionStatus(cold<StatusSnapshot>('r 9ms t', SNAPSHOTS), { scheduler: ts, graceMs: 10_000 })),
      ).toBe('c 9ms r 9999ms R', STATUS_VALUES);
    });
  });

  it('carries retryAt while waiting, the attempt and the last error; snapshots are frozen', () => {
    run(({ cold, expectObservable }, ts) => {
      const status$ = connectionStatus(cold<StatusSnapshot>('r 9ms t 9ms c', SNAPSHOTS), { scheduler: ts });
      expectObservable(status$.pipe(map((s) => [s.retryAt, s.attempt, s.reason, s.since, Object.isFrozen(s)]))).toBe(
        'a 9ms b 9ms c 4989ms d',
        {
          a: [undefined, 1, undefined, 0, true],
          b: [1000, 1, refused, 10, true],
          c: [undefined, 1, refused, 10, true], // still "reconnecting" since 10 ms
          d: [undefined, 1, refused, 10, true], // shown at 5010 ms
        },
      );
    });
  });
});

describe('connectionStatus over a real ConnectionManager', () => {
  it('follows the manager through refused attempts to READY, with retryAt equal to nextAttemptAt', () => {
    run(({ cold, expectObservable }, ts) => {
      const manager = scriptedManager(
        ts,
        (n) => (n < 5 ? cold('5ms #', undefined, refused) : cold('5ms a', { a: 'conn' })),
        { backoff: grpcBackoff() },
      );
      manager.connect();
      ts.schedule(() => {
        manager.shutdown();
      }, 10_000);
      // Attempts start at 0, 1000, 2600, 5160 and 9256 ms (gRPC's backoff, no jitter at random 0.5).
      // The outage is shown at 5000 ms, in the wait before the fourth attempt; READY at 9261 ms;
      // shutdown() at 10 s: "failed", hidden.
      const status$ = connectionStatus(manager.state$, { scheduler: ts });
      expectObservable(
        status$.pipe(map((s) => `${code(s)}${s.retryAt === undefined ? '' : `@${String(s.retryAt)}`}`)),
      ).toBe('a 4ms b 994ms a 4ms c 1594ms a 4ms d 2394ms e 159ms f 4ms g 4090ms h 4ms i 738ms (j|)', {
        a: 'n',
        b: 'n@1000',
        c: 'n@2600',
        d: 'n@5160',
        e: 'N@5160',
        f: 'N',
        g: 'N@9256',
        h: 'N',
        i: 'c',
        j: 'f',
      });
    });
  });
});

describe('connectionStatus over a paused ConnectionManager', () => {
  it('pause({ offline: true }) shows "offline" at once, also while the connection is still open; resume() reconnects, still shown, until READY', () => {
    run(({ cold, expectObservable }, ts) => {
      const manager = scriptedManager(ts, (n) =>
        n === 1 ? cold('5ms a 95ms #', { a: 'conn' }, refused) : cold('5ms a', { a: 'conn' }),
      );
      manager.connect();
      // READY at 5 ms; paused at 50 ms (offline: READY with paused, shown at once), so the loss at
      // 101 ms waits in IDLE, still offline (with the loss as reason); resume() at 3 s.
      const calls = {
        50: () => {
          manager.pause({ offline: true });
        },
        3000: () => {
          manager.resume();
        },
        4000: () => {
          manager.shutdown();
        },
      };
      for (const [at, call] of Object.entries(calls)) ts.schedule(call, Number(at));
      const status$ = connectionStatus(manager.state$, { scheduler: ts });
      expectObservable(codes(status$)).toBe('n 4ms c 44ms O 50ms O 2898ms R 4ms c 994ms (f|)', STATUS_VALUES);
      expectObservable(eventCodes(status$)).toBe('50ms l 2954ms b 994ms |', EVENT_VALUES);
    });
  });
});

describe('connectionStatus: options and cleanup', () => {
  it('rejects a bad graceMs or scheduler, naming the option and value', () => {
    const state$ = new ConnectionManager({ connector: () => new Observable<never>(() => undefined) }).state$;
    expect(() => connectionStatus(state$, { graceMs: -1 })).toThrow(
      /option "graceMs" must be a finite number >= 0, got -1/,
    );
    expect(() => connectionStatus(state$, { graceMs: Number.NaN })).toThrow(RangeError);
    expect(() => connectionStatus(state$, { graceMs: '5s' as unknown as number })).toThrow(TypeError);
    expect(() => connectionStatus(state$, { scheduler: {} as never })).toThrow(
      /option "scheduler" must be an RxJS SchedulerLike/,
    );
  });

  it('unsubscribing cancels the grace timer', () => {
    const clock = createVirtualClock();
    const manager = new ConnectionManager({
      scheduler: clock.scheduler,
      connector: () => new Observable<never>(() => undefined),
    });
    manager.connect();
    const seen: boolean[] = [];
    const subscription = connectionStatus(manager.state$, { scheduler: clock.scheduler }).subscribe((s) =>
      seen.push(s.visible),
    );
    const withGrace = clock.pendingTimers();
    subscription.unsubscribe();
    expect(clock.pendingTimers()).toBe(withGrace - 1);
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    expect(seen).toEqual([false]);
  });
});

describe('connectionStatus: the degraded signal', () => {
  const DEGRADED = { d: new Error('3 calls in a row failed UNAVAILABLE'), k: undefined };

  it('while READY, a reason makes the phase "unavailable" with that reason; undefined ends it', () => {
    run(({ cold, hot, expectObservable }, ts) => {
      const state$ = cold<StatusSnapshot>('r', SNAPSHOTS);
      const degraded = hot<unknown>('-- 99ms d 5999ms k', DEGRADED);
      expectObservable(codes(connectionStatus(state$, { scheduler: ts, degraded }))).toBe(
        'c 100ms u 4999ms U 999ms c',
        STATUS_VALUES,
      );
    });
  });

  it('carries the reason, and a repeated reason emits nothing', () => {
    run(({ cold, hot, expectObservable }, ts) => {
      const state$ = cold<StatusSnapshot>('r', SNAPSHOTS);
      const degraded = hot<unknown>('-d-d', DEGRADED);
      expectObservable(
        connectionStatus(state$, { scheduler: ts, degraded, graceMs: 0 }).pipe(
          map((s) => `${s.phase}:${s.reason instanceof Error ? s.reason.message : String(s.reason)}`),
        ),
      ).toBe('ab', { a: 'connected:undefined', b: 'unavailable:3 calls in a row failed UNAVAILABLE' });
    });
  });

  it('does not apply while there is no connection, and an error of the signal ends it', () => {
    run(({ cold, hot, expectObservable }, ts) => {
      const state$ = cold<StatusSnapshot>('t 9ms r', SNAPSHOTS);
      const degraded = hot<unknown>('d 19ms #', DEGRADED);
      expectObservable(codes(connectionStatus(state$, { scheduler: ts, degraded }))).toBe(
        'n 9ms u 9ms c',
        STATUS_VALUES,
      );
    });
  });

  it('rejects a degraded option that is not an Observable, naming it', () => {
    expect(() => connectionStatus(new Observable<StatusSnapshot>(), { degraded: 42 as never })).toThrow(
      /option "degraded" must be an object with subscribe\(\), got 42/,
    );
  });
});
