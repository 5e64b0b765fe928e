/**
 * ResilientStream's resumable-stream contract against a real grpc-js server on 127.0.0.1, whose Count
 * method is a watch on a log of revisions (`Tick.seq` is the revision, `CountRequest.from` the one to
 * watch from, 0 for the beginning): a server that cannot resume from a compacted revision answers
 * OUT_OF_RANGE (or what `cannotResume` recognises), and the stream signals the refusal on `resync$`,
 * forgets its cursor and re-opens from the beginning; a server that resumes inclusively replays what
 * the client has, and `isAfter` drops those replays; an `isAfter` or `cannotResume` that throws ends
 * the stream for good.
 */
import { type ServerWritableStream, status, type StatusObject } from '@grpc/grpc-js';
import { filter, firstValueFrom, type Observable, take, timeout, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { isCannotResumeError } from '../../../src/index.js';
import {
  isStreamStatusError,
  ManagedChannel,
  ResilientStream,
  type ResilientStreamOptions,
} from '../../../src/adapters/grpc/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { FAST, insecure } from '../../support/grpc/fast-options.js';
import { record } from '../../support/grpc/record.js';
import {
  type CountRequest,
  createTestClient,
  startTestServer,
  type TestClient,
  type TestServer,
  type Tick,
} from '../../support/grpc/service.js';

const cleanup = cleanupAfterEach();

type WatchCall = ServerWritableStream<CountRequest, Tick>;

/** The server's side of the watches: the revision each open asked for, and the calls still open. */
interface Served {
  readonly server: TestServer;
  readonly client: TestClient;
  /** `from` of every open that reached the server, in order. */
  readonly requests: number[];
  /** How many watch calls are open at the server now. */
  readonly openCalls: () => number;
  /** Resolves when no watch call is open at the server. */
  readonly drained: () => Promise<void>;
}

/**
 * A test server whose watches `handler` serves (`open`: the 0-based index of the open), and a client
 * on a ManagedChannel to it; both are shut down after the test.
 */
async function setup(handler: (call: WatchCall, open: number) => void): Promise<Served> {
  const requests: number[] = [];
  const calls = new Set<WatchCall>();
  const waiters: (() => void)[] = [];
  const drop = (call: WatchCall): void => {
    calls.delete(call);
    if (calls.size === 0) for (const waiter of waiters.splice(0)) waiter();
  };
  const server = await startTestServer({
    count: (call) => {
      requests.push(call.request.from);
      calls.add(call);
      // Ended by the client (cancelled, or reset by a restart) or by the server (a status).
      call.on('cancelled', () => {
        drop(call);
      });
      call.on('finish', () => {
        drop(call);
      });
      handler(call, requests.length - 1);
    },
  });
  cleanup.push(() => server.close());
  const channel = new ManagedChannel(server.address, insecure, FAST);
  const client = createTestClient(server.address, insecure, { channelOverride: channel });
  cleanup.push(() => {
    client.close();
  });
  return {
    server,
    client,
    requests,
    openCalls: () => calls.size,
    drained: () =>
      calls.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push(resolve);
          }),
  };
}

/** Resume after the last revision delivered; from the beginning (0) without one. */
const after = (last: Tick | undefined): CountRequest => ({ from: last === undefined ? 0 : last.seq + 1 });

function watch(client: TestClient, options: Partial<ResilientStreamOptions<CountRequest, Tick>> = {}) {
  const s = new ResilientStream<CountRequest, Tick>({
    ...FAST,
    open: (request, { metadata }) => client.count(request, metadata),
    request: after,
    ...options,
  });
  cleanup.push(() => {
    s.close();
  });
  return s;
}

function send(call: WatchCall, ...revisions: number[]): void {
  for (const seq of revisions) call.write({ seq });
}

function fail(call: WatchCall, code: status, details: string): void {
  call.emit('error', { code, details });
}

/** How an observable ended: its values, and its error (undefined: it completed). */
interface Settled<T> {
  readonly values: T[];
  readonly completed: boolean;
  readonly error: unknown;
}

/** Subscribes now; resolves when `source` completes or errors (rejects after `ms` of silence). */
function settle<T>(source: Observable<T>, ms = 5000): Promise<Settled<T>> {
  const values: T[] = [];
  return new Promise((resolve, reject) => {
    source.pipe(timeout(ms)).subscribe({
      next: (value) => values.push(value),
      complete: () => {
        resolve({ values, completed: true, error: undefined });
      },
      error: (error: unknown) => {
        if (error instanceof Error && error.name === 'TimeoutError') reject(error);
        else resolve({ values, completed: false, error });
      },
    });
  });
}

