/**
 * healthChecked (gRFC A17) on virtual time: a fake connector whose connections are plain objects, a
 * fake Watch transport that records every stream it opens and cancels, and a real ConnectionManager on
 * the virtual clock. READY only after the first Watch answer; not serving is TRANSIENT_FAILURE with
 * `connected: true` on the same connection; UNIMPLEMENTED counts as serving; a failed Watch is retried
 * on gRPC's backoff without touching the connection; teardown leaves no Watch and no timer.
 */
import { Observable, type Subscriber } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import {
  type HealthWatchHandlers,
  type HealthWatchTransport,
  healthChecked,
} from '../../../src/adapters/grpc/health-check/health-checked.js';
import { encodeHealthRequest, type ServingStatus } from '../../../src/adapters/grpc/health-check/health-messages.js';
import type { RandomSource } from '../../../src/backoff/backoff.js';
import type { AttemptContext, Connector } from '../../../src/core/connector.js';
import {
  ConnectionManager,
  type ConnectionManagerOptions,
  type ConnectionSnapshot,
  isNotServingError,
} from '../../../src/index.js';
import { createVirtualClock, type VirtualClock } from '../../../src/testing/index.js';
import { seededRandom } from '../../support/seeded-random.js';

const UNAVAILABLE = 14;
const UNIMPLEMENTED = 12;
const SERVICE = 'echo.Echo';

/** A connection: what the fake connector emits and the fake transport opens Watches on. */
interface Conn {
  readonly id: number;
  open: boolean;
}

/** One subscription of the inner connector: a dial. */
interface Dial {
  readonly conn: Conn;
  readonly context: AttemptContext;
  readonly subscriber: Subscriber<Conn>;
  torndown: boolean;
}

/** One Watch stream the health check opened. */
interface Watch {
  readonly conn: Conn;
  readonly request: Uint8Array;
  readonly openedAt: number;
  cancelled: boolean;
  ended: boolean;
  /** The server answers with a status. */
  answer(status: ServingStatus): void;
  /** The stream ends with a gRPC status (the connection closing it too when `closeConnection`). */
  end(code: number, details?: string, options?: { closeConnection?: boolean }): void;
}

function fakeConnector(clock: VirtualClock) {
  const dials: Dial[] = [];
  const connector: Connector<Conn> = (context) =>
    new Observable<Conn>((subscriber) => {
      const dial: Dial = { conn: { id: dials.length + 1, open: true }, context, subscriber, torndown: false };
      dials.push(dial);
      subscriber.next(dial.conn);
      return () => {
        dial.torndown = true;
        dial.conn.open = false;
      };
    });
  return {
    connector,
    dials,
    /** The connection ends with an error (a reset socket, a GOAWAY). */
    fail(dial: Dial, error: Error = new Error(`connection ${String(dial.conn.id)} reset at ${String(clock.now())}`)) {
      dial.conn.open = false;
      dial.subscriber.error(error);
    },
  };
}

function fakeTransport(clock: VirtualClock) {
  const watches: Watch[] = [];
  const hooks: { onOpen: ((watch: Watch) => void) | undefined } = { onOpen: undefined };
  const transport: HealthWatchTransport<Conn> = {
    open(conn, request, handlers: HealthWatchHandlers) {
      const live = (what: string): void => {
        if (watch.cancelled || watch.ended) throw new Error(`test bug: ${what} on a Watch that is over`);
      };
      const watch: Watch = {
        conn,
        request,
        openedAt: clock.now(),
        cancelled: false,
        ended: false,
        answer(status) {
          live('answer');
          handlers.status(status);
        },
        end(code, details = 'stream ended', options = {}) {
          live('end');
          watch.ended = true;
          if (options.closeConnection === true) conn.open = false;
          handlers.end(code, details);
        },
      };
      watches.push(watch);
      hooks.onOpen?.(watch);
      return () => {
        watch.cancelled = true;
      };
    },
    isOpen: (conn) => conn.open,
  };
  return {
    transport,
    watches,
    hooks,
    /** From now on every Watch fails with UNAVAILABLE as soon as it opens (in the same virtual instant). */
    failEveryWatch() {
      hooks.onOpen = (watch) => {
        clock.scheduler.schedule(() => {
          if (!watch.cancelled && !watch.ended) watch.end(UNAVAILABLE, 'no healthy upstream');
        });
      };
    },
    /** The Watch streams that are neither ended nor cancelled. */
    live: () => watches.filter((w) => !w.cancelled && !w.ended),
    last: (): Watch => {
      const watch = watches.at(-1);
      if (watch === undefined) throw new Error('no Watch was opened');
      return watch;
    },
  };
}

