/**
 * The schedule invariant (test/support/connection-schedule.ts) for the WebSocket side, on virtual
 * time, against generated servers: a ConnectionManager with the WebSocket connector
 * (websocket-connector.ts), and ReconnectingWebSocket. The sockets are the fake WebSocket of
 * test/support/websocket, driven by a server that, per connection, refuses the upgrade (`error`, then
 * close 1006, before `open`), never answers, or opens and later closes with 1000, 1001, 1006, 1012
 * or 1013, with or without a delay hint in the reason; the client's close() completes its handshake
 * one tick later, as a server's answer would.
 *
 * The connector needs an adapter's hooks; the one here is as small as an adapter can be and speaks
 * the core's words: a 1012/1013 with a hint is a RetryAfterError of the hint as the server wrote it,
 * a 1000/1001 after `open` is a graceful end (markGracefulEnd). ReconnectingWebSocket applies its own
 * documented rules: hints clamped into [minReconnectionDelay, maxReconnectionDelay], which is the
 * ceiling the checker is given for it.
 *
 * ReconnectingWebSocket also runs with the browser going offline and online and hiding and showing
 * the page at generated times: the checker is told the wakes (online, visible) and the offline spells.
 *
 * Cases per run: 200 + 30 (1e30 hints) for the connector, 200 + 200 (browser events) for
 * ReconnectingWebSocket = 630.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grpcBackoff, markGracefulEnd, retryAfter } from '../../src/index.js';
import { type VirtualClock, createVirtualClock } from '../../src/testing/index.js';
import {
  ReconnectingWebSocket,
  SERVER_BACKOFF_CLOSE_CODES,
  WebSocketCloseError,
  parseCloseReasonDelay,
} from '../../src/adapters/websocket/index.js';
import { type SocketHooks, createWebSocketConnector } from '../../src/adapters/websocket/websocket-connector.js';
import {
  type AttemptEnd,
  type ScheduleRules,
  type ScheduleTrace,
  longestAllowedWait,
  scheduleViolations,
} from '../support/connection-schedule.js';
import { FakeEnvironment, FakeSocket } from '../support/websocket/fake-websocket.js';
import type { ManagerSpec, PolicySpec, RandomSpec } from './support/generated.js';
import {
  MAX_ATTEMPTS,
  managerSpec,
  policyOf,
  policySpec,
  randomOf,
  randomSpec,
  runUntilQuiet,
} from './support/generated.js';
import type { At, BlackHole, ServedAttempt, Up } from './support/servers.js';
import { HUGE_HINT, blackHole, latency, nthBehaviour, playUp, up, uptime } from './support/servers.js';
import { runManager } from './support/run-manager.js';

type CloseCode = 1000 | 1001 | 1006 | 1012 | 1013;

/** What the server does with one connection. */
type Behaviour = { readonly kind: 'refuse'; readonly after: number } | BlackHole | Up<'code', CloseCode>;

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constant('refuse' as const), after: latency }),
  blackHole,
  up('code', fc.constantFrom<CloseCode>(1000, 1001, 1006, 1012, 1013)),
);

const servers = fc.array(behaviour, { minLength: 1, maxLength: 6 });

/** A fake WebSocket server on `clock`: a WebSocket class whose sockets do what `behaviours` say, in turn. */
function fakeServer(clock: VirtualClock, behaviours: readonly Behaviour[]) {
  const attempts: ServedAttempt[] = [];
  let mostOpen = 0;
  const state = { stopping: false };
  const openNow = () => attempts.filter((a) => a.open).length;

  const accept = (socket: FakeSocket): ServedAttempt => {
    mostOpen = Math.max(mostOpen, openNow() + 1);
    const record: ServedAttempt = { start: clock.now(), open: true, timers: [] };
    const b = nthBehaviour<Behaviour>(behaviours, attempts.length, { kind: 'black-hole' });
    attempts.push(record);
    const at: At = (delay, act) => {
      record.timers.push(clock.scheduler.schedule(act, delay));
    };
    const timeline = { at, now: () => clock.now() };
    const serverEnds = (end: AttemptEnd, act: () => void) => {
      if (!record.open) return;
      record.end ??= end;
      record.open = false;
      act();
    };
    if (b.kind === 'refuse') {
      at(b.after, () => {
        serverEnds({ kind: 'failed', at: clock.now() }, () => {
          socket.fail();
        });
      });
    } else if (b.kind === 'up') {
      playUp(b, record, timeline, {
        ready: () => {
          socket.open();
        },
        ends: (readyAt) => {
          const directs = SERVER_BACKOFF_CLOSE_CODES.includes(b.code);
          const end: AttemptEnd = {
            kind: 'lost',
            readyAt,
            at: clock.now(),
            graceful: b.code === 1000 || b.code === 1001,
            hint: directs ? b.hint?.value : undefined,
          };
          serverEnds(end, () => {
            if (b.code === 1006) socket.fail();
            else socket.finish(b.code, b.hint?.text ?? '', true);
          });
        },
      });
    }
    return record;
  };

  const clientClosed = (socket: FakeSocket, record: ServedAttempt): void => {
    if (record.open) {
      record.open = false;
      for (const timer of record.timers) timer.unsubscribe();
      // The client ended it first: a cut (before open), or shutdown.
      record.end ??= {
        kind: state.stopping || record.readyAt !== undefined ? 'stopped' : 'failed',
        at: clock.now(),
      };
    }
    // The server answers the close handshake.
    clock.scheduler.schedule(() => {
      if (socket.readyState === 2) socket.finish();
    });
  };

  class ServerSocket extends FakeSocket {
    readonly #record: ServedAttempt;

    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      this.#record = accept(this);
    }

    override close(code?: number, reason?: string): void {
      const closing = this.readyState < 2;
      super.close(code, reason);
      if (closing) clientClosed(this, this.#record);
    }
  }

  return { WebSocket: ServerSocket, attempts, openNow, mostOpen: () => mostOpen, state };
}

