/**
 * Overhead side by side in one process: retained heap and creation time of many connections
 * waiting in backoff, and reconnect cycles per second, for redialer's ConnectionManager, grpc-js
 * BackoffTimeout objects and reconnecting-websocket instances (stub WebSocket). Needs --expose-gc.
 */
import { experimental } from '@grpc/grpc-js';
import ReconnectingWebSocketModule from 'reconnecting-websocket';
import { NEVER, Observable, throwError } from 'rxjs';
import { constantBackoff } from '../../src/backoff/constant-backoff.js';
import { grpcBackoff } from '../../src/backoff/grpc-backoff.js';
import { ConnectionManager } from '../../src/core/connection-manager.js';
import type { ConnectionManagerOptions } from '../../src/core/connection-options.js';
import { initialState, transition, type MachineEnv, type MachineState } from '../../src/core/connection-machine.js';
import { createVirtualClock } from '../../src/testing/virtual-clock.js';
import { FailingWebSocket } from './failing-web-socket.js';

const ReconnectingWebSocket = ReconnectingWebSocketModule as unknown as typeof ReconnectingWebSocketModule.default;
const HOUR = 3_600_000;

export interface HeapFigure {
  readonly subject: string;
  readonly count: number;
  /** Retained bytes per object after a full GC. */
  readonly bytesPerObject: number;
  /** Microseconds to create one object (and bring it into backoff when that is synchronous). */
  readonly createMicros: number;
}

export interface CycleFigure {
  readonly subject: string;
  readonly instances: number;
  readonly seconds: number;
  /** Failed attempts (connect -> fail -> wait 0 -> connect) per wall-clock second. */
  readonly cyclesPerSecond: number;
}

export interface OverheadResult {
  readonly heap: readonly HeapFigure[];
  readonly cycles: readonly CycleFigure[];
  /**
   * Transitions per second of the pure machine, and of one manager on a virtual clock through fail/retry
   * cycles and through connect/READY/lost cycles (no peer runs on a virtual clock).
   */
  readonly transitions: {
    readonly pureFunction: number;
    readonly managerFailRetry: number;
    readonly managerReadyLost: number;
  };
  /** Microseconds to create and connect one manager of a fleet (one options object, fake connector, virtual clock). */
  readonly fleetCreateConnectMicros: number;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run node with --expose-gc for the heap figures');
  collect();
  collect();
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function heapOf<T>(
  subject: string,
  count: number,
  create: () => T,
  settle: () => Promise<void>,
  dispose: (items: T[]) => void,
): Promise<HeapFigure> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const items: T[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) items.push(create());
  const createMicros = ((performance.now() - start) * 1000) / count;
  await settle();
  gc();
  const after = process.memoryUsage().heapUsed;
  dispose(items);
  items.length = 0;
  gc();
  return { subject, count, bytesPerObject: (after - before) / count, createMicros };
}

const refused = new Error('connection refused');
const failing = (): Observable<never> => throwError(() => refused);

async function cyclesOf(
  subject: string,
  instances: number,
  seconds: number,
  start: () => { attempts: () => number; stop: () => void },
): Promise<CycleFigure> {
  const run = start();
  const from = run.attempts();
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  const done = run.attempts() - from;
  run.stop();
  await tick();
  return { subject, instances, seconds: elapsed, cyclesPerSecond: done / elapsed };
}