interface SetupOptions {
  readonly serviceName?: string;
  readonly random?: RandomSource;
  readonly manager?: Omit<ConnectionManagerOptions<Conn>, 'connector' | 'scheduler'>;
}

function setup(options: SetupOptions = {}) {
  const clock = createVirtualClock();
  const dialer = fakeConnector(clock);
  const health = fakeTransport(clock);
  const log = vi.fn<(message: string) => void>();
  const serviceName = options.serviceName ?? SERVICE;
  const connector = healthChecked(dialer.connector, health.transport, {
    serviceName,
    scheduler: clock.scheduler,
    random: options.random ?? (() => 0.5),
    log,
  });
  const manager = new ConnectionManager<Conn>({
    random: () => 0.5,
    ...options.manager,
    connector,
    scheduler: clock.scheduler,
  });
  const snapshots: ConnectionSnapshot<Conn>[] = [];
  manager.state$.subscribe((s) => snapshots.push(s));
  return {
    clock,
    dialer,
    dials: dialer.dials,
    health,
    watches: health.watches,
    log,
    manager,
    snapshots,
    states: () => snapshots.map((s) => s.state),
    /** Watch start times, and the waits between consecutive starts (ms). */
    watchStarts: () => health.watches.map((w) => w.openedAt),
    watchWaits: () => health.watches.slice(1).map((w, i) => w.openedAt - (health.watches[i]?.openedAt ?? 0)),
  };
}

type Setup = ReturnType<typeof setup>;

function dial(h: Setup, n: number): Dial {
  const found = h.dials[n - 1];
  if (found === undefined) throw new Error(`dial ${String(n)} did not happen`);
  return found;
}

/** A manager made READY on its first connection (the first Watch answered SERVING at 10 ms). */
function ready(options: SetupOptions = {}): Setup {
  const h = setup(options);
  h.manager.connect();
  h.clock.advanceBy(10);
  h.health.last().answer('SERVING');
  expect(h.manager.snapshot.state).toBe('READY');
  return h;
}

/** Asserts the manager is TRANSIENT_FAILURE on the open connection `conn`, and returns the NotServingError. */
function expectNotServing(h: Setup, conn: Conn, status: string) {
  const s = h.manager.snapshot;
  expect(s).toMatchObject({ state: 'TRANSIENT_FAILURE', connected: true, nextAttemptAt: Infinity });
  if (s.state !== 'TRANSIENT_FAILURE') throw new Error('unreachable');
  expect(s.connection).toBe(conn);
  expect(isNotServingError(s.lastError)).toBe(true);
  expect(s.lastError).toMatchObject({ service: SERVICE, status });
  return s.lastError as Error;
}

