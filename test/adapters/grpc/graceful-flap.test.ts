/**
 * The flap guard against graceful ends, on real sockets, for both gRPC adapters (http2Connector under a
 * ConnectionManager, and ManagedChannel): a `node:http2` server on 127.0.0.1 ends connections with
 * GOAWAY NO_ERROR on a plan (`support/graceful-server.ts`), and the connections it accepted are
 * counted at its net server.
 *
 * The rule: a READY connection that ends before `minUptime` is a failed attempt, also when the server
 * ended it gracefully, unless the grace credit is there (earned when a connection ended after staying
 * READY ≥ minUptime, one per such connection; a new manager has none). So a server that accepts and
 * says goodbye at once, again and again, sees the schedule of one that refuses; a connection that lived
 * resets the backoff; and after it, one young connection ended gracefully (the next server of a rolling
 * restart going away too) resets it once more.
 */
import { credentials } from '@grpc/grpc-js';
import type { Observable } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import {
  type BackoffPolicy,
  type ConnectionSnapshot,
  ConnectionManager,
  grpcBackoff,
  isGracefulEnd,
} from '../../../src/index.js';
import { http2Connector, ManagedChannel } from '../../../src/adapters/grpc/index.js';
import { type GracefulPlan, type GracefulServer, startGracefulServer } from '../../support/grpc/graceful-server.js';
import { record, until } from '../../support/grpc/record.js';
import { cleanupAfterEach } from '../../support/cleanup.js';

const cleanup = cleanupAfterEach();

const INITIAL = 100;
/** The waits of grpcBackoff({ initialBackoff: 100 }) with random pinned at 0.5 (no jitter): 100 × 1.6^k. */
const NOMINAL = [100, 160, 256, 409.6, 655.36, 1048.576];
/** Tolerance on a wait read from the manager's clock (rounding), as the core contract allows. */
const ROUNDING = 1;

interface ClientOptions {
  readonly backoff: BackoffPolicy;
  readonly random: () => number;
  readonly minUptime?: number;
}

/** One client of `server` through an adapter: its states, and connect/stop. */
interface Client {
  readonly state$: Observable<ConnectionSnapshot>;
  connect(): void;
  stop(): void;
}

const ADAPTERS: readonly (readonly [string, (server: GracefulServer, options: ClientOptions) => Client])[] = [
  [
    'http2Connector under a ConnectionManager',
    (server, options) => {
      const manager = new ConnectionManager({ connector: http2Connector(server.url), ...options });
      return {
        state$: manager.state$,
        connect: () => {
          manager.connect();
        },
        stop: () => {
          manager.shutdown();
        },
      };
    },
  ],
  [
    'ManagedChannel',
    (server, options) => {
      const channel = new ManagedChannel(server.address, credentials.createInsecure(), options);
      return {
        state$: channel.manager.state$,
        connect: () => {
          channel.manager.connect();
        },
        stop: () => {
          channel.close();
        },
      };
    },
  ],
];

