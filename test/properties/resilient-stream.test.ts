/**
 * The schedule invariant (test/support/connection-schedule.ts) for `ResilientStream`, on virtual time:
 * its opens are attempts, scripted by a generated server (headers and a message after a latency and an
 * end with UNAVAILABLE, a reset or OUT_OF_RANGE after an uptime, a failure before any headers, or
 * silence), with any policy and manager options. Each message is the stream's cursor: OUT_OF_RANGE
 * to an open that resumed from one is a refusal to resume (one `resync$` signal, and the next open
 * starts from the beginning), to an open without one a permanent end (no open after it). With `channel`, a generated channel goes READY and away at generated times;
 * the checker is told those spells as the stream sees them: no open while the channel is not READY
 * (an offline spell), the channel's READY a moment worth retrying at once (a wake); the streams open
 * on a channel that goes away end with UNAVAILABLE, as grpc-js ends them. And nothing is left after
 * close(): no timer, no open call, no subscription to the channel.
 *
 * Cases per run: 150 with a channel, 100 without.
 */
import { EventEmitter } from 'node:events';
import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import { BehaviorSubject, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { isStreamStatusError, ResilientStream, type ResponseStream } from '../../src/adapters/grpc/index.js';
import type { ConnectionSnapshot } from '../../src/index.js';
import { createVirtualClock, type VirtualClock } from '../../src/testing/index.js';
import {
  type AttemptEnd,
  longestAllowedWait,
  type OfflineSpell,
  type ScheduleRules,
  scheduleViolations,
  type TracedAttempt,
} from '../support/connection-schedule.js';
import {
  MAX_ATTEMPTS,
  type ManagerSpec,
  managerSpec,
  type PolicySpec,
  policyOf,
  policySpec,
  randomOf,
  type RandomSpec,
  randomSpec,
  runUntilQuiet,
} from './support/generated.js';
import { latency, nthBehaviour, uptime } from './support/servers.js';

const UNAVAILABLE = 14;
const CANCELLED = 1;
const OUT_OF_RANGE = status.OUT_OF_RANGE;

/**
 * How a stream ends: UNAVAILABLE, a reset (CANCELLED that the client did not cause), or OUT_OF_RANGE,
 * which refuses to resume an open that had a cursor and is permanent for one that had none.
 */
type EndKind = 'unavailable' | 'reset' | 'out-of-range';
const endKind = fc.constantFrom<EndKind>('unavailable', 'reset', 'out-of-range');

/** What the server does with one open. */
type OpenScript =
  | { readonly kind: 'silent' }
  | { readonly kind: 'fails'; readonly after: number; readonly end: EndKind }
  | { readonly kind: 'up'; readonly after: number; readonly uptime: number; readonly end: EndKind };

const openScript: fc.Arbitrary<OpenScript> = fc.oneof(
  fc.constant({ kind: 'silent' as const }),
  fc.record({ kind: fc.constant('fails' as const), after: latency, end: endKind }),
  fc.record({ kind: fc.constant('up' as const), after: latency, uptime, end: endKind }),
);
const openScripts = fc.array(openScript, { minLength: 1, maxLength: 6 });

/** The channel: READY or not, for `lasts` ms each, in turn from `startsReady`. */
interface ChannelScript {
  readonly startsReady: boolean;
  readonly spells: readonly number[];
}
const channelScript: fc.Arbitrary<ChannelScript> = fc.record({
  startsReady: fc.boolean(),
  spells: fc.array(fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 60_000 })), {
    minLength: 0,
    maxLength: 8,
  }),
});

/** One open as the fake server records it. */
interface Served {
  readonly start: number;
  readyAt?: number;
  end?: AttemptEnd;
  readonly call: FakeCall;
  readonly timers: Subscription[];
  /** The cursor its request carried (the seq of the last message delivered), if any. */
  readonly cursor: number | undefined;
  /** Ended with OUT_OF_RANGE: a refusal to resume if it had a cursor, else permanent. */
  outOfRange: boolean;
}

/** The message each healthy stream sends, numbered across the run: the stream's cursor. */
interface Message {
  readonly seq: number;
}

/** The request of each open: the cursor it resumes from. */
interface Request {
  readonly from: number | undefined;
}