/** Everything a run broke: the schedule, and the sockets and timers left behind. */
function problemsOf(
  clock: VirtualClock,
  server: ReturnType<typeof fakeServer>,
  end: number,
  rules: ScheduleRules,
  browser: Pick<ScheduleTrace, 'wakes' | 'offline'> = {},
): string[] {
  const problems = scheduleViolations({ attempts: server.attempts, end, ...browser }, rules);
  if (server.mostOpen() > 1) problems.push(`${String(server.mostOpen())} sockets were open at once`);
  if (server.openNow() > 0) problems.push(`${String(server.openNow())} sockets open after shutdown`);
  if (clock.pendingTimers() > 0) problems.push(`${String(clock.pendingTimers())} timers left after shutdown`);
  return problems;
}

/** The adapter's part of the connector, in the core's words (see the module notes). */
const hooks: SocketHooks = {
  created: () => undefined,
  opening: () => undefined,
  open: () => undefined,
  message: () => undefined,
  ended: (close, error, opened) => {
    const failure = new WebSocketCloseError(close, opened, error);
    const delay = SERVER_BACKOFF_CLOSE_CODES.includes(close.code) ? parseCloseReasonDelay(close.reason) : undefined;
    if (delay !== undefined) return retryAfter(failure, delay);
    return opened && (close.code === 1000 || close.code === 1001) ? markGracefulEnd(failure) : failure;
  },
  announce: () => undefined,
  released: () => ({ events: [] }),
};

function runConnector(
  behaviours: readonly Behaviour[],
  policy: PolicySpec,
  options: ManagerSpec,
  random: RandomSpec,
): string[] {
  const clock = createVirtualClock();
  const server = fakeServer(clock, behaviours);
  const rules = runManager({
    clock,
    connector: createWebSocketConnector({
      url: 'ws://server.test/',
      protocols: undefined,
      WebSocket: server.WebSocket,
      hooks,
    }),
    backoff: policyOf(policy),
    options,
    random,
    done: () => server.attempts.length >= MAX_ATTEMPTS,
    stopping: () => {
      server.state.stopping = true;
    },
  });
  const end = clock.now();
  clock.advanceBy(0);
  return problemsOf(clock, server, end, rules);
}

/** ReconnectingWebSocket's delay options. */
interface DelaySpec {
  readonly minReconnectionDelay: number;
  readonly maxReconnectionDelay: number;
  readonly reconnectionDelayGrowFactor: number;
  readonly reconnectionDelayJitter: number;
  readonly minUptime: number;
  readonly connectionTimeout: number;
}

const delaySpec: fc.Arbitrary<DelaySpec> = fc.integer({ min: 0, max: 5000 }).chain((min) =>
  fc.record({
    minReconnectionDelay: fc.constant(min),
    maxReconnectionDelay: fc.integer({ min, max: Math.max(min, 30_000) }),
    reconnectionDelayGrowFactor: fc.oneof(fc.constant(1.6), fc.double({ min: 1, max: 3, noNaN: true })),
    reconnectionDelayJitter: fc.oneof(fc.constant(0.2), fc.double({ min: 0, max: 1, noNaN: true })),
    minUptime: fc.oneof(fc.constant(5000), fc.integer({ min: 0, max: 10_000 })),
    connectionTimeout: fc.oneof(fc.constant(20_000), fc.integer({ min: 50, max: 5000 })),
  }),
);

/** What the browser does meanwhile: after `gap` ms, goes offline or online, or hides or shows the page. */
interface BrowserEvent {
  readonly gap: number;
  readonly kind: 'offline' | 'online' | 'hidden' | 'visible';
}