async function graceful(plan: GracefulPlan): Promise<GracefulServer> {
  const server = await startGracefulServer(plan);
  cleanup.push(() => server.close());
  return server;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The gaps between consecutive attempt starts, on the manager's clock. */
function startGaps(snapshots: readonly ConnectionSnapshot[]): number[] {
  const starts = snapshots.filter((s) => s.state === 'CONNECTING').map((s) => s.since);
  return starts.slice(1).map((start, i) => start - (starts[i] ?? start));
}

/** The snapshots in which a connection (a READY one) ended. */
function connectionEnds(snapshots: readonly ConnectionSnapshot[]): ConnectionSnapshot[] {
  return snapshots.filter((s, i) => s.state === 'TRANSIENT_FAILURE' && snapshots[i - 1]?.state === 'READY');
}

/**
 * Under grpc-js 1.10 (CI's second gRPC pass) a ManagedChannel sees a connection that the server ends
 * at once after SETTINGS as an attempt that failed, without the GOAWAY's code: it counts as a failure
 * whatever the grace credit. The schedule still holds (that is checked); what needs the graceful end
 * to be seen is not.
 */
const GOAWAY_CODE_UNSEEN = process.env['REDIALER_GRPC_JS'] === 'grpc-js-1-10';

describe.each(ADAPTERS)('graceful ends and the flap guard, %s', (name, connect) => {
  const seesGraceful = !(name === 'ManagedChannel' && GOAWAY_CODE_UNSEEN);
  const options: ClientOptions = { backoff: grpcBackoff({ initialBackoff: INITIAL }), random: () => 0.5 };

  it('SETTINGS then GOAWAY NO_ERROR at once on every connection: the schedule of a server that refuses, at most 6 connections in 2.2 s', async () => {
    const server = await graceful(() => 0);
    const client = connect(server, options); // the default minUptime (5 s): no connection lives that long
    cleanup.push(() => {
      client.stop();
    });
    const log = record(client.state$);
    client.connect();
    await sleep(2200);
    client.stop();
    // The scenario meant: every end is a READY connection the server ended gracefully.
    const ends = log.snapshots.filter((s) => s.state === 'TRANSIENT_FAILURE');
    expect(ends.length).toBeGreaterThan(0);
    if (seesGraceful) {
      expect(connectionEnds(log.snapshots)).toHaveLength(ends.length);
      expect(ends.filter((s) => !isGracefulEnd(s.lastError))).toEqual([]);
    }
    // Starts near 0, 100, 260, 516, 926 and 1581 ms; the 7th is due at 2630 ms.
    expect(server.connections(), 'connections in 2.2 s').toBeLessThanOrEqual(6);
    const gaps = startGaps(log.snapshots);
    expect(gaps.map((gap, i) => gap >= (NOMINAL[i] ?? 0) - ROUNDING)).toEqual(gaps.map(() => true));
  });

  it('a connection that lived minUptime and was ended gracefully resets the backoff: the next attempt follows within one initial backoff', async () => {
    // Five dropped attempts grow the wait to 1048 ms after the sixth start; the sixth lives 400 ms.
    const server = await graceful((n) => (n === 6 ? 400 : 'drop'));
    const client = connect(server, { ...options, minUptime: 300 });
    cleanup.push(() => {
      client.stop();
    });
    const log = record(client.state$);
    client.connect();
    const lost = await until(
      client.state$,
      (s) => s.state === 'TRANSIENT_FAILURE' && isGracefulEnd(s.lastError),
      10_000,
    );
    await until(client.state$, (s) => s.state === 'CONNECTING' && s.since >= lost.since);
    await vi.waitFor(() => {
      expect(server.connections()).toBe(7);
    });
    client.stop();
    expect(log.starts().map((s) => s.attempt)).toEqual([1, 2, 3, 4, 5, 6, 1]);
    expect(lost).toMatchObject({ state: 'TRANSIENT_FAILURE', attempt: 0 });
    if (lost.state !== 'TRANSIENT_FAILURE') throw new Error('unreachable');
    expect(lost.nextAttemptAt - lost.since).toBeLessThanOrEqual(INITIAL);
    // At the server: the seventh connection came soon after the sixth ended, not 648 ms later.
    expect(server.acceptedAt[6]! - server.endedAt[5]!).toBeLessThan(INITIAL + 300);
  });

  // Needs the GOAWAY code (see GOAWAY_CODE_UNSEEN): not run for ManagedChannel on grpc-js 1.10.
  it.skipIf(!seesGraceful)(
    'a rolling restart: after a connection that lived, the next young connection ended gracefully gets one reset, and only one',
    async () => {
      // The first connection lives 400 ms (minUptime 300); the next three are ended at once.
      const server = await graceful((n) => (n === 1 ? 400 : n <= 4 ? 0 : 'drop'));
      const client = connect(server, { ...options, minUptime: 300 });
      cleanup.push(() => {
        client.stop();
      });
      const log = record(client.state$);
      client.connect();
      await vi.waitFor(
        () => {
          expect(server.connections()).toBe(5);
        },
        { timeout: 10_000 },
      );
      client.stop();
      const ends = connectionEnds(log.snapshots);
      expect(ends.filter((s) => !isGracefulEnd(s.lastError))).toEqual([]);
      // The lived one resets (and earns the credit); the first young one spends it; the next ones are failures.
      expect(ends.map((s) => s.attempt)).toEqual([0, 0, 1, 2]);
      const gaps = startGaps(log.snapshots);
      // After each reset, one initial backoff from the last start; then 100 and 160 ms, the schedule's.
      expect(gaps.slice(1, 4).map((gap, i) => gap >= [INITIAL, 100, 160][i]! - ROUNDING)).toEqual([true, true, true]);
      expect(log.starts()).toHaveLength(5);
    },
  );
});