export async function runOverhead({
  count,
  cycleSeconds,
}: {
  count: number;
  cycleSeconds: number;
}): Promise<OverheadResult> {
  const heap: HeapFigure[] = [];
  // A manager per row's options: its own options object each (whose grpcBackoff() call returns the
  // one policy of those parameters), or one options object for the whole fleet, which shares one
  // resolved copy. Backoff: fails at once, so TRANSIENT_FAILURE with
  // its one timer armed for an hour. READY: established, with a teardown as a real connector has.
  const backoffOptions = (): ConnectionManagerOptions<unknown> => ({
    connector: failing,
    backoff: grpcBackoff({ initialBackoff: HOUR }),
    unref: true,
  });
  // A policy of its own per manager: initial backoffs that differ (a fleet that staggers its first
  // waits), over one cap, so that only the policies differ, not what they share.
  let staggered = 0;
  const ownPolicyOptions = (): ConnectionManagerOptions<unknown> => ({
    connector: failing,
    backoff: grpcBackoff({ initialBackoff: HOUR + (staggered++ % 100_000), maxBackoff: 2 * HOUR }),
    unref: true,
  });
  const readyConnector = (): Observable<unknown> =>
    new Observable<unknown>((subscriber) => {
      subscriber.next('connection');
      return () => undefined;
    });
  const readyOptions = (): ConnectionManagerOptions<unknown> => ({ connector: readyConnector, unref: true });
  const sharedBackoff = backoffOptions();
  const sharedReady = readyOptions();
  const rows: [string, () => ConnectionManagerOptions<unknown>][] = [
    ['redialer ConnectionManager in backoff, own options', backoffOptions],
    ['redialer ConnectionManager in backoff, own options and a policy of its own', ownPolicyOptions],
    ['redialer ConnectionManager in backoff, one options object for all', () => sharedBackoff],
    ['redialer ConnectionManager READY, own options', readyOptions],
    ['redialer ConnectionManager READY, one options object for all', () => sharedReady],
  ];
  for (const [subject, options] of rows) {
    heap.push(
      await heapOf(
        subject,
        count,
        () => {
          const m = new ConnectionManager(options());
          m.connect();
          return m;
        },
        tick,
        (items) => {
          for (const m of items) m.shutdown();
        },
      ),
    );
  }
  heap.push(
    await heapOf(
      '@grpc/grpc-js BackoffTimeout',
      count,
      () => {
        const t = new experimental.BackoffTimeout(() => undefined, { initialDelay: HOUR });
        t.unref();
        t.runOnce();
        return t;
      },
      tick,
      (items) => {
        for (const t of items) t.stop();
      },
    ),
  );
  const rwsAttemptsBefore = FailingWebSocket.attempts;
  heap.push(
    await heapOf(
      'reconnecting-websocket',
      count,
      () =>
        new ReconnectingWebSocket('ws://127.0.0.1:9/', [], {
          WebSocket: FailingWebSocket,
          minReconnectionDelay: HOUR,
          maxReconnectionDelay: HOUR,
          connectionTimeout: HOUR,
        }),
      async () => {
        // Construction defers the first connect; wait until every instance failed once and sleeps.
        while (FailingWebSocket.attempts - rwsAttemptsBefore < count) await tick();
        await tick();
      },
      (items) => {
        // close() does not clear the pending reconnect timer (a known defect); those timers are
        // what keeps the benchmark process alive until it exits explicitly.
        for (const r of items) r.close();
      },
    ),
  );

  const instances = 1000;
  const cycles: CycleFigure[] = [];
  cycles.push(
    await cyclesOf('redialer ConnectionManager', instances, cycleSeconds, () => {
      let attempts = 0;
      const counting = (): Observable<never> => {
        attempts += 1;
        return throwError(() => refused);
      };
      // The floor on attempt starts is turned off: this measures the cost of an attempt, not the pace.
      const options = {
        connector: counting,
        backoff: constantBackoff(0),
        minUptime: 0,
        attemptSpacing: { interval: 0 },
      };
      const ms = Array.from({ length: instances }, () => new ConnectionManager(options));
      for (const m of ms) m.connect();
      return {
        attempts: () => attempts,
        stop: () => {
          for (const m of ms) m.shutdown();
        },
      };
    }),
  );
  cycles.push(
    await cyclesOf('reconnecting-websocket', instances, cycleSeconds, () => {
      const from = FailingWebSocket.attempts;
      const rs = Array.from(
        { length: instances },
        () =>
          new ReconnectingWebSocket('ws://127.0.0.1:9/', [], {
            WebSocket: FailingWebSocket,
            minReconnectionDelay: 0,
            maxReconnectionDelay: 0,
            connectionTimeout: HOUR,
          }),
      );
      return {
        attempts: () => FailingWebSocket.attempts - from,
        stop: () => {
          for (const r of rs) r.close();
        },
      };
    }),
  );
  cycles.push(
    await cyclesOf('@grpc/grpc-js BackoffTimeout', instances, cycleSeconds, () => {
      // grpc-js's per-attempt backoff bookkeeping alone: runOnce() on each expiry, with a 0 ms backoff.
      let attempts = 0;
      let stopped = false;
      const ts: InstanceType<typeof experimental.BackoffTimeout>[] = [];
      for (let i = 0; i < instances; i++) {
        const t: InstanceType<typeof experimental.BackoffTimeout> = new experimental.BackoffTimeout(
          () => {
            attempts += 1;
            if (!stopped) t.runOnce();
          },
          { initialDelay: 0.0001, maxDelay: 0.0001 },
        );
        ts.push(t);
        t.runOnce();
      }
      return {
        attempts: () => attempts,
        stop: () => {
          stopped = true;
          for (const t of ts) t.stop();
        },
      };
    }),
  );

  return {
    heap,
    cycles,
    transitions: {
      pureFunction: pureTransitions(),
      managerFailRetry: virtualTransitions('fail'),
      managerReadyLost: virtualTransitions('ready'),
    },
    fleetCreateConnectMicros: fleetCreateMicros(count),
  };
}