describe('the first Watch answer decides (A17: no READY before it)', () => {
  it('stays CONNECTING until the first answer; SERVING → READY; the request names the service', () => {
    const h = setup();
    h.manager.connect();
    expect(h.dials).toHaveLength(1);
    expect(h.watches).toHaveLength(1);
    const watch = h.health.last();
    expect(watch.conn).toBe(dial(h, 1).conn);
    expect(watch.openedAt).toBe(0);
    expect([...watch.request]).toEqual([0x0a, SERVICE.length, ...new TextEncoder().encode(SERVICE)]);
    expect([...watch.request]).toEqual([...encodeHealthRequest(SERVICE)]);

    // The connection is up, but no answer yet: not READY, however long the Watch takes (within the cut).
    h.clock.advanceBy(5000);
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    watch.answer('SERVING');
    expect(h.manager.snapshot).toEqual({
      state: 'READY',
      since: 5000,
      attempt: 1,
      lastError: undefined,
      connection: dial(h, 1).conn,
    });
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    // Later answers of the same kind change nothing; no other Watch and no other dial.
    watch.answer('SERVING');
    h.clock.advanceBy(600_000);
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY']);
    expect(h.watches).toHaveLength(1);
    expect(h.dials).toHaveLength(1);
    expect(watch.cancelled).toBe(false);
    h.manager.shutdown();
  });

  it("the whole server ('') is asked with an empty request", () => {
    const h = setup({ serviceName: '' });
    h.manager.connect();
    expect(h.health.last().request).toEqual(new Uint8Array(0));
    h.health.last().answer('NOT_SERVING');
    expect(h.manager.snapshot.lastError).toMatchObject({ service: '', status: 'NOT_SERVING' });
    h.manager.shutdown();
  });

  it('a first answer NOT_SERVING → TRANSIENT_FAILURE on the open connection; SERVING → READY on the same one', () => {
    const h = setup();
    h.manager.connect();
    h.clock.advanceBy(200);
    const conn = dial(h, 1).conn;
    h.health.last().answer('NOT_SERVING');
    const error = expectNotServing(h, conn, 'NOT_SERVING');
    expect(error.message).toBe('the server reports NOT_SERVING for "echo.Echo"');
    expect(h.manager.snapshot.since).toBe(200);

    // No attempt is planned and the connection stays: no re-dial, no other Watch.
    h.clock.advanceBy(120_000);
    expect(h.dials).toHaveLength(1);
    expect(h.watches).toHaveLength(1);
    expect(dial(h, 1).torndown).toBe(false);

    h.health.last().answer('SERVING');
    expect(h.manager.snapshot).toEqual({
      state: 'READY',
      since: 120_200,
      attempt: 1,
      lastError: undefined,
      connection: conn,
    });
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'TRANSIENT_FAILURE', 'READY']);

    // And back: SERVING → NOT_SERVING on the same stream.
    h.health.last().answer('NOT_SERVING');
    expectNotServing(h, conn, 'NOT_SERVING');
    expect(h.dials).toHaveLength(1);
    expect(h.watches).toHaveLength(1);
    h.manager.shutdown();
  });

  it.each(['SERVICE_UNKNOWN', 'UNKNOWN'] as const)('%s counts as not serving, naming that status', (status) => {
    const h = setup();
    h.manager.connect();
    h.health.last().answer(status);
    expectNotServing(h, dial(h, 1).conn, status);
    h.manager.shutdown();
  });
});

describe('UNIMPLEMENTED: the server has no health service', () => {
  it('→ READY, noted once per connector across connections, and the Watch is not opened again', () => {
    const h = setup();
    h.manager.connect();
    h.clock.advanceBy(50);
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    h.health.last().end(UNIMPLEMENTED, 'unknown service grpc.health.v1.Health');
    expect(h.manager.snapshot).toMatchObject({ state: 'READY', connection: dial(h, 1).conn, lastError: undefined });
    expect(h.log).toHaveBeenCalledTimes(1);
    expect(h.log.mock.calls[0]?.[0]).toMatch(
      /no health service.*UNIMPLEMENTED: unknown service grpc\.health\.v1\.Health/,
    );

    h.clock.advanceBy(600_000);
    expect(h.watches).toHaveLength(1);
    expect(h.manager.snapshot.state).toBe('READY');

    // The connection is lost after long uptime: the manager reconnects at once through the same connector.
    h.dialer.fail(dial(h, 1));
    h.clock.advanceBy(0);
    expect(h.dials).toHaveLength(2);
    expect(h.watches).toHaveLength(2);
    expect(h.health.last().conn).toBe(dial(h, 2).conn);
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    h.health.last().end(UNIMPLEMENTED, 'unknown service grpc.health.v1.Health');
    expect(h.manager.snapshot).toMatchObject({ state: 'READY', connection: dial(h, 2).conn });
    expect(h.log).toHaveBeenCalledTimes(1);

    h.clock.advanceBy(600_000);
    expect(h.watches).toHaveLength(2);
    expect(h.dials).toHaveLength(2);
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'CONNECTING', 'READY']);
    h.manager.shutdown();
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('after a NOT_SERVING answer, an UNIMPLEMENTED end brings the connection back to READY', () => {
    const h = setup();
    h.manager.connect();
    h.health.last().answer('NOT_SERVING');
    h.health.last().end(UNIMPLEMENTED, 'gone');
    expect(h.manager.snapshot).toMatchObject({ state: 'READY', connection: dial(h, 1).conn });
    h.clock.advanceBy(600_000);
    expect(h.watches).toHaveLength(1);
    h.manager.shutdown();
  });
});