const seqs = (messages: readonly Tick[]): number[] => messages.map((m) => m.seq);

describe('ResilientStream resumes from a cursor: resync$ on a refusal, isAfter against replays', () => {
  it('a cursor compacted away while the client was gone: one resync$, then the whole current log from the beginning', async () => {
    // The server's log holds revisions horizon..head; a watch from below the horizon cannot resume.
    const log = { horizon: 1, head: 2 };
    const { server, client, requests } = await setup((call) => {
      const { from } = call.request;
      if (from !== 0 && from < log.horizon) {
        fail(call, status.OUT_OF_RANGE, `revision ${String(from)} has been compacted`);
        return;
      }
      for (let revision = Math.max(from, log.horizon); revision <= log.head; revision++) send(call, revision);
      // A watch: held open for the revisions to come.
    });
    const asked: (Tick | undefined)[] = [];
    const s = watch(client, {
      request: (last) => {
        asked.push(last);
        return after(last);
      },
    });
    const states = record(s.state$);
    cleanup.push(states.stop);
    const order: string[] = [];
    const delivered: Tick[] = [];
    const lastAtResync: (Tick | undefined)[] = [];
    s.messages$.subscribe((m) => {
      delivered.push(m);
      order.push(`revision ${String(m.seq)}`);
    });
    s.resync$.subscribe((error) => {
      lastAtResync.push(s.last);
      order.push(`resync from ${String(error.cursor.seq)}`);
    });
    const seenTwo = firstValueFrom(s.messages$.pipe(take(2), toArray(), timeout(5000)));
    const resynced = firstValueFrom(s.resync$.pipe(timeout(5000)));
    const caughtUp = firstValueFrom(
      s.messages$.pipe(
        filter((m) => m.seq === 8),
        timeout(5000),
      ),
    );
    s.start();
    expect(seqs(await seenTwo)).toEqual([1, 2]);

    await server.kill();
    // While the client is away, revisions 3..8 are written and 1..4 compacted.
    log.head = 8;
    log.horizon = 5;
    await server.restart();
    const refusal = await resynced;
    await caughtUp;

    expect(order).toEqual([
      'revision 1',
      'revision 2',
      'resync from 2',
      'revision 5',
      'revision 6',
      'revision 7',
      'revision 8',
    ]);
    expect(isCannotResumeError(refusal)).toBe(true);
    // The cursor is the message the refused open resumed from, itself.
    expect(refusal.cursor).toBe(delivered[1]);
    expect(isStreamStatusError(refusal.cause)).toBe(true);
    expect(refusal.cause).toMatchObject({ code: status.OUT_OF_RANGE, details: 'revision 3 has been compacted' });
    // The cursor was forgotten before resync$ told: the next open is from the beginning.
    expect(lastAtResync).toEqual([undefined]);
    expect(requests).toEqual([0, 3, 0]);
    expect(asked).toEqual([undefined, { seq: 2 }, undefined]);
    expect(asked[1]).toBe(delivered[1]);
    expect(s.last).toEqual({ seq: 8 });
    // The refusal was a failed attempt, waiting on the schedule; the stream is up again, not over.
    const refused = states.snapshots.find((x) => x.lastError === refusal);
    if (refused?.state !== 'TRANSIENT_FAILURE')
      throw new Error(`expected TRANSIENT_FAILURE, got ${String(refused?.state)}`);
    expect(refused.nextAttemptAt).toBeGreaterThan(refused.since);
    expect(s.manager.snapshot.state).toBe('READY');
  });

  it.each([
    {
      predicate: 'cannotResume: FAILED_PRECONDITION',
      options: { cannotResume: (s: StatusObject) => s.code === status.FAILED_PRECONDITION },
      refusal: status.FAILED_PRECONDITION,
      other: status.OUT_OF_RANGE,
    },
    {
      predicate: 'the default (OUT_OF_RANGE)',
      options: {},
      refusal: status.OUT_OF_RANGE,
      other: status.FAILED_PRECONDITION,
    },
  ])(
    'with $predicate, that status to a cursor is a refusal to resume; the other one ends the stream',
    async ({ options, refusal, other }) => {
      // Each open from the beginning sends 1, 2 and drops; the resume from 3 is answered by the script.
      const { client, requests } = await setup((call, open) => {
        if (call.request.from === 0) {
          send(call, 1, 2);
          fail(call, status.UNAVAILABLE, 'leader changed');
        } else if (open === 1) fail(call, refusal, 'cannot resume from 3');
        else fail(call, other, 'not this time');
      });
      const s = watch(client, options);
      const resyncs = settle(s.resync$);
      const messages = settle(s.messages$);
      s.start();
      const ended = await messages;
      const signalled = await resyncs;

      expect(seqs(ended.values)).toEqual([1, 2, 1, 2]);
      expect(isStreamStatusError(ended.error)).toBe(true);
      expect(ended.error).toMatchObject({ code: other, details: 'not this time' });
      expect(signalled.completed).toBe(true);
      expect(signalled.values).toHaveLength(1);
      expect(signalled.values[0]?.cursor).toEqual({ seq: 2 });
      expect(signalled.values[0]?.cause).toMatchObject({ code: refusal, details: 'cannot resume from 3' });
      expect(requests).toEqual([0, 3, 0, 3]);
      expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    },
  );

  it.each([
    { predicate: 'the default predicate', cannotResume: undefined },
    { predicate: 'a predicate that says yes to anything', cannotResume: vi.fn(() => true) },
  ])(
    'OUT_OF_RANGE to the first open (no cursor) is permanent with $predicate: resync$ completes without a signal',
    async ({ cannotResume }) => {
      const { client, requests, drained } = await setup((call) => {
        fail(call, status.OUT_OF_RANGE, 'no such log');
      });
      const s = watch(client, cannotResume === undefined ? {} : { cannotResume });
      const resyncs = settle(s.resync$);
      const messages = settle(s.messages$);
      s.start();
      const ended = await messages;

      expect(ended.values).toEqual([]);
      expect(isStreamStatusError(ended.error)).toBe(true);
      expect(ended.error).toMatchObject({ code: status.OUT_OF_RANGE, details: 'no such log' });
      expect(await resyncs).toEqual({ values: [], completed: true, error: undefined });
      // Not asked: an open without a cursor cannot be refused a resume.
      if (cannotResume !== undefined) expect(cannotResume).not.toHaveBeenCalled();
      expect(requests).toEqual([0]);
      expect(s.last).toBeUndefined();
      await drained();
    },
  );

  it('after a resync the open from the beginning has no cursor: its OUT_OF_RANGE is permanent, not a second resync', async () => {
    const { client, requests } = await setup((call, open) => {
      if (open === 0) {
        send(call, 1);
        fail(call, status.UNAVAILABLE, 'leader changed');
      } else fail(call, status.OUT_OF_RANGE, `cannot serve from ${String(call.request.from)}`);
    });
    const s = watch(client);
    const resyncs = settle(s.resync$);
    const messages = settle(s.messages$);
    s.start();
    const ended = await messages;

    expect(seqs(ended.values)).toEqual([1]);
    expect(ended.error).toMatchObject({ code: status.OUT_OF_RANGE, details: 'cannot serve from 0' });
    const signalled = await resyncs;
    expect(signalled.values.map((e) => e.cursor)).toEqual([{ seq: 1 }]);
    expect(signalled.values[0]?.cause).toMatchObject({ code: status.OUT_OF_RANGE, details: 'cannot serve from 2' });
    expect(requests).toEqual([0, 2, 0]);
  });

  describe('a server that resumes inclusively (it re-sends the revision asked for, and the one before)', () => {
    const HEAD = 20;
    const RESTARTS = 3;

    /** Streams revisions `from - 1` … HEAD, one every 15 ms, then ends with OK; restarted 3 times on the way. */
    async function acrossRestarts(isAfter: ResilientStreamOptions<CountRequest, Tick>['isAfter']) {
      const { server, client, requests } = await setup((call) => {
        let revision = Math.max(1, call.request.from - 1);
        const timer = setInterval(() => {
          if (revision > HEAD) {
            clearInterval(timer);
            call.end();
            return;
          }
          send(call, revision);
          revision += 1;
        }, 15);
        call.on('cancelled', () => {
          clearInterval(timer);
        });
      });
      const s = watch(client, {
        // Inclusive: ask for the last revision seen.
        request: (last) => ({ from: last === undefined ? 0 : last.seq }),
        ...(isAfter === undefined ? {} : { isAfter }),
      });
      const delivered: Tick[] = [];
      s.messages$.subscribe((m) => delivered.push(m));
      const all = settle(s.messages$);
      s.start();
      for (let restart = 0; restart < RESTARTS; restart++) {
        // Restart once the stream has brought revisions beyond what it had (so that replays are of news).
        const highest = Math.max(0, ...seqs(delivered));
        await firstValueFrom(
          s.messages$.pipe(
            filter((m) => m.seq >= highest + 3),
            timeout(5000),
          ),
        );
        await server.restart();
      }
      const ended = await all;
      expect(ended.completed).toBe(true);
      return { messages: ended.values, requests, last: s.last };
    }

    it('with isAfter, across 3 server restarts each revision is delivered exactly once, in order', async () => {
      const isAfter = vi.fn((m: Tick, last: Tick) => m.seq > last.seq);
      const { messages, requests, last } = await acrossRestarts(isAfter);

      expect(seqs(messages)).toEqual(Array.from({ length: HEAD }, (_, i) => i + 1));
      expect(requests).toHaveLength(RESTARTS + 1);
      expect(requests[0]).toBe(0);
      // Every resume asked for a revision already delivered, and got it and the one before again.
      for (const from of requests.slice(1)) expect(from).toBeGreaterThanOrEqual(3);
      expect(isAfter.mock.calls.filter(([m, l]) => m.seq <= l.seq)).toHaveLength(2 * RESTARTS);
      expect(last).toEqual({ seq: HEAD });
    });

    it('without isAfter, the replays are delivered again (2 per resume)', async () => {
      const { messages, requests } = await acrossRestarts(undefined);

      expect(requests).toHaveLength(RESTARTS + 1);
      // Each open delivered from the revision before the one it asked for up to where the next one resumed.
      const expected: number[] = [];
      const resumes = [...requests.slice(1), HEAD];
      let start = 1;
      for (const end of resumes) {
        for (let revision = start; revision <= end; revision++) expected.push(revision);
        start = end - 1;
      }
      expect(seqs(messages)).toEqual(expected);
      expect(messages).toHaveLength(HEAD + 2 * RESTARTS);
    });
  });

  it('an isAfter that throws ends the stream for good with its error, after one open', async () => {
    const { client, requests, drained } = await setup((call) => {
      send(call, 1, 2, 3);
    });
    const boom = new Error('isAfter failed');
    const isAfter = vi.fn((): boolean => {
      throw boom;
    });
    const s = watch(client, { isAfter });
    const resyncs = settle(s.resync$);
    const messages = settle(s.messages$);
    s.start();
    const ended = await messages;

    expect(seqs(ended.values)).toEqual([1]);
    expect(ended.error).toBe(boom);
    expect(isAfter).toHaveBeenCalledTimes(1);
    expect(await resyncs).toEqual({ values: [], completed: true, error: undefined });
    expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
    // The watch was cancelled at the server, and never re-opened.
    await drained();
    expect(requests).toEqual([0]);
  });

  it('a cannotResume that throws ends the stream for good with its error', async () => {
    const { client, requests } = await setup((call, open) => {
      if (open === 0) {
        send(call, 1);
        fail(call, status.UNAVAILABLE, 'leader changed');
      } else fail(call, status.OUT_OF_RANGE, 'compacted');
    });
    const boom = new Error('cannotResume failed');
    const cannotResume = vi.fn((): boolean => {
      throw boom;
    });
    const s = watch(client, { cannotResume });
    const resyncs = settle(s.resync$);
    const messages = settle(s.messages$);
    s.start();
    const ended = await messages;

    expect(seqs(ended.values)).toEqual([1]);
    expect(ended.error).toBe(boom);
    // Asked once: about the end of the open from a cursor (not the first one's).
    expect(cannotResume).toHaveBeenCalledTimes(1);
    expect(cannotResume.mock.calls[0]).toMatchObject([{ code: status.OUT_OF_RANGE, details: 'compacted' }]);
    expect(await resyncs).toEqual({ values: [], completed: true, error: undefined });
    expect(requests).toEqual([0, 2]);
    expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'permanent-failure' });
  });

  it('close() completes resync$ and messages$, and leaves no watch open at the server', async () => {
    const { client, requests, openCalls, drained } = await setup((call, open) => {
      if (open === 0) {
        send(call, 1);
        fail(call, status.UNAVAILABLE, 'leader changed');
      } else if (open === 1) fail(call, status.OUT_OF_RANGE, 'compacted');
      else send(call, 1); // From the beginning, and held open.
    });
    const s = watch(client);
    const resyncs = settle(s.resync$);
    const messages = settle(s.messages$);
    const resent = firstValueFrom(s.messages$.pipe(take(2), toArray(), timeout(5000)));
    s.start();
    await resent;
    expect(openCalls()).toBe(1);
    s.close();

    expect(await messages).toMatchObject({ completed: true, error: undefined });
    expect(seqs((await messages).values)).toEqual([1, 1]);
    const signalled = await resyncs;
    expect(signalled.completed).toBe(true);
    expect(signalled.values.map((e) => e.cursor)).toEqual([{ seq: 1 }]);
    expect(s.manager.snapshot).toMatchObject({ state: 'SHUTDOWN', reason: 'shutdown' });
    await drained();
    expect(openCalls()).toBe(0);
    expect(requests).toEqual([0, 2, 0]);
  });
});