function pureTransitions(): number {
  const env: MachineEnv = {
    now: 0,
    random: () => 0.5,
    backoff: constantBackoff(1),
    minConnectTimeout: 20_000,
    minUptime: 0,
    autoReconnect: true,
  };
  let m: MachineState<unknown> = initialState(0);
  let count = 0;
  const start = performance.now();
  let now = 0;
  m = transition(m, { type: 'connect' }, env).state;
  while (performance.now() - start < 1000) {
    for (let i = 0; i < 10_000; i++) {
      now += 1;
      const failed = transition(
        m,
        { type: 'ended', attemptId: m.attemptId, error: refused, clean: false },
        { ...env, now },
      );
      const again = transition(failed.state, { type: 'timer', at: failed.state.timerAt ?? now }, { ...env, now });
      m = again.state;
      count += 2;
    }
  }
  return count / ((performance.now() - start) / 1000);
}

/** Transitions per second of one manager on a virtual clock whose connector fails every attempt, or establishes and then loses each connection. */
function virtualTransitions(cycle: 'fail' | 'ready'): number {
  const clock = createVirtualClock(0, { maxTimerFirings: Infinity });
  let count = 0;
  const connector =
    cycle === 'fail'
      ? failing
      : () =>
          new Observable<string>((subscriber) => {
            subscriber.next('connection');
            subscriber.error(refused);
          });
  const m = new ConnectionManager<unknown>({
    connector,
    backoff: constantBackoff(1),
    scheduler: clock.scheduler,
    minUptime: 0,
  });
  m.state$.subscribe(() => {
    count += 1;
  });
  m.connect();
  const start = performance.now();
  let virtual = 0;
  while (performance.now() - start < 1000) {
    virtual += 10_000;
    clock.advanceTo(virtual);
  }
  const seconds = (performance.now() - start) / 1000;
  m.shutdown();
  return count / seconds;
}

/** Microseconds to create and connect one of `count` managers on one virtual clock (fake connector that never answers). */
function fleetCreateMicros(count: number): number {
  const clock = createVirtualClock(0, { maxTimerFirings: Infinity });
  const options: ConnectionManagerOptions<unknown> = {
    connector: (): Observable<unknown> => NEVER,
    scheduler: clock.scheduler,
  };
  const managers: ConnectionManager[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const m = new ConnectionManager(options);
    m.connect();
    managers.push(m);
  }
  const micros = ((performance.now() - start) * 1000) / count;
  for (const m of managers) m.shutdown();
  return micros;
}
