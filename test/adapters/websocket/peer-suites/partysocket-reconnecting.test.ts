/**
 * partysocket 1.3's own suite for its ReconnectingWebSocket (partysocket/ws), src/tests/reconnecting.test.ts,
 * re-expressed on the harness: each test runs against partysocket 1.3 and against redialer. Their
 * `ws` server on a fixed port is a server of the test's own on an ephemeral port; their unroutable
 * addresses (ws://255.255.255.255, ws://foo) are a refused port on 127.0.0.1. The clients take the
 * runtime's WebSocket from the global, as in their tests (which pass no `WebSocket` option).
 */
import { expect, vi } from 'vitest';
import { startBlackHole } from '../../../support/websocket/ws-server.js';
import { type KnownDifference, type PeerTestContext, peerSuite } from './peer-suite.js';
import {
  type AnyEvent,
  type Client,
  againstRefusedUrl,
  againstServer,
  asFunction,
  bothPeers,
  clients,
  listen,
  pinMathRandom,
  recordingWebSocket,
  settle,
  sleep,
  spyOnConsole,
  useGlobalWebSocket,
} from './peer-support.js';

const known: Record<string, KnownDifference> = {
  'getters when not ready': {
    fails: 'redialer',
    reason:
      "url is the URL at once: the first socket is made in the constructor, partysocket's a tick later (nothing else differs)",
  },
  'debug on': {
    fails: 'redialer',
    reason:
      "debug logs redialer's transitions ('redialer/websocket IDLE -> CONNECTING (connect): …'), not partysocket's steps ('RWS>', 'connect', 0)",
  },
  'shouldReconnectOnClose preserves default reconnect behavior when omitted': {
    fails: 'redialer',
    reason:
      'a 1008 close (policy violation) stops it: 1008, 4401, 4403 are permanent by default; permanentCloseCodes: [] reconnects',
  },
  'reconnection delay grow factor': {
    fails: 'redialer',
    reason:
      'waits are jittered ±20 % (e.g. [50, 96, 191, 381, 477, 477]) so that clients spread; reconnectionDelayJitter: 0 gives [50, 100, 200, 400, 500, 500]',
  },
};

/** Milliseconds a measured wait may exceed the planned one on a busy machine; it is never shorter. */
const LATE = 50;
const EARLY = 3;

/** The three protocol tests: a client made with `args` after the URL opens with the URL and `protocol`. */
async function opensWithProtocol(
  context: PeerTestContext,
  args: readonly [unknown, Record<string, unknown>?],
  protocol: string,
): Promise<void> {
  const { make, s } = await againstServer(context);
  await settle(5000, (done, _fail, guard) => {
    const ws = make(s.url, ...args);
    listen(ws, 'open', guard, () => {
      expect(ws.url).toBe(s.url);
      expect(ws.protocol).toBe(protocol);
      ws.close();
    });
    ws.addEventListener('close', () => {
      done();
    });
  });
}

/** Whether a client made of `args` is refused: its constructor throws, or it has an error event within 200 ms. */
async function refuses(make: ReturnType<typeof clients>['make'], ...args: Parameters<typeof make>): Promise<boolean> {
  let refused = false;
  try {
    const ws = make(...args);
    ws.onerror = () => {
      refused = true;
    };
    await sleep(200);
  } catch {
    refused = true;
  }
  return refused;
}

/** What the echo tests send, and the protocol they ask for. */
const anyMessageText = 'hello';
const anyProtocol = 'foobar';

/** Their echo server: the first message goes back, as binary. */
const echoOnce: Parameters<PeerTestContext['server']>[0] = (client) => {
  client.once('message', (msg) => {
    client.send(msg as Buffer);
  });
};

/**
 * The round trip that 'start closed' and 'connect, send, receive, close' share (8 assertions): on
 * open, send `text`; on its echo, close(1000, 'some reason'), which is permanent and dispatches its
 * close event at once; then the close event.
 */
