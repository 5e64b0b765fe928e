/**
 * What the application sees of each socket, on virtual time with a scriptable WebSocket: an attempt
 * ends on `error` or `close`, whichever comes first, with one outcome; reconnect() and a connect
 * timeout announce their close as reconnecting-websocket does; listener options; retryCount; the
 * close error's cause; the queue flushed before READY; send() payloads; the heartbeat.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectionStatus, isConnectTimeoutError } from '../../../src/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';
import {
  type ReconnectingWebSocketOptions,
  ReconnectingWebSocket,
  isHeartbeatTimeoutError,
  isWebSocketCloseError,
} from '../../../src/adapters/websocket/index.js';
import { fakeClient } from '../../support/websocket/fake-client.js';
import { FakeSocket, fakeWebSocketClass } from '../../support/websocket/fake-websocket.js';
import { virtualTimeOptions } from '../../support/websocket/virtual-time-options.js';

const open: ReconnectingWebSocket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) if (socket.snapshot.state !== 'SHUTDOWN') socket.close();
});

function setup(options: ReconnectingWebSocketOptions = {}, protocols?: string | string[] | null) {
  const { clock, fake, environment, socket, snapshots } = fakeClient(open, options, protocols);
  // Every event the application sees, with the state and counters at that moment.
  const seen: string[] = [];
  const record = (what: string) => {
    seen.push(`${what} rs=${String(socket.readyState)} rc=${String(socket.retryCount)}`);
  };
  socket.onopen = () => {
    record('open');
  };
  socket.onerror = (e) => {
    record(`error${e.message === undefined ? '' : ` ${e.message}`}`);
  };
  socket.onclose = (e) => {
    record(`close ${String(e.code)} '${e.reason}' ${String(e.wasClean)}`);
  };
  socket.onmessage = (e) => {
    record(`message ${String(e.data)}`);
  };
  return { clock, fake, environment, socket, snapshots, seen, last: fake.last };
}

/** Node 22's own WebSocket on a refused connection: error, and never a close. */
function errorOnly(socket: FakeSocket): void {
  (socket as unknown as { emitError(): void }).emitError();
}

describe('an attempt ends on error or close, whichever comes first', () => {
  it('error without close (Node 22): the attempt ends at once and retries on the backoff, not at the connect timeout', () => {
    const h = setup();
    errorOnly(h.last());
    expect(h.socket.snapshot).toMatchObject({ state: 'TRANSIENT_FAILURE', nextAttemptAt: 1000 });
    expect(h.seen).toEqual(['error rs=0 rc=1', "close 1006 '' false rs=0 rc=1"]);
    h.clock.advanceBy(1000);
    expect(h.fake.sockets).toHaveLength(2);
    expect(h.fake.sockets[0]?.closedWith).toBeDefined(); // closed, in case the runtime kept it
  });

  it('error then close: one outcome, and the close announced once', () => {
    const h = setup();
    h.last().fail(); // error, then close 1006
    expect(h.snapshots.filter((s) => s.state === 'TRANSIENT_FAILURE')).toHaveLength(1);
    expect(h.seen).toEqual(['error rs=0 rc=1', "close 1006 '' false rs=0 rc=1"]);
    expect(h.last().listenerCount()).toBe(0);
  });

  it("close without error: the socket's own close event", () => {
    const h = setup();
    h.last().open();
    h.last().finish(1001, 'going away', true);
    expect(h.seen).toEqual(['open rs=1 rc=0', "close 1001 'going away' true rs=0 rc=1"]);
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
  });

  it('the WebSocketCloseError carries the socket error as cause and names it', () => {
    const h = setup();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    (h.last() as unknown as { emitError(error?: unknown): void }).emitError(refused);
    const error = h.socket.snapshot.lastError as Error;
    expect(isWebSocketCloseError(error)).toBe(true);
    expect(error.cause).toBe(refused);
    expect(error.message).toBe(
      'the WebSocket closed with code 1006 before it opened: connect ECONNREFUSED 127.0.0.1:9',
    );
  });
});