describe('a Watch that fails on an open connection', () => {
  it('→ TRANSIENT_FAILURE connected (UNAVAILABLE), retried at 1 s, ×1.6 from each start; SERVING → READY; never re-dialed', () => {
    const h = setup();
    h.manager.connect();
    const conn = dial(h, 1).conn;
    h.clock.advanceBy(300);
    h.health.last().end(UNAVAILABLE, 'upstream connect error');
    // Reported one turn later (the connection's own end, if it is one, comes first).
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    h.clock.advanceBy(0);
    const error = expectNotServing(h, conn, 'UNAVAILABLE');
    expect(error.message).toBe('the health check for "echo.Echo" failed: UNAVAILABLE: upstream connect error');
    expect(h.manager.snapshot.since).toBe(300);

    // The first retry 1 s after the first Watch's start (not its end).
    h.clock.advanceTo(999);
    expect(h.watches).toHaveLength(1);
    h.clock.advanceTo(1000);
    expect(h.watches).toHaveLength(2);
    expect(h.health.last().conn).toBe(conn);

    h.clock.advanceBy(100);
    h.health.last().end(UNAVAILABLE, 'still down');
    h.clock.advanceBy(0);
    expectNotServing(h, conn, 'UNAVAILABLE');
    h.clock.advanceTo(2600);
    expect(h.watches).toHaveLength(3);
    h.health.last().end(UNAVAILABLE, 'still down');
    h.clock.advanceTo(5159);
    expect(h.watches).toHaveLength(3);
    h.clock.advanceTo(5160);
    expect(h.watches).toHaveLength(4);
    expect(h.watchStarts()).toEqual([0, 1000, 2600, 5160]);

    h.clock.advanceBy(40);
    h.health.last().answer('SERVING');
    expect(h.manager.snapshot).toMatchObject({ state: 'READY', since: 5200, connection: conn });
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'TRANSIENT_FAILURE', 'READY']);
    expect(h.dials).toHaveLength(1);
    expect(dial(h, 1).torndown).toBe(false);
    // One Watch at a time: every earlier one is over.
    expect(h.health.live()).toEqual([h.health.last()]);
    h.manager.shutdown();
  });

  it('the retries follow gRPC’s backoff within ±20 % (seeded jitter), the first exactly 1 s', () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const h = setup({ random: seededRandom(seed) });
      h.health.failEveryWatch();
      h.manager.connect();
      h.clock.advanceTo(600_000);
      const waits = h.watchWaits();
      expect(waits.length).toBeGreaterThan(10);
      expect(waits[0]).toBe(1000);
      waits.forEach((wait, i) => {
        const nominal = Math.min(1000 * 1.6 ** i, 120_000);
        expect(wait).toBeGreaterThanOrEqual(nominal * 0.8);
        expect(wait).toBeLessThanOrEqual(nominal * 1.2);
      });
      // The connection was never touched, and the manager stayed on it, not serving.
      expect(h.dials).toHaveLength(1);
      expectNotServing(h, dial(h, 1).conn, 'UNAVAILABLE');
      expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'TRANSIENT_FAILURE']);
      h.manager.shutdown();
      expect(h.clock.pendingTimers()).toBe(0);
    }
  });

  it.each([
    [0, [1000, 1280, 2048, 3276.8]],
    [0.5, [1000, 1600, 2560, 4096]],
    [1, [1000, 1920, 3072, 4915.2]],
  ])('with random() = %d the waits are %j (the health check’s own random source)', (r, expected) => {
    // The outer manager's random source stays 0.5: only the health check's drives the Watch's jitter.
    const h = setup({ random: () => r });
    h.health.failEveryWatch();
    h.manager.connect();
    h.clock.advanceTo(expected.reduce((a, b) => a + b) + 1);
    const waits = h.watchWaits();
    expect(waits).toHaveLength(expected.length);
    waits.forEach((wait, i) => {
      expect(wait).toBeCloseTo(expected[i] ?? NaN, 6);
    });
    h.manager.shutdown();
  });

  it('an answered Watch resets the backoff: the next failure waits 1 s again', () => {
    const h = setup();
    h.manager.connect();
    const conn = dial(h, 1).conn;
    // Three failures, each at its Watch's start: the next wait would be 2.56 s.
    for (const at of [0, 1000, 2600]) {
      h.clock.advanceTo(at);
      expect(h.health.last().openedAt).toBe(at);
      h.health.last().end(UNAVAILABLE, 'down');
    }
    h.clock.advanceTo(5159);
    expect(h.watches).toHaveLength(3);
    h.clock.advanceTo(5160);
    expect(h.watches).toHaveLength(4);
    h.clock.advanceTo(8000);
    h.health.last().answer('NOT_SERVING');
    // Still not serving (the report repeats, so lastError stays the first failure's).
    expectNotServing(h, conn, 'UNAVAILABLE');
    h.clock.advanceTo(9000);
    h.health.last().end(UNAVAILABLE, 'down again');
    // The Watch had answered: re-opened at once (A17: backoff reset), on the same connection.
    h.clock.advanceBy(0);
    expect(h.watches).toHaveLength(5);
    expect(h.health.last()).toMatchObject({ openedAt: 9000, conn });
    // Its failure waits a first backoff, 1 s from its start, not 4.1 s.
    h.health.last().end(UNAVAILABLE, 'down again');
    h.clock.advanceTo(9999);
    expect(h.watches).toHaveLength(5);
    h.clock.advanceTo(10_000);
    expect(h.watches).toHaveLength(6);
    expect(h.dials).toHaveLength(1);
    h.manager.shutdown();
  });

  it('a Watch that answered SERVING and then ended is re-opened at once, silently; only the new one’s failure reports', () => {
    const h = ready();
    const conn = dial(h, 1).conn;
    h.clock.advanceTo(60_000);
    h.health.last().end(UNAVAILABLE, 'idle stream closed by the proxy');
    h.clock.advanceBy(0);
    expect(h.manager.snapshot.state).toBe('READY');
    expect(h.watches).toHaveLength(2);
    expect(h.health.last()).toMatchObject({ openedAt: 60_000, conn });
    h.health.last().end(UNAVAILABLE, 'backend down');
    h.clock.advanceBy(0);
    expectNotServing(h, conn, 'UNAVAILABLE');
    h.clock.advanceTo(61_000);
    expect(h.watches).toHaveLength(3);
    h.health.last().answer('SERVING');
    expect(h.manager.snapshot.state).toBe('READY');
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'READY']);
    expect(h.dials).toHaveLength(1);
    h.manager.shutdown();
  });
});