function echoThenClose(
  ws: Client,
  expected: { readonly url: string; readonly protocol: string; readonly text: string },
  guard: <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void,
  done: () => void,
): void {
  listen(ws, 'open', guard, () => {
    expect(ws.protocol).toBe(expected.protocol);
    expect(ws.readyState).toBe(ws.OPEN);
    ws.send(expected.text);
  });
  listen(ws, 'message', guard, (msg: AnyEvent) => {
    expect(msg.data).toEqual(new Blob([expected.text]));
    ws.close(1000, 'some reason');
    expect(ws.readyState).toBe(ws.CLOSED);
  });
  listen(ws, 'close', guard, (event: AnyEvent) => {
    expect(ws.readyState).toBe(ws.CLOSED);
    expect(ws.url).toBe(expected.url);
    expect(event.reason).toBe('some reason');
    expect(event.code).toBe(1000);
    done();
  });
}

peerSuite('partysocket reconnecting.test.ts', 'partysocket', known, (test) => {
  test('throws if not created with `new`', (context) => {
    useGlobalWebSocket(context);
    expect(() => asFunction(context.RWS)('ws://127.0.0.1:1/', undefined)).toThrow(TypeError);
  });

  test('global WebSocket is used if available', async (context) => {
    // rewritten: they read the private socket (`_ws instanceof WebSocket`); here the global is a
    // subclass that records what it constructs.
    const recording = recordingWebSocket(context.WebSocket);
    const { make, url } = await againstRefusedUrl(context, recording.Class);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(url, undefined, { maxRetries: 0 });
      ws.onerror = guard(() => {
        expect(recording.made.length).toBeGreaterThan(0);
        expect(recording.made[0]).toBeInstanceOf(recording.Class as new () => object);
        done();
      });
    });
  });

  test('getters when not ready', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    await settle(5000, (done) => {
      const ws = make(url, undefined, { maxRetries: 0 });
      expect(ws.bufferedAmount).toBe(0);
      expect(ws.protocol).toBe('');
      expect(ws.url).toBe('');
      expect(ws.extensions).toBe('');
      expect(ws.binaryType).toBe('blob');
      ws.onerror = () => {
        done();
      };
    });
  });

  test('debug on', async (context) => {
    const logSpy = spyOnConsole(context, 'log');
    const { make, url } = await againstRefusedUrl(context);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(url, undefined, { maxRetries: 0, debug: true });
      ws.onerror = guard(() => {
        expect(logSpy).toHaveBeenCalledWith('RWS>', 'connect', 0);
        done();
      });
    });
  });

  test('debug off', async (context) => {
    const logSpy = spyOnConsole(context, 'log');
    const { make, url } = await againstRefusedUrl(context);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(url, undefined, { maxRetries: 0 });
      ws.onerror = guard(() => {
        expect(logSpy).not.toHaveBeenCalled();
        done();
      });
    });
  });

  test('URL provider', async (context) => {
    // rewritten: they call the private `_getNextUrl` with each kind of provider; here each is given
    // to a client: a string, a function and an async function connect to the server, and the two
    // invalid ones (123, a function returning 123) are refused (the constructor throws or an error
    // event comes) without a connection.
    const { make, s } = await againstServer(context);
    const providers: unknown[] = [s.url, () => s.url, () => Promise.resolve(s.url)];
    for (const [i, provider] of providers.entries()) {
      await settle(5000, (done) => {
        const ws = make(provider, undefined, { maxRetries: 0 });
        ws.onopen = () => {
          ws.close();
          done();
        };
      });
      expect(s.connections).toBe(i + 1);
    }
    for (const provider of [123, () => 123] as unknown[]) {
      expect(await refuses(make, provider, undefined, { maxRetries: 0 })).toBe(true);
    }
    expect(s.connections).toBe(providers.length);
  });

  test('websocket protocol', (context) => opensWithProtocol(context, ['foobar'], 'foobar'));

  test('undefined websocket protocol', (context) => opensWithProtocol(context, [undefined, {}], ''));

  test('null websocket protocol', (context) => opensWithProtocol(context, [null, {}], ''));

  test('websocket invalid protocolsProvider', async (context) => {
    // rewritten: they call the private `_getNextProtocols(() => /Hahaha/)` and expect a throw; here
    // that provider is given to a client, which must refuse it (the constructor throws or an error
    // event comes) and never connect.
    const { make, s } = await againstServer(context);
    expect(await refuses(make, s.url, () => /Hahaha/, {})).toBe(true);
    expect(s.connections).toBe(0);
  });

  test('websocket sync protocolsProvider', (context) => opensWithProtocol(context, [() => 'bar', {}], 'bar'));

  test('websocket async protocolsProvider', (context) =>
    opensWithProtocol(context, [() => Promise.resolve('foo'), {}], 'foo'));

  test('connection status constants', async (context) => {
    const { make, statics, s } = await againstServer(context);
    const ws = make(s.url, undefined, { maxRetries: 0 });
    bothPeers.expectStatusConstants(statics, ws);
    ws.close();
  });

  for (const count of [0, 1, 5]) {
    test(`max retries: ${String(count)}`, async (context) => {
      const { make, url } = await againstRefusedUrl(context);
      const seen: number[] = [];
      await settle(6000, (done) => {
        const ws = make(url, undefined, { maxRetries: count, maxReconnectionDelay: 200 });
        ws.addEventListener('error', () => {
          seen.push(ws.retryCount);
          // They wait 100 ms; here longer than one wait (200 ms), so that a retry too many is seen.
          if (ws.retryCount === count) setTimeout(done, 400);
        });
      });
      expect(Math.max(...seen)).toBe(count);
    });
  }

  test('level0 event listeners are kept after reconnect', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    await settle(5000, (done, _fail, guard) => {
      bothPeers.keepsLevel0Handlers(make, url, guard, done);
    });
  });

  // The two level2 tests: the same listeners, given as functions and as objects with handleEvent.
  const level2: { name: string; listener: (fn: () => void) => Parameters<Client['addEventListener']>[1] }[] = [
    { name: 'level2 event listeners', listener: (fn) => fn },
    { name: 'level2 event listeners using object with handleEvent', listener: (fn) => ({ handleEvent: fn }) },
  ];
  for (const { name, listener } of level2) {
    test(name, async (context) => {
      const { make, s } = await againstServer(context);
      let failCalled = false;
      await settle(5000, (done, _fail, guard) => {
        const anyProtocol = 'foobar';
        const ws = make(s.url, anyProtocol, {});
        ws.addEventListener(
          'open',
          listener(
            guard(() => {
              expect(ws.protocol).toBe(anyProtocol);
              expect(ws.extensions).toBe('');
              expect(ws.bufferedAmount).toBe(0);
              ws.close();
              done();
            }),
          ),
        );
        // They throw from it; here it records, so that a call fails the test rather than the dispatch.
        const fail = listener(() => {
          failCalled = true;
        });
        bothPeers.addThenRemove(ws, fail);
      });
      expect(failCalled).toBe(false);
    });
  }

  test('getters', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done, _fail, guard) => {
      const anyProtocol = 'foobar';
      const ws = make(s.url, anyProtocol, { maxReconnectionDelay: 100 });
      listen(ws, 'open', guard, () => {
        expect(ws.protocol).toBe(anyProtocol);
        expect(ws.extensions).toBe('');
        expect(ws.bufferedAmount).toBe(0);
        expect(ws.binaryType).toBe('blob');
        ws.close();
        done();
      });
    });
  });

  test('binaryType', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 0 });
      expect(ws.binaryType).toBe('blob');
      ws.binaryType = 'arraybuffer';
      listen(ws, 'open', guard, () => {
        expect(ws.binaryType).toBe('arraybuffer');
        ws.binaryType = 'blob';
        expect(ws.binaryType).toBe('blob');
        ws.close();
        done();
      });
    });
  });

  test('calling to close multiple times', async (context) => {
    const { make, s } = await againstServer(context);
    const ws = make(s.url, undefined, {});
    ws.addEventListener('open', () => {
      ws.close();
      ws.close();
      ws.close();
    });
    let calls = 0;
    ws.addEventListener('close', () => {
      calls++;
    });
    await sleep(100);
    expect(calls).toBe(1);
  });

  test('calling to reconnect when not ready', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done) => {
      const ws = make(s.url, undefined, {});
      ws.reconnect();
      ws.reconnect();
      ws.addEventListener('open', () => {
        ws.close();
      });
      ws.addEventListener('close', () => {
        done();
      });
    });
  });

  test('start closed', async (context) => {
    const { make, s } = await againstServer(context, echoOnce);
    expect.assertions(10);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, anyProtocol, {
        minReconnectionDelay: 100,
        maxReconnectionDelay: 200,
        startClosed: true,
      });
      expect(ws.readyState).toBe(ws.CLOSED);
      setTimeout(
        guard(() => {
          expect(ws.readyState).toBe(ws.CLOSED);
          ws.reconnect();
          echoThenClose(ws, { url: s.url, protocol: anyProtocol, text: anyMessageText }, guard, done);
        }),
        100,
      );
    });
  });

  test('connect, send, receive, close', async (context) => {
    const { make, s } = await againstServer(context, echoOnce);
    expect.assertions(9);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, anyProtocol, { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
      expect(ws.readyState).toBe(ws.CONNECTING);
      echoThenClose(ws, { url: s.url, protocol: anyProtocol, text: anyMessageText }, guard, done);
    });
  });

  test('connect, send, receive, reconnect', async (context) => {
    const { make, s } = await againstServer(context, echoOnce);
    const totalRounds = 3;
    let currentRound = 0;
    // 6 = 3 * 2 open; 8 = 2 * 3 message + 2 reconnect; 7 = 2 * 3 close + 1 closed
    expect.assertions(21);
    await settle(8000, (done, _fail, guard) => {
      const ws = make(s.url, anyProtocol, { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
      ws.onopen = guard(() => {
        currentRound++;
        expect(ws.protocol).toBe(anyProtocol);
        expect(ws.readyState).toBe(ws.OPEN);
        ws.send(anyMessageText);
      });
      ws.onmessage = guard((msg: AnyEvent) => {
        expect(msg.data).toEqual(new Blob([anyMessageText]));
        if (currentRound < totalRounds) {
          ws.reconnect(1000, 'reconnect');
          expect(ws.retryCount).toBe(0);
          expect(ws.readyState).toBe(ws.CLOSING);
        } else {
          ws.close(1000, 'close');
          expect(ws.readyState).toBe(ws.CLOSED);
        }
      });
      listen(ws, 'close', guard, (event: AnyEvent) => {
        expect(ws.url).toBe(s.url);
        if (currentRound >= totalRounds) {
          expect(ws.readyState).toBe(ws.CLOSED);
          expect(event.reason).toBe('close');
          done();
        } else {
          expect(event.reason).toBe('reconnect');
        }
      });
    });
  });

  test('immediately-failed connection should not timeout', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    await settle(5000, (done, fail) => {
      const ws = make(url, undefined, { maxRetries: 2, connectionTimeout: 500, maxReconnectionDelay: 600 });
      ws.addEventListener('error', (err: AnyEvent) => {
        if (err.message === 'TIMEOUT') fail(new Error('timeout should not be called'));
        if (ws.retryCount === 2) done();
        if (ws.retryCount > 2) fail(new Error('too many retries'));
      });
    });
  });

  test('immediately-failed connection with 0 maxRetries must not retry', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    await settle(5000, (done, fail) => {
      const ws = make(url, [], {
        maxRetries: 0,
        connectionTimeout: 1000,
        minReconnectionDelay: 100,
        maxReconnectionDelay: 200,
      });
      let i = 0;
      ws.addEventListener('error', (err: AnyEvent) => {
        i++;
        if (err.message === 'TIMEOUT') fail(new Error('timeout should not be called'));
        if (i > 1) fail(new Error('too many retries'));
        setTimeout(done, 1100);
      });
    });
  });

  test('connect and close before establishing connection', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done, fail) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
      ws.close(); // closing before establishing connection
      ws.addEventListener('open', () => {
        fail(new Error('open should not be called'));
      });
      let closeCount = 0;
      ws.addEventListener('close', () => {
        closeCount++;
        if (closeCount > 1) fail(new Error('close should be called once'));
      });
      // wait a little to be sure no unexpected open or close events happen
      setTimeout(done, 100);
    });
  });

  for (const { name, maxEnqueuedMessages } of bothPeers.QUEUE_TESTS) {
    test(name, async (context) => {
      const { make, url } = await againstRefusedUrl(context);
      await settle(5000, (done, _fail, guard) => {
        bothPeers.holdsMessagesWhileFailing(make, url, maxEnqueuedMessages, guard, done);
      });
    });
  }

  test('enqueue messages before websocket initialization with expected order', async (context) => {
    // rewritten: they also read the private queue's length (3); that the server receives exactly
    // the three messages, in order, before 'ok' says the same.
    const messages = ['message1', 'message2', 'message3'];
    let onServerMessage: (text: string) => void = () => undefined;
    const { make, s } = await againstServer(context, (client) => {
      client.on('message', (data) => {
        onServerMessage((data as Buffer).toString());
      });
    });
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url);
      for (const m of messages) ws.send(m);
      expect(ws.bufferedAmount).toBe(messages.reduce((a, m) => a + m.length, 0));
      let i = 0;
      onServerMessage = guard((text: string) => {
        if (text === 'ok') {
          expect(i).toBe(messages.length);
          ws.close();
        } else {
          expect(text).toBe(messages[i]);
          i++;
        }
      });
      ws.addEventListener('open', () => {
        ws.send('ok');
      });
      ws.addEventListener('close', () => {
        done();
      });
    });
  });

  test('closing from the other side should reconnect', async (context) => {
    const max = 3;
    let i = 0;
    let unexpected: string | undefined;
    const { make, s } = await againstServer(context, (client) => {
      i++;
      // closing client from server side should trigger a reconnection
      if (i < max)
        setTimeout(() => {
          client.close();
        }, 100);
      if (i > max) unexpected = 'unexpected connection';
    });
    await settle(8000, (done, fail) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
      let j = 0;
      ws.addEventListener('open', () => {
        j++;
        if (j === max) {
          ws.close();
          // wait a little to ensure no new connections are opened
          setTimeout(() => {
            if (unexpected === undefined) done();
            else fail(new Error(unexpected));
          }, 100);
        }
        if (j > max) fail(new Error('unexpected open'));
      });
    });
    expect(s.connections).toBe(max);
  });

  test('closing from the other side should allow to keep closed', async (context) => {
    const codes = [4000, 4001];
    let i = 0;
    let unexpected = false;
    const { make, s } = await againstServer(context, (client) => {
      if (i > codes.length) unexpected = true;
      const code = codes[i];
      client.close(code, String(code));
      i++;
    });
    await settle(5000, (done, fail) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
      ws.addEventListener('close', (e: AnyEvent) => {
        // 4000: do nothing, will reconnect
        if (e.code === codes[1] && e.reason === String(codes[1])) {
          // close connection (and keep closed)
          ws.close();
          setTimeout(() => {
            if (unexpected) fail(new Error('unexpected connection'));
            else done();
          }, 200);
        }
      });
    });
    expect(s.connections).toBe(2);
  });

  test('shouldReconnectOnClose=false stops reconnecting before close listeners run', async (context) => {
    const { make, s } = await againstServer(context, (client, n) => {
      if (n === 1) client.close(1008, 'policy');
    });
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, undefined, {
        minReconnectionDelay: 50,
        maxReconnectionDelay: 100,
        shouldReconnectOnClose: (event: AnyEvent) => event.code !== 1008,
      });
      listen(ws, 'close', guard, (event: AnyEvent) => {
        expect(event.code).toBe(1008);
        expect(event.reason).toBe('policy');
        expect(ws.shouldReconnect).toBe(false);
        setTimeout(
          guard(() => {
            expect(s.connections).toBe(1);
            done();
          }),
          200,
        );
      });
    });
  });

  test('shouldReconnectOnClose preserves default reconnect behavior when omitted', async (context) => {
    let onSecond: () => void = () => undefined;
    const { make, s } = await againstServer(context, (client, n) => {
      if (n === 1) client.close(1008, 'policy');
      if (n === 2) onSecond();
    });
    await settle(3000, (done) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 50, maxReconnectionDelay: 100 });
      onSecond = () => {
        ws.close();
        done();
      };
    });
    expect(s.connections).toBe(2);
  });

  test('reconnect() re-enables a socket stopped by shouldReconnectOnClose', async (context) => {
    let onSecond: () => void = () => undefined;
    const { make, s } = await againstServer(context, (client, n) => {
      if (n === 1) client.close(1008, 'policy');
      if (n === 2) onSecond();
    });
    await settle(3000, (done, _fail, guard) => {
      const ws = make(s.url, undefined, {
        minReconnectionDelay: 50,
        maxReconnectionDelay: 100,
        shouldReconnectOnClose: (event: AnyEvent) => event.code !== 1008,
      });
      onSecond = () => {
        ws.close();
        done();
      };
      listen(ws, 'close', guard, (event: AnyEvent) => {
        if (event.code === 1008) {
          expect(ws.shouldReconnect).toBe(false);
          ws.reconnect();
        }
      });
    });
    expect(s.connections).toBe(2);
  });

  test('reconnection delay grow factor', async (context) => {
    // rewritten: they read the private `_getNextDelay()` (0 before the first attempt, then 50, 100,
    // 200, 400, 500, 500 after each failure). Here the waits are measured on a fake clock (timers
    // and Date; the sockets' I/O stays real, both subjects run under it with no option added): the
    // global WebSocket records each attempt, and after each failure at a refused port the clock is
    // stepped 1 ms at a time until the next attempt starts. The waits are then exact.
    const recording = recordingWebSocket(context.WebSocket);
    const { make, url } = await againstRefusedUrl(context, recording.Class);
    const realSetTimeout = globalThis.setTimeout;
    const realSleep = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        realSetTimeout(resolve, ms);
      });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const errorsAt: number[] = [];
    const ws = make(url, [], {
      minReconnectionDelay: 50,
      maxReconnectionDelay: 500,
      reconnectionDelayGrowFactor: 2,
    });
    context.defer(() => {
      vi.useRealTimers();
    });
    const constructedAt = Date.now();
    ws.addEventListener('error', () => {
      errorsAt.push(Date.now());
    });
    /** Steps the fake clock until attempt `n` has started (at most 2 s of it). */
    const stepUntilAttempt = async (n: number): Promise<void> => {
      const from = Date.now();
      while (recording.made.length < n && Date.now() - from < 2000) await vi.advanceTimersByTimeAsync(1);
    };
    const expected = [50, 100, 200, 400, 500, 500];
    await stepUntilAttempt(1);
    for (let k = 0; k < expected.length; k++) {
      const deadline = performance.now() + 3000;
      while (errorsAt.length < k + 1 && performance.now() < deadline) await realSleep(2);
      expect(errorsAt.length, `the failure of attempt ${String(k + 1)}`).toBe(k + 1);
      await stepUntilAttempt(k + 2);
    }
    ws.close();
    vi.useRealTimers();
    // The first attempt waits nothing; each later one starts its wait after the failure before it.
    expect(recording.at[0]! - constructedAt).toBe(0);
    expect(recording.at.slice(1).map((t, k) => t - errorsAt[k]!)).toEqual(expected);
  }, 10_000);

  test('minUptime', async (context) => {
    // rewritten: they read the private `_getNextDelay()` in each close event; here the wait is
    // timed from each close to the next open (never shorter, at most LATE ms longer). retryCount
    // is public and read as they read `_retryCount` (the values are >= 1, where the two agree).
    // Math.random is pinned at 0.5: redialer's jitter is then at its midpoint (a factor of 1), since
    // the jitter is 'reconnection delay grow factor''s difference and this test is about minUptime.
    pinMathRandom(context, 0.5);
    // Connections 1-3 last 20/40/60 ms (< 75 ms minUptime): the waits grow. Connections 4-6 last
    // 80/100/120 ms (> 75 ms): the retry count resets.
    const expectedDelays = [50, 100, 200, 50, 50, 50];
    const expectedRetryCount = [1, 2, 3, 1, 1, 1];
    const { make, s } = await againstServer(context, (client, n) => {
      if (n <= expectedDelays.length)
        setTimeout(() => {
          client.close();
        }, n * 20);
    });
    const closes: number[] = [];
    const opens: number[] = [];
    const retryCounts: number[] = [];
    await settle(8000, (done) => {
      const ws = make(s.url, [], {
        minReconnectionDelay: 50,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 2,
        minUptime: 75,
      });
      ws.addEventListener('open', () => {
        opens.push(performance.now());
        if (opens.length > expectedDelays.length) {
          ws.close();
          done();
        }
      });
      ws.addEventListener('close', () => {
        if (closes.length < expectedDelays.length) {
          closes.push(performance.now());
          retryCounts.push(ws.retryCount);
        }
      });
    });
    const delays = closes.map((t, i) => Math.round(opens[i + 1]! - t));
    const within = delays.map((d, i) => d >= expectedDelays[i]! - EARLY && d <= expectedDelays[i]! + LATE);
    const seen = `waits ${JSON.stringify(delays)}, retryCount ${JSON.stringify(retryCounts)}`;
    expect({ within, retryCounts }, seen).toEqual({
      within: expectedDelays.map(() => true),
      retryCounts: expectedRetryCount,
    });
  }, 10_000);

  test('reconnect after closing', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done, fail) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 100, maxReconnectionDelay: 200 });
      let i = 0;
      ws.addEventListener('open', () => {
        i++;
        if (i === 1) ws.close();
        if (i === 2) ws.close();
        if (i > 2) fail(new Error('no more expected reconnections'));
      });
      ws.addEventListener('close', () => {
        if (i === 1)
          setTimeout(() => {
            ws.reconnect();
          }, 200);
        if (i === 2) done();
        if (i > 2) fail(new Error('no more expected reconnections'));
      });
    });
  });

  test('send() returns true when transmitted and false when buffered', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url);
      // not yet open: buffered
      expect(ws.send('queued')).toBe(false);
      listen(ws, 'open', guard, () => {
        expect(ws.send('immediate')).toBe(true);
        ws.close();
        done();
      });
    });
  });

  test('drainQueuedMessages() removes and returns buffered messages', async (context) => {
    const { make, s } = await againstServer(context);
    const ws = make(s.url, undefined, { startClosed: true });
    ws.send('one');
    ws.send('two');
    expect(ws.bufferedAmount).toBe('one'.length + 'two'.length);
    expect(ws.drainQueuedMessages?.()).toEqual(['one', 'two']);
    expect(ws.bufferedAmount).toBe(0);
    expect(ws.drainQueuedMessages?.()).toEqual([]);
    ws.close();
  });

  test('close() dispatches its close event synchronously, exactly once', async (context) => {
    const { make, s } = await againstServer(context);
    let closeEvents = 0;
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url);
      ws.addEventListener('close', () => {
        closeEvents++;
      });
      listen(ws, 'open', guard, () => {
        ws.close(1000, 'sync close');
        // the close event must have fired during close() itself
        expect(closeEvents).toBe(1);
        expect(ws.readyState).toBe(ws.CLOSED);
        done();
      });
    });
    // give the real (inner) close handshake time to finish: it must not produce a second close event
    await sleep(300);
    expect(closeEvents).toBe(1);
  });

  test('close() while still CONNECTING dispatches its close event synchronously', async (context) => {
    useGlobalWebSocket(context);
    const { make } = clients(context);
    // a raw TCP server that accepts connections but never answers the WebSocket upgrade
    const hole = await startBlackHole();
    context.defer(() => hole.stop());
    const ws = make(`ws://127.0.0.1:${String(hole.port)}/`, undefined, { maxRetries: 0, connectionTimeout: 10000 });
    let closeEvents = 0;
    ws.addEventListener('close', () => {
      closeEvents++;
    });
    // wait for the inner socket to be created (connection attempt started)
    await sleep(100);
    expect(ws.readyState).toBe(ws.CONNECTING);
    ws.close();
    expect(closeEvents).toBe(1);
    expect(ws.readyState).toBe(ws.CLOSED);
    // the aborted handshake must not produce a second close (or an unhandled error)
    await sleep(200);
    expect(closeEvents).toBe(1);
  });

  test('close() inside a close listener does not dispatch a duplicate close event', async (context) => {
    const { make, s } = await againstServer(context);
    let closeEvents = 0;
    await settle(5000, (done) => {
      const ws = make(s.url);
      ws.addEventListener('close', () => {
        closeEvents++;
        // re-entrant close: must be a no-op, not recurse
        ws.close();
      });
      ws.addEventListener('open', () => {
        ws.close();
        setTimeout(done, 300);
      });
    });
    expect(closeEvents).toBe(1);
  });

  test('reconnect() immediately after close() does not dispatch a duplicate close event', async (context) => {
    const { make, s } = await againstServer(context);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 10, maxReconnectionDelay: 50 });
      let closeEvents = 0;
      let opens = 0;
      ws.addEventListener('close', () => {
        closeEvents++;
      });
      listen(ws, 'open', guard, () => {
        opens++;
        if (opens === 1) {
          ws.close();
          // reconnect before the inner closing handshake completes
          ws.reconnect();
        } else {
          // exactly one close event (from close())
          expect(closeEvents).toBe(1);
          ws.close();
          done();
        }
      });
    });
  });

  test('warns when send() is called after close()', async (context) => {
    const warnSpy = spyOnConsole(context, 'warn');
    const { make, s } = await againstServer(context);
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url);
      ws.addEventListener('open', () => {
        ws.close();
      });
      listen(ws, 'close', guard, () => {
        expect(warnSpy).not.toHaveBeenCalled();
        // The socket is permanently closed: sending now buffers into a queue nothing will flush.
        ws.send('late message');
        expect(warnSpy).toHaveBeenCalledTimes(1);
        expect(String(warnSpy.mock.calls[0]?.[0])).toMatch(/send\(\) was called after close\(\)/);
        // Still buffered (reconnect() can flush it), and the warning is given once per close cycle.
        ws.send('another late message');
        expect(warnSpy).toHaveBeenCalledTimes(1);
        expect(ws.bufferedAmount).toBe('late message'.length + 'another late message'.length);
        done();
      });
    });
  });

  test('messages sent after close() are delivered after reconnect(), and the warning resets', async (context) => {
    // rewritten: they read the private `_didWarnAboutClosedSend` (false after reconnect()); here the
    // reset is seen publicly: after the delivery, a close() and a send() warn a second time.
    const warnSpy = spyOnConsole(context, 'warn');
    let onServerMessage: (text: string) => void = () => undefined;
    const { make, s } = await againstServer(context, (client) => {
      client.on('message', (data) => {
        onServerMessage((data as Buffer).toString());
      });
    });
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, undefined, { minReconnectionDelay: 10, maxReconnectionDelay: 50 });
      let opens = 0;
      ws.addEventListener('open', () => {
        opens++;
        if (opens === 1) ws.close();
      });
      onServerMessage = guard((text: string) => {
        if (text === 'buffered while closed') {
          ws.close();
          ws.send('after the second close');
          expect(warnSpy).toHaveBeenCalledTimes(2);
          done();
        }
      });
      let closes = 0;
      listen(ws, 'close', guard, () => {
        closes++;
        if (closes === 1) {
          ws.send('buffered while closed');
          expect(warnSpy).toHaveBeenCalledTimes(1);
          ws.reconnect();
        }
      });
    });
  });

  test('reconnect() works after maxRetries has been exhausted', async (context) => {
    // rewritten: they point the private `_url` at the working server before reconnect(); here the
    // client has a URL provider that answers the refused URL first and the server's afterwards.
    const { make, url: refused } = await againstRefusedUrl(context);
    const s = await context.server();
    let asked = 0;
    const provider = (): string => (asked++ === 0 ? refused : s.url);
    await settle(8000, (done) => {
      const ws = make(provider, undefined, {
        maxRetries: 0,
        connectionTimeout: 500,
        minReconnectionDelay: 10,
        maxReconnectionDelay: 50,
      });
      let reconnected = false;
      ws.addEventListener('error', () => {
        if (reconnected) return;
        reconnected = true;
        // maxRetries is now exhausted: reconnect (the provider now answers the working server)
        ws.reconnect();
      });
      ws.addEventListener('open', () => {
        ws.close();
        done();
      });
    });
  }, 10_000);
});