/** Enough of a grpc-js ClientReadableStream for ResilientStream: events, and cancel(). */
class FakeCall extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
  }
}

function fakeServer(clock: VirtualClock, scripts: readonly OpenScript[]) {
  const served: Served[] = [];
  const state = { stopping: false };
  const ends = (record: Served, code: number, details: string): void => {
    if (record.end !== undefined) return;
    for (const timer of record.timers) timer.unsubscribe();
    const at = clock.now();
    record.end =
      record.readyAt === undefined
        ? { kind: 'failed', at }
        : { kind: 'lost', readyAt: record.readyAt, at, graceful: false };
    record.call.emit('status', { code, details, metadata: {} });
    record.call.emit('end');
  };
  const open = (request: Request): ResponseStream<Message> => {
    const call = new FakeCall();
    const record: Served = { start: clock.now(), call, timers: [], cursor: request.from, outOfRange: false };
    served.push(record);
    const originalCancel = call.cancel.bind(call);
    call.cancel = () => {
      originalCancel();
      for (const timer of record.timers) timer.unsubscribe();
      if (record.end !== undefined) return;
      const now = clock.now();
      record.end = state.stopping
        ? { kind: 'stopped', at: now }
        : record.readyAt === undefined
          ? { kind: 'failed', at: now }
          : { kind: 'lost', readyAt: record.readyAt, at: now, graceful: false };
    };
    const at = (delay: number, act: () => void): void => {
      record.timers.push(
        clock.scheduler.schedule(() => {
          if (record.end === undefined) act();
        }, delay),
      );
    };
    const script = nthBehaviour(scripts, served.length - 1, { kind: 'silent' });
    const endWith = (end: EndKind): void => {
      if (end === 'reset') ends(record, CANCELLED, 'Call cancelled');
      else if (end === 'unavailable') ends(record, UNAVAILABLE, 'the service is moving');
      else {
        record.outOfRange = true;
        if (record.cursor === undefined) {
          // Permanent: the end is the stream's own, not a failure the schedule follows.
          for (const timer of record.timers) timer.unsubscribe();
          record.end = { kind: 'stopped', at: clock.now() };
          call.emit('status', { code: OUT_OF_RANGE, details: 'no such revision', metadata: {} });
          call.emit('end');
        } else ends(record, OUT_OF_RANGE, 'compacted');
      }
    };
    switch (script.kind) {
      case 'silent':
        break;
      case 'fails':
        at(script.after, () => {
          endWith(script.end);
        });
        break;
      case 'up':
        at(script.after, () => {
          record.readyAt = clock.now();
          call.emit('metadata', {});
          call.emit('data', { seq: served.length } satisfies Message);
          at(script.uptime, () => {
            endWith(script.end);
          });
        });
        break;
    }
    return call as unknown as ResponseStream<Message>;
  };
  /** The channel's connection went away: its streams end as grpc-js ends them. */
  const connectionLost = (): void => {
    for (const record of served) if (record.end === undefined) ends(record, UNAVAILABLE, 'Connection dropped');
  };
  return { served, state, open, connectionLost };
}

/** Plays `script` on a fake channel; `stop()` returns the spells the stream had no channel, and the READYs. */
function playChannel(clock: VirtualClock, script: ChannelScript, lost: () => void) {
  const snapshot = (ready: boolean): ConnectionSnapshot =>
    (ready
      ? { state: 'READY', since: clock.now(), attempt: 0, connection: {} }
      : { state: 'CONNECTING', since: clock.now(), attempt: 1, timeoutAt: clock.now() + 20_000 }) as ConnectionSnapshot;
  const state$ = new BehaviorSubject<ConnectionSnapshot>(snapshot(script.startsReady));
  const wakes: number[] = [];
  const offline: OfflineSpell[] = [];
  let from: number | undefined = script.startsReady ? undefined : 0;
  let ready = script.startsReady;
  let at = 0;
  const timers = script.spells.map((lasts) => {
    at += lasts;
    return clock.scheduler.schedule(() => {
      ready = !ready;
      const now = clock.now();
      if (ready) {
        if (from !== undefined) offline.push({ from, to: now });
        from = undefined;
        wakes.push(now);
        state$.next(snapshot(true));
      } else {
        from = now;
        state$.next(snapshot(false));
        lost();
      }
    }, at);
  });
  const channel = { state$: state$.asObservable(), manager: { connect: () => undefined } };
  return {
    channel,
    over: at,
    observers: () => (state$.observed ? 1 : 0),
    stop: () => {
      for (const timer of timers) timer.unsubscribe();
      return { wakes, offline: from === undefined ? offline : [...offline, { from, to: Infinity }] };
    },
  };
}