describe('reconnect(), the connect timeout and retryCount, as reconnecting-websocket', () => {
  it('reconnect() on an open socket dispatches its close at once (1000), then nothing more from it', () => {
    const h = setup();
    const first = h.last();
    first.open();
    h.socket.reconnect();
    expect(h.seen).toEqual(['open rs=1 rc=0', "close 1000 '' true rs=2 rc=0"]);
    expect(first.closedWith).toEqual({ code: 1000, reason: undefined });
    expect(h.fake.sockets).toHaveLength(2);
    first.receive('late');
    first.finish();
    expect(h.seen).toHaveLength(2);
    h.last().open();
    expect(h.seen.at(-1)).toBe('open rs=1 rc=0');
  });

  it('reconnect(code, reason) on a connecting socket: one close with them, no 1006 from the abandoned socket', () => {
    const h = setup();
    const first = h.last();
    h.socket.reconnect(4000, 'again');
    expect(h.seen).toEqual(["close 4000 'again' true rs=2 rc=0"]);
    first.fail();
    expect(h.seen).toHaveLength(1);
  });

  it('a connect timeout: error TIMEOUT, then close, then the next attempt', () => {
    const h = setup({ connectionTimeout: 3000 });
    h.clock.advanceTo(3000);
    expect(h.seen).toEqual(['error TIMEOUT rs=0 rc=1', "close 1006 'timeout' false rs=0 rc=1"]);
    expect(isConnectTimeoutError(h.socket.snapshot.lastError)).toBe(true);
    h.fake.sockets[0]?.finish();
    expect(h.seen).toHaveLength(2);
  });

  it('retryCount rises with each failure, seen in its error and close events, and is 0 again after reconnect()', () => {
    const h = setup();
    h.last().fail();
    h.clock.advanceBy(1000);
    h.last().fail();
    expect(h.seen).toEqual([
      'error rs=0 rc=1',
      "close 1006 '' false rs=0 rc=1",
      'error rs=0 rc=2',
      "close 1006 '' false rs=0 rc=2",
    ]);
    h.socket.reconnect();
    expect(h.socket.retryCount).toBe(0);
  });
});

describe('several URLs', () => {
  it('the socket that loses the race is dropped quietly: the application sees only the winner', () => {
    const clock = createVirtualClock();
    const fake = fakeWebSocketClass();
    const socket = new ReconnectingWebSocket(
      ['ws://a.test/', 'ws://b.test/'],
      null,
      virtualTimeOptions(clock, fake.WebSocket),
    );
    open.push(socket);
    const seen: string[] = [];
    socket.onopen = () => seen.push('open');
    socket.onerror = () => seen.push('error');
    socket.onclose = (e) => seen.push(`close ${String(e.code)}`);
    clock.advanceBy(250); // the second URL starts after the stagger
    expect(fake.sockets.map((s) => s.url)).toEqual(['ws://a.test/', 'ws://b.test/']);
    fake.last().open();
    expect(fake.sockets[0]?.closedWith).toBeDefined();
    expect(seen).toEqual(['open']);
  });
});

describe('drop-in details', () => {
  it('accepts null protocols (none are passed to the WebSocket)', () => {
    const h = setup({}, null);
    expect(h.last().protocols).toBeUndefined();
  });

  it('a lone maxReconnectionDelay caps every wait (the default minimum follows it down)', () => {
    const h = setup({ maxReconnectionDelay: 200, reconnectionDelayJitter: 0 });
    const starts: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      starts.push(h.clock.now());
      h.last().fail();
      const s = h.socket.snapshot;
      if (s.state === 'TRANSIENT_FAILURE') h.clock.advanceTo(s.nextAttemptAt);
    }
    expect(starts).toEqual([0, 200, 400, 600]);
  });

  it('addEventListener honours once and signal', () => {
    const h = setup();
    const calls: string[] = [];
    const controller = new AbortController();
    h.socket.addEventListener('message', (e) => calls.push(`once ${String(e.data)}`), { once: true });
    h.socket.addEventListener('message', (e) => calls.push(`signal ${String(e.data)}`), { signal: controller.signal });
    const aborted = new AbortController();
    aborted.abort();
    h.socket.addEventListener('message', () => calls.push('never'), { signal: aborted.signal });
    h.last().open();
    h.last().receive('a');
    controller.abort();
    h.last().receive('b');
    expect(calls).toEqual(['once a', 'signal a']);
  });

  it('announces READY only after the queue is flushed: a resubscribe from a state$ subscriber is sent, not refused', () => {
    const h = setup({ maxEnqueuedMessages: 2 });
    h.socket.send('q1');
    h.socket.send('q2');
    const statuses: string[] = [];
    h.socket.state$.subscribe((s) => {
      if (s.state === 'READY') statuses.push(h.socket.sendWithStatus('resubscribe'));
    });
    h.last().open();
    expect(statuses).toEqual(['sent']);
    expect(h.last().sent).toEqual(['q1', 'q2', 'resubscribe']);
  });

  it('send() converts as WebSocket does: numbers and null become strings; no argument or a symbol throws and queues nothing', () => {
    const h = setup();
    expect(h.socket.sendWithStatus(12345 as unknown as string)).toBe('queued');
    expect(h.socket.sendWithStatus(null as unknown as string)).toBe('queued');
    expect(h.socket.bufferedAmount).toBe(9);
    const bare = h.socket.send.bind(h.socket) as unknown as () => unknown;
    expect(() => bare()).toThrow(/send\(\) needs a message/);
    expect(() => h.socket.send(Symbol('x') as unknown as string)).toThrow(TypeError);
    expect(h.socket.queuedMessages).toBe(2);
    h.last().open();
    expect(h.last().sent).toEqual(['12345', 'null']);
  });
});