describe('a Watch that ends with its connection', () => {
  it('before any answer: nothing is reported (no hand-over) until the connector’s own error', () => {
    const h = setup();
    h.manager.connect();
    h.clock.advanceBy(100);
    h.health.last().end(UNAVAILABLE, 'connection closed', { closeConnection: true });
    h.clock.advanceBy(0);
    h.clock.advanceBy(50);
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    expect(h.states()).toEqual(['IDLE', 'CONNECTING']);
    const reset = new Error('ECONNRESET');
    h.dialer.fail(dial(h, 1), reset);
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', lastError: reset });
    expect(h.manager.snapshot).not.toHaveProperty('connected');
    // The Watch manager of the lost connection is gone: no Watch is re-opened on it.
    h.clock.advanceBy(999);
    expect(h.watches.filter((w) => w.conn === dial(h, 1).conn)).toHaveLength(1);
    h.manager.shutdown();
  });

  it('after a re-opened Watch: READY stays READY until the connector errors', () => {
    const h = ready();
    const conn = dial(h, 1).conn;
    h.clock.advanceTo(100);
    h.health.last().end(UNAVAILABLE, 'idle stream closed');
    h.clock.advanceBy(0);
    // Re-opened no sooner than a first wait after the previous Watch's start (at 0).
    expect(h.watches).toHaveLength(1);
    expect(h.manager.snapshot.state).toBe('READY');
    h.clock.advanceTo(1000);
    expect(h.watches).toHaveLength(2);
    expect(h.manager.snapshot.state).toBe('READY');
    h.clock.advanceTo(1300);
    // The connection goes, and its Watch ends with it (unanswered) before the connector says so.
    h.health.last().end(UNAVAILABLE, 'connection closed', { closeConnection: true });
    h.clock.advanceBy(0);
    h.clock.advanceBy(10);
    expect(h.manager.snapshot).toMatchObject({ state: 'READY', connection: conn });
    h.dialer.fail(dial(h, 1), new Error('GOAWAY'));
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', lastError: new Error('GOAWAY') });
    expect(h.manager.snapshot).not.toHaveProperty('connected');
    expect(h.states()).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE']);
    // The retry the Watch manager had planned (at 2 s) is gone with it.
    h.clock.advanceTo(5000);
    expect(h.watches.filter((w) => w.conn === conn)).toHaveLength(2);
    h.manager.shutdown();
  });
});