function runStream(
  scripts: readonly OpenScript[],
  channelSpec: ChannelScript | undefined,
  policy: PolicySpec,
  options: ManagerSpec,
  random: RandomSpec,
): string[] {
  const clock = createVirtualClock();
  const server = fakeServer(clock, scripts);
  const backoff = policyOf(policy);
  const played = channelSpec === undefined ? undefined : playChannel(clock, channelSpec, server.connectionLost);
  const { attemptSpacing, ...rest } = options;
  const rules: ScheduleRules = { backoff, ...options };
  const stream = new ResilientStream<Request, Message>({
    ...rest,
    ...(attemptSpacing === undefined ? {} : { attemptSpacing }),
    backoff,
    scheduler: clock.scheduler,
    random: randomOf(random),
    ...(played === undefined ? {} : { channel: played.channel }),
    open: (request) => server.open(request),
    request: (last) => ({ from: last?.seq }),
  });
  // The one permanent end scripted is OUT_OF_RANGE without a cursor; any other would show here.
  let ended: unknown;
  stream.messages$.subscribe({ error: (error: unknown) => (ended = error) });
  let resyncs = 0;
  stream.resync$.subscribe(() => (resyncs += 1));
  try {
    stream.start();
    runUntilQuiet(
      clock,
      longestAllowedWait(rules) + 1000,
      () =>
        (server.served.length >= MAX_ATTEMPTS && clock.now() >= (played?.over ?? 0)) ||
        stream.manager.snapshot.state === 'SHUTDOWN',
    );
  } finally {
    server.state.stopping = true;
    stream.close();
  }
  const end = clock.now();
  const browser = played?.stop() ?? {};
  clock.advanceBy(0);
  const attempts: TracedAttempt[] = server.served.map(({ start, end: e }) => ({ start, end: e }));
  const problems = scheduleViolations({ attempts, end, ...browser }, rules);
  const stopAt = server.served.findIndex((s) => s.outOfRange && s.cursor === undefined);
  if (stopAt >= 0 && server.served.length > stopAt + 1)
    problems.push(`open ${String(stopAt + 2)} after OUT_OF_RANGE ended open ${String(stopAt + 1)} for good`);
  if (ended !== undefined && !(stopAt >= 0 && isStreamStatusError(ended) && ended.code === OUT_OF_RANGE))
    problems.push(`the stream ended: ${ended instanceof Error ? ended.message : JSON.stringify(ended)}`);
  const refusals = server.served.filter((s) => s.outOfRange && s.cursor !== undefined);
  if (resyncs !== refusals.length)
    problems.push(`${String(resyncs)} resync$ signals for ${String(refusals.length)} refusals to resume`);
  server.served.forEach((s, i) => {
    const next = server.served[i + 1];
    if (s.outOfRange && s.cursor !== undefined && next?.cursor !== undefined)
      problems.push(`open ${String(i + 2)} resumed from ${String(next.cursor)} after a refusal to resume`);
  });
  const open = server.served.filter((s) => s.end === undefined);
  if (open.length > 0) problems.push(`${String(open.length)} calls open after close()`);
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after close()`);
  if (played !== undefined && played.observers() > 0) problems.push('still subscribed to the channel after close()');
  return problems;
}

describe('ResilientStream on virtual time: the schedule invariant against generated servers', () => {
  it('on its own backoff: any server, any policy and options', () => {
    fc.assert(
      fc.property(openScripts, policySpec, managerSpec, randomSpec, (scripts, policy, options, random) => {
        expect(runStream(scripts, undefined, policy, options, random)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('following its channel: any server, any channel spells, any policy and options', () => {
    fc.assert(
      fc.property(openScripts, channelScript, policySpec, managerSpec, randomSpec, (...args) => {
        expect(runStream(...args)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