const browserEvents: fc.Arbitrary<BrowserEvent[]> = fc.array(
  fc.record({
    gap: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 200_000 })),
    kind: fc.constantFrom<BrowserEvent['kind']>('offline', 'online', 'hidden', 'visible'),
  }),
  { minLength: 1, maxLength: 10 },
);

/**
 * Plays `events` on `environment` in virtual time, and back online after the last (none: nothing). `stop()` cancels
 * what has not happened yet and returns what the schedule checker reads of what did: the wakes
 * (every `online`, every `visible`) and the offline spells (one still open lasts to Infinity).
 */
function playBrowser(clock: VirtualClock, environment: FakeEnvironment, events: readonly BrowserEvent[]) {
  const wakes: number[] = [];
  const offline: { from: number; to: number }[] = [];
  let from: number | undefined;
  const act = (kind: BrowserEvent['kind']) => {
    const now = clock.now();
    if (kind === 'offline') {
      from ??= now;
      environment.goOffline();
    } else if (kind === 'online') {
      if (from !== undefined) offline.push({ from, to: now });
      from = undefined;
      wakes.push(now);
      environment.goOnline();
    } else {
      if (kind === 'visible') wakes.push(now);
      environment.setVisibility(kind);
    }
  };
  let at = 0;
  const played = events.length === 0 ? [] : [...events, { gap: 1000, kind: 'online' as const }];
  const timers = played.map((event) => {
    at += event.gap;
    return clock.scheduler.schedule(() => {
      act(event.kind);
    }, at);
  });
  return {
    over: at,
    stop: (): Pick<ScheduleTrace, 'wakes' | 'offline'> => {
      for (const timer of timers) timer.unsubscribe();
      return { wakes, offline: from === undefined ? offline : [...offline, { from, to: Infinity }] };
    },
  };
}

function runReconnectingWebSocket(
  behaviours: readonly Behaviour[],
  delays: DelaySpec,
  random: RandomSpec,
  browser: readonly BrowserEvent[] = [],
): string[] {
  const clock = createVirtualClock();
  const server = fakeServer(clock, behaviours);
  const rules: ScheduleRules = {
    backoff: grpcBackoff({
      initialBackoff: delays.minReconnectionDelay,
      maxBackoff: delays.maxReconnectionDelay,
      multiplier: delays.reconnectionDelayGrowFactor,
      jitter: delays.reconnectionDelayJitter,
    }),
    minUptime: delays.minUptime,
    // The adapter's default: a stable connection's loss is the first failure of a new cycle.
    backoffAfterLoss: true,
    // The documented clamp of a 1012/1013 hint.
    maxRetryAfter: delays.maxReconnectionDelay,
  };
  const environment = new FakeEnvironment();
  const socket = new ReconnectingWebSocket('ws://server.test/', undefined, {
    WebSocket: server.WebSocket,
    scheduler: clock.scheduler,
    random: randomOf(random),
    environment,
    ...delays,
  });
  const played = playBrowser(clock, environment, browser);
  try {
    runUntilQuiet(
      clock,
      longestAllowedWait(rules) + 1000,
      () => server.attempts.length >= MAX_ATTEMPTS && clock.now() >= played.over,
    );
  } finally {
    server.state.stopping = true;
    socket.close();
  }
  const end = clock.now();
  clock.advanceBy(0);
  return problemsOf(clock, server, end, rules, played.stop());
}

describe('WebSocket on virtual time: the schedule invariant against generated servers', () => {
  it('ConnectionManager + the WebSocket connector: any server (refused upgrade, black hole, open then 1000/1001/1006/1012/1013, any hint), any policy and options', () => {
    fc.assert(
      fc.property(servers, policySpec, managerSpec, randomSpec, (...args) => {
        expect(runConnector(...args)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('ConnectionManager + the WebSocket connector: close 1012/1013 asking for 1e30 ms waits at most the hint ceiling', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<CloseCode>(1012, 1013),
        uptime,
        policySpec,
        managerSpec,
        randomSpec,
        (code, up, policy, options, random) => {
          const asks: Behaviour = { kind: 'up', after: 0, uptime: up, code, hint: HUGE_HINT };
          expect(runConnector([asks], policy, options, random)).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  });

  it.each<[string, fc.Arbitrary<BrowserEvent[]>]>([
    ['ReconnectingWebSocket: any server, any delay options', fc.constant([])],
    [
      'ReconnectingWebSocket: any server and delay options while the browser goes offline and online, hides and shows the page',
      browserEvents,
    ],
  ])('%s', (_name, browser) => {
    fc.assert(
      fc.property(servers, delaySpec, randomSpec, browser, (...args) => {
        expect(runReconnectingWebSocket(...args)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