describe('teardown', () => {
  it('the inner connector erroring: the manager leaves READY and the Watch is cancelled', () => {
    const h = ready();
    const watch = h.health.last();
    h.clock.advanceTo(10_000);
    h.dialer.fail(dial(h, 1), new Error('ECONNRESET'));
    expect(h.manager.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', lastError: new Error('ECONNRESET') });
    expect(watch.cancelled).toBe(true);
    expect(h.health.live()).toEqual([]);
    // The reconnect gets a Watch of its own.
    h.clock.advanceBy(0);
    expect(h.dials).toHaveLength(2);
    expect(h.watches).toHaveLength(2);
    expect(h.health.last().conn).toBe(dial(h, 2).conn);
    expect(h.manager.snapshot.state).toBe('CONNECTING');
    h.manager.shutdown();
  });

  it('the inner connector completing: the Watch is cancelled too', () => {
    const h = ready();
    const watch = h.health.last();
    dial(h, 1).conn.open = false;
    dial(h, 1).subscriber.complete();
    expect(h.manager.snapshot.state).not.toBe('READY');
    expect(watch.cancelled).toBe(true);
    h.manager.shutdown();
  });

  it('shutdown() when READY cancels the Watch, unsubscribes the connector and leaves no timer', () => {
    const h = ready();
    const watch = h.health.last();
    h.manager.shutdown();
    expect(watch.cancelled).toBe(true);
    expect(dial(h, 1).torndown).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.manager.snapshot.state).toBe('SHUTDOWN');
  });

  it('shutdown() before the first answer cancels the Watch and leaves no timer', () => {
    const h = setup();
    h.manager.connect();
    h.clock.advanceBy(10);
    h.manager.shutdown();
    expect(h.health.last().cancelled).toBe(true);
    expect(dial(h, 1).torndown).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('shutdown() while a not-serving report is one turn away leaves no timer and reports nothing', () => {
    const h = ready();
    h.health.last().answer('NOT_SERVING');
    h.health.last().end(UNAVAILABLE, 'down');
    h.manager.shutdown();
    expect(h.clock.pendingTimers()).toBe(0);
    expect(dial(h, 1).torndown).toBe(true);
  });

  it('shutdown() while the Watch waits for its retry leaves no timer, and no Watch is opened later', () => {
    const h = setup();
    h.manager.connect();
    h.health.last().end(UNAVAILABLE, 'down');
    h.clock.advanceBy(0);
    expectNotServing(h, dial(h, 1).conn, 'UNAVAILABLE');
    expect(h.clock.pendingTimers()).toBeGreaterThan(0);
    h.manager.shutdown();
    expect(h.clock.pendingTimers()).toBe(0);
    expect(dial(h, 1).torndown).toBe(true);
    h.clock.advanceBy(10_000);
    expect(h.watches).toHaveLength(1);
  });

  it('shutdown() during a retried Watch cancels that Watch', () => {
    const h = setup();
    h.manager.connect();
    h.health.last().end(UNAVAILABLE, 'down');
    h.clock.advanceTo(1000);
    expect(h.watches).toHaveLength(2);
    h.manager.shutdown();
    expect(h.health.last().cancelled).toBe(true);
    expect(h.health.live()).toEqual([]);
    expect(h.clock.pendingTimers()).toBe(0);
  });
});

describe('a Watch that never answers', () => {
  it.each([5000, 20_000])(
    'is cut with the attempt at the manager’s connect deadline (minConnectTimeout %i), and cancelled',
    (minConnectTimeout) => {
      const h = setup({ manager: { minConnectTimeout } });
      h.manager.connect();
      const watch = h.health.last();
      h.clock.advanceTo(minConnectTimeout - 1);
      expect(h.manager.snapshot.state).toBe('CONNECTING');
      expect(watch.cancelled).toBe(false);
      h.clock.advanceTo(minConnectTimeout);
      expect(h.snapshots[2]).toMatchObject({ state: 'TRANSIENT_FAILURE', since: minConnectTimeout });
      expect(h.snapshots[2]).not.toHaveProperty('connected');
      expect(h.snapshots[2]?.lastError).toMatchObject({ name: 'ConnectTimeoutError', timeout: minConnectTimeout });
      expect(watch.cancelled).toBe(true);
      expect(dial(h, 1).torndown).toBe(true);
      expect(h.watches.filter((w) => w.conn === dial(h, 1).conn)).toHaveLength(1);
      // The next attempt (due at the cut: waits count from the start) dials again, with a Watch of its own.
      expect(h.manager.snapshot).toMatchObject({ state: 'CONNECTING', attempt: 2 });
      expect(h.dials).toHaveLength(2);
      expect(h.health.live()).toEqual([h.health.last()]);
      expect(h.health.last().conn).toBe(dial(h, 2).conn);
      h.manager.shutdown();
      expect(h.clock.pendingTimers()).toBe(0);
    },
  );
});