describe('heartbeat (virtual time, application pings)', () => {
  const heartbeat = { interval: 1000, timeout: 500, ping: 'ping', isPong: (d: unknown) => d === 'pong' };

  it('is off by default: no timer while open', () => {
    const h = setup();
    h.last().open();
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('first ping after a random share of the interval, then every interval; pongs are not dispatched', () => {
    const h = setup({ heartbeat, random: () => 0.25 });
    h.last().open();
    h.clock.advanceBy(249);
    expect(h.last().sent).toEqual([]);
    h.clock.advanceBy(1);
    expect(h.last().sent).toEqual(['ping']);
    h.last().receive('pong');
    h.clock.advanceBy(1000);
    expect(h.last().sent).toEqual(['ping', 'ping']);
    expect(h.seen).toEqual(['open rs=1 rc=0']);
  });

  it('a silent connection is closed with 4000 after interval + timeout and reconnected with backoff', () => {
    const h = setup({ heartbeat, connectionTimeout: 500 });
    h.last().fail(); // attempt 1 fails: the next waits 1 s
    h.clock.advanceTo(1000);
    const first = h.last();
    first.open();
    h.clock.advanceBy(1499);
    expect(h.socket.snapshot.state).toBe('READY');
    h.clock.advanceBy(1);
    expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    const error = h.socket.snapshot.lastError;
    expect(isHeartbeatTimeoutError(error)).toBe(true);
    expect((error as Error).message).toMatch(/nothing for 1\.5 s/);
    expect(first.closedWith).toEqual({ code: 4000, reason: 'heartbeat timeout' });
    expect(h.seen.at(-1)).toBe("close 4000 'heartbeat timeout' false rs=0 rc=2");
    // Lost before minUptime: a failed attempt for the backoff, so attempt 3 waits 1.6 s from the loss.
    expect(h.socket.snapshot).toMatchObject({ nextAttemptAt: 4100 });
    h.clock.advanceTo(4099);
    expect(h.fake.sockets).toHaveLength(2);
    h.clock.advanceTo(4100);
    expect(h.fake.sockets).toHaveLength(3);
  });

  it('any inbound message counts as life', () => {
    const h = setup({ heartbeat });
    h.last().open();
    for (let i = 0; i < 10; i += 1) {
      h.clock.advanceBy(1000);
      h.last().receive(`tick ${String(i)}`);
    }
    expect(h.socket.snapshot.state).toBe('READY');
  });

  it('re-checks expiry when the page becomes visible (timers of background tabs are throttled)', () => {
    const clock = createVirtualClock();
    const h = setup({
      heartbeat,
      scheduler: { now: () => clock.now() + skew, schedule: clock.scheduler.schedule.bind(clock.scheduler) },
    });
    h.last().open();
    // The wall clock jumps 2 s while the tab's timers were held back.
    skew = 2000;
    h.environment.setVisibility('visible');
    expect(isHeartbeatTimeoutError(h.socket.snapshot.lastError)).toBe(true);
    skew = 0;
  });
});

describe('heartbeat that cannot misfire (virtual time)', () => {
  const heartbeat = { interval: 1000, timeout: 500, ping: 'ping', isPong: (d: unknown) => d === 'pong' };

  /** A client whose clock can jump without its timers running (a frozen page, a suspended machine). */
  function sleepy(options: ReconnectingWebSocketOptions) {
    const clock = createVirtualClock();
    const jump = { by: 0 };
    const h = setup({
      ...options,
      scheduler: { now: () => clock.now() + jump.by, schedule: clock.scheduler.schedule.bind(clock.scheduler) },
    });
    return { ...h, clock, jump };
  }

  it('refuses a heartbeat without ping on a socket without protocol pings, naming the fix', () => {
    expect(() => setup({ heartbeat: { interval: 3000, timeout: 2000 } })).toThrow(
      /option "heartbeat" needs "ping" here \(this WebSocket has no protocol ping\).*"serverSends: true"/,
    );
  });

  it('refuses ping together with serverSends', () => {
    expect(() => setup({ heartbeat: { ping: 'ping', serverSends: true } })).toThrow(
      /both "ping" and "serverSends: true"/,
    );
  });

  it('serverSends: sends nothing, keeps a connection the server speaks on, closes one it stops speaking on', () => {
    const h = setup({ heartbeat: { interval: 1000, timeout: 500, serverSends: true } });
    h.last().open();
    for (let i = 0; i < 5; i += 1) {
      h.clock.advanceBy(1000);
      h.last().receive(`server ping ${String(i)}`);
    }
    expect(h.last().sent).toEqual([]);
    expect(h.socket.snapshot.state).toBe('READY');
    h.clock.advanceBy(1499);
    expect(h.socket.snapshot.state).toBe('READY');
    h.clock.advanceBy(1);
    expect(isHeartbeatTimeoutError(h.socket.snapshot.lastError)).toBe(true);
  });

  it('after a sleep longer than the timeout it asks before judging: a ping, and the answer keeps the connection', () => {
    const h = sleepy({ heartbeat, random: () => 0.5 });
    h.last().open();
    h.clock.advanceBy(500);
    expect(h.last().sent).toEqual(['ping']);
    h.last().receive('pong');
    h.jump.by = 60_000; // a minute frozen: no timer ran, nothing was read
    h.environment.setVisibility('visible');
    expect(h.socket.snapshot.state).toBe('READY');
    expect(h.last().sent).toEqual(['ping', 'ping']);
    h.clock.advanceBy(200);
    h.last().receive('pong');
    h.clock.advanceBy(1000);
    expect(h.socket.snapshot.state).toBe('READY');
  });

  it("re-checks when a frozen page resumes (the Page Lifecycle API's resume event), asking first", () => {
    const h = sleepy({ heartbeat, random: () => 0.5 });
    h.last().open();
    h.jump.by = 60_000;
    h.environment.document.dispatchEvent(new Event('resume'));
    expect(h.last().sent).toEqual(['ping']);
    expect(h.socket.snapshot.state).toBe('READY');
    h.clock.advanceBy(500);
    expect(isHeartbeatTimeoutError(h.socket.snapshot.lastError)).toBe(true);
  });

  it('after a sleep, no answer within the timeout: closed as dead, the silence counted in full', () => {
    const h = sleepy({ heartbeat, random: () => 0.5 });
    h.last().open();
    h.jump.by = 60_000;
    h.environment.setVisibility('visible');
    h.clock.advanceBy(499);
    expect(h.socket.snapshot.state).toBe('READY');
    h.clock.advanceBy(1);
    const error = h.socket.snapshot.lastError;
    expect(isHeartbeatTimeoutError(error)).toBe(true);
    expect((error as { silence: number }).silence).toBe(60_500);
    expect((error as Error).message).toMatch(/nothing for 1 min /);
  });

  it('a timer that fires late by less than the timeout judges as usual (a busy event loop is not a sleep)', () => {
    const h = sleepy({ heartbeat, random: () => 0.5 });
    h.last().open();
    h.jump.by = 400; // the expiry timer at 1500 runs at 1900
    h.clock.advanceBy(1500);
    expect(isHeartbeatTimeoutError(h.socket.snapshot.lastError)).toBe(true);
  });

  it('serverSends after a sleep: waits interval + timeout from waking for the server to speak', () => {
    const h = sleepy({ heartbeat: { interval: 1000, timeout: 500, serverSends: true } });
    h.last().open();
    h.jump.by = 60_000;
    h.environment.setVisibility('visible');
    h.clock.advanceBy(1499);
    expect(h.socket.snapshot.state).toBe('READY');
    expect(h.last().sent).toEqual([]);
    h.clock.advanceBy(1);
    expect(isHeartbeatTimeoutError(h.socket.snapshot.lastError)).toBe(true);
  });
});

describe('heartbeat on by default where the socket has protocol pings (virtual time)', () => {
  /** A socket with `ws`'s protocol ping: ping() is recorded, pong frames are emitted by the test. */
  class PingSocket extends FakeSocket {
    static readonly made: PingSocket[] = [];
    pings = 0;
    readonly #frames = new Map<string, (() => void)[]>();
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      PingSocket.made.push(this);
    }
    ping(): void {
      this.pings += 1;
    }
    on(event: string, listener: () => void): this {
      this.#frames.set(event, [...(this.#frames.get(event) ?? []), listener]);
      return this;
    }
    removeListener(event: string, listener: () => void): this {
      this.#frames.set(
        event,
        (this.#frames.get(event) ?? []).filter((l) => l !== listener),
      );
      return this;
    }
    pong(): void {
      for (const listener of this.#frames.get('pong') ?? []) listener();
    }
    frameListeners(): number {
      return [...this.#frames.values()].reduce((n, list) => n + list.length, 0);
    }
  }

  function client(options: ReconnectingWebSocketOptions = {}) {
    PingSocket.made.length = 0;
    const clock = createVirtualClock();
    const socket = new ReconnectingWebSocket('ws://example.test/feed', null, {
      WebSocket: PingSocket,
      scheduler: clock.scheduler,
      random: () => 0.5,
      environment: {},
      ...options,
    });
    open.push(socket);
    const last = (): PingSocket => {
      const made = PingSocket.made.at(-1);
      if (made === undefined) throw new Error('no socket yet');
      return made;
    };
    return { clock, socket, last };
  }

  it('pings every 25 s (the first after a random share) and finds a dead connection after 45 s of silence', () => {
    const h = client();
    h.last().open();
    h.clock.advanceBy(12_500);
    expect(h.last().pings).toBe(1);
    h.last().pong();
    h.clock.advanceBy(25_000);
    expect(h.last().pings).toBe(2);
    h.last().pong(); // at 37.5 s
    h.clock.advanceBy(44_999);
    expect(h.socket.snapshot.state).toBe('READY');
    h.clock.advanceBy(1);
    expect(isHeartbeatTimeoutError(h.socket.snapshot.lastError)).toBe(true);
    expect(h.last().closedWith).toEqual({ code: 4000, reason: 'heartbeat timeout' });
    expect(h.last().frameListeners()).toBe(0);
  });

  it('a server that answers pings is never closed, however quiet its messages', () => {
    const h = client();
    h.last().open();
    for (let i = 0; i < 40; i += 1) {
      h.clock.advanceBy(12_500);
      h.last().pong();
    }
    expect(h.socket.snapshot.state).toBe('READY');
  });

  it('heartbeat: false turns it off: no timer while open', () => {
    const h = client({ heartbeat: false });
    h.last().open();
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('close() stops it: no timer and no frame listener left', () => {
    const h = client();
    h.last().open();
    h.socket.close();
    h.last().finish();
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.last().frameListeners()).toBe(0);
  });
});

let skew = 0;

describe('offline while the socket is open (virtual time)', () => {
  const heartbeat = { interval: 1000, timeout: 500, ping: 'ping', isPong: (d: unknown) => d === 'pong' };

  /** A client with its socket open, then the browser offline: READY, paused, the status offline. */
  function offlineWhileOpen(options: ReconnectingWebSocketOptions = {}) {
    const h = setup({ random: () => 0.99, ...options });
    const phases: string[] = [];
    connectionStatus(h.socket.state$, { scheduler: h.clock.scheduler }).subscribe((s) => phases.push(s.phase));
    h.last().open();
    h.environment.goOffline();
    return { ...h, phases };
  }

  it('shows offline at once and holds what is sent: queued, not handed to a socket that may be dead', () => {
    const h = offlineWhileOpen();
    expect(h.socket.snapshot).toMatchObject({ state: 'READY', paused: true });
    expect(h.phases).toEqual(['connecting', 'connected', 'offline']);
    expect(h.socket.sendWithStatus('a')).toBe('queued');
    expect(h.socket.send('b')).toBe(false);
    expect(h.last().sent).toEqual([]);
    expect(h.seen).toEqual(['open rs=1 rc=0']); // no close, no error: the socket is still open
  });

  it('online again without a heartbeat: the socket is replaced at once, and what was held goes out on the new one, in order', () => {
    const h = offlineWhileOpen();
    h.socket.send('a');
    h.socket.send('b');
    const old = h.last();
    h.environment.goOnline();
    expect(old.closedWith).toEqual({ code: 1000, reason: 'network changed' });
    expect(h.fake.sockets).toHaveLength(2);
    h.last().open();
    expect(h.last().sent).toEqual(['a', 'b']);
    expect(old.sent).toEqual([]);
    expect(h.phases.at(-1)).toBe('connected');
    expect(h.socket.sendWithStatus('c')).toBe('sent');
  });

  it('online again with a heartbeat: a ping verifies the same socket; on the answer what was held goes out on it, in order', () => {
    const h = offlineWhileOpen({ heartbeat });
    h.socket.send('a');
    h.socket.send('b');
    h.environment.goOnline();
    expect(h.last().sent).toEqual(['ping']);
    expect(h.socket.snapshot).toMatchObject({ state: 'READY', paused: true }); // held until the answer
    expect(h.socket.sendWithStatus('c')).toBe('queued');
    h.clock.advanceBy(100);
    h.last().receive('pong');
    expect(h.last().sent).toEqual(['ping', 'a', 'b', 'c']);
    expect(h.fake.sockets).toHaveLength(1);
    expect(h.phases.at(-1)).toBe('connected');
    expect(h.socket.sendWithStatus('d')).toBe('sent');
  });

  it('online again with a heartbeat and no answer within the timeout: closed as dead and replaced at once', () => {
    const h = offlineWhileOpen({ heartbeat });
    h.socket.send('a');
    h.environment.goOnline();
    const old = h.last();
    h.clock.advanceBy(499);
    expect(h.fake.sockets).toHaveLength(1);
    h.clock.advanceBy(1);
    expect(old.closedWith).toEqual({ code: 4000, reason: 'heartbeat timeout' });
    old.finish();
    expect(h.fake.sockets).toHaveLength(2); // resumed at once: the page is online
    h.last().open();
    expect(h.last().sent).toEqual(['a']);
    expect(old.sent).toEqual(['ping']);
  });

  it('offline again before the answer: the answer does not release what is held', () => {
    const h = offlineWhileOpen({ heartbeat });
    h.socket.send('a');
    h.environment.goOnline();
    h.environment.goOffline();
    h.last().receive('pong');
    expect(h.socket.snapshot).toMatchObject({ state: 'READY', paused: true });
    expect(h.last().sent).toEqual(['ping']);
  });
});

describe('the flush event: a queued message went out (virtual time)', () => {
  it('fires once per queued message when it is handed to the socket, in order; a message sent at once gets none', () => {
    const h = setup();
    const flushed: unknown[] = [];
    h.socket.onflush = (e) => flushed.push(['on', e.data]);
    h.socket.addEventListener('flush', (e) => flushed.push(['listener', e.data]));
    expect(h.socket.sendWithStatus('a')).toBe('queued');
    expect(h.socket.sendWithStatus('b')).toBe('queued');
    expect(flushed).toEqual([]);
    h.last().open();
    expect(flushed).toEqual([
      ['on', 'a'],
      ['listener', 'a'],
      ['on', 'b'],
      ['listener', 'b'],
    ]);
    expect(h.socket.sendWithStatus('c')).toBe('sent');
    expect(flushed).toHaveLength(4);
  });

  it('a send from a flush listener goes after the rest of the queue', () => {
    const h = setup();
    h.socket.addEventListener('flush', (e) => {
      if (e.data === 'a') h.socket.send('from listener');
    });
    h.socket.send('a');
    h.socket.send('b');
    h.last().open();
    expect(h.last().sent).toEqual(['a', 'b', 'from listener']);
  });

  it('held while offline on an open socket, flushed on the answer to the verifying ping', () => {
    const h = setup({
      heartbeat: { interval: 1000, timeout: 500, ping: 'ping', isPong: (d: unknown) => d === 'pong' },
    });
    const flushed: unknown[] = [];
    h.socket.addEventListener('flush', (e) => flushed.push(e.data));
    h.last().open();
    h.environment.goOffline();
    h.socket.send('a');
    h.environment.goOnline();
    expect(flushed).toEqual([]);
    h.last().receive('pong');
    expect(flushed).toEqual(['a']);
  });
});
