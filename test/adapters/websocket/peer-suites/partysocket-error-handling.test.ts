/**
 * partysocket 1.3's src/tests/error-handling.test.ts, the tests of its ReconnectingWebSocket,
 * re-expressed on the harness. Their unroutable and public addresses (ws://255.255.255.255,
 * ws://example.com) are a refused port on 127.0.0.1. Their tests of the PartySocket class (its
 * path/host/room validation, PartySocket.fetch) are out of scope and not here.
 */
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { expect, vi } from 'vitest';
import { startBlackHole } from '../../../support/websocket/ws-server.js';
import { type KnownDifference, type PeerTestContext, peerSuite } from './peer-suite.js';
import {
  type AnyEvent,
  againstRefusedUrl,
  againstServer,
  clients,
  reconnectUntilOpen,
  refusedUrl,
  settle,
  sleep,
  useGlobalWebSocket,
} from './peer-support.js';

const known: Record<string, KnownDifference> = {
  'handles missing WebSocket constructor gracefully': {
    fails: 'redialer',
    reason:
      'the constructor throws a TypeError naming the option (as reconnecting-websocket does), not console.error and an error event',
  },
  'handles connection timeout': {
    fails: 'redialer',
    reason:
      'an attempt is never cut before its backoff wait ends (gRPC: max(connectionTimeout, wait)), so TIMEOUT comes at ~1 s; minReconnectionDelay <= connectionTimeout cuts at 100 ms',
  },
  'custom debugLogger receives messages': {
    fails: 'redialer',
    reason:
      "debugLogger gets one line per transition ('redialer/websocket IDLE -> CONNECTING (connect): …'), not partysocket's ('RWS>', step, value)",
  },
};

/** Times the error events of a client at a refused port: the gaps between them are its waits. */
function errorTimes(ws: { addEventListener(type: string, listener: () => void): void }): number[] {
  const times: number[] = [];
  ws.addEventListener('error', () => {
    times.push(performance.now());
  });
  return times;
}

/** The two tests of a URL provider that throws (or rejects): the client has an error event within 100 ms. */
async function errorsFromProvider(context: PeerTestContext, provider: () => unknown): Promise<void> {
  useGlobalWebSocket(context);
  const { make } = clients(context);
  const errorSpy = vi.fn();
  const ws = make(provider, undefined, { maxRetries: 0 });
  ws.addEventListener('error', (event: AnyEvent) => {
    errorSpy(event);
  });
  await sleep(100);
  expect(errorSpy).toHaveBeenCalled();
  ws.close();
}

peerSuite('partysocket error-handling.test.ts', 'partysocket', known, (test) => {
  // Error Handling - URL Providers
  test('handles async URL provider that throws', (context) =>
    errorsFromProvider(context, () => Promise.reject(new Error('URL fetch failed'))));

  // rewritten: their assertion runs in a timer the test does not wait for (it cannot fail the test);
  // here the test waits for it.
  test('handles sync URL provider that throws', (context) =>
    errorsFromProvider(context, () => {
      throw new Error('URL generation failed');
    }));

  test('handles invalid URL provider type', async (context) => {
    // rewritten: they call the private `_getNextUrl(123)` and expect it to throw; here a client is
    // given 123 as its URL and must refuse it: the constructor throws, or an error event comes.
    useGlobalWebSocket(context);
    const { make } = clients(context);
    let refused = false;
    try {
      const ws = make(123, undefined, { maxRetries: 0 });
      ws.addEventListener('error', () => {
        refused = true;
      });
      await sleep(100);
      ws.close();
    } catch {
      refused = true;
    }
    expect(refused).toBe(true);
  });

  // Error Handling - Protocol Providers
  test('handles invalid protocol provider', async (context) => {
    // rewritten: they call the private `_getNextProtocols(() => /regex/)` and expect an error whose
    // message contains "Invalid protocols"; here that provider is given to a client, which must
    // refuse it with such an error, thrown by the constructor or carried by an error event when it
    // connects.
    const { make, s } = await againstServer(context);
    let message: string | undefined;
    try {
      const ws = make(s.url, () => /regex/, { maxRetries: 0, startClosed: true });
      ws.addEventListener('error', (event: AnyEvent) => {
        message = event.message;
      });
      ws.reconnect();
      await sleep(100);
      ws.close();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('Invalid protocols');
    expect(s.connections).toBe(0);
  });

  test('handles null protocol provider', async (context) => {
    // rewritten: they call the private `_getNextProtocols(null)` (null: no protocols); here a client
    // with null protocols connects and the server selects none.
    const { make, s } = await againstServer(context);
    const ws = make(s.url, null, { maxRetries: 0, startClosed: true });
    await reconnectUntilOpen(ws);
    expect(ws.protocol).toBe('');
    ws.close();
  });

  // Error Handling - PartySocket Validation (only this one is of the base class)
  test('handles missing WebSocket constructor gracefully', async (context) => {
    useGlobalWebSocket(context, null);
    const errorSpy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    context.defer(() => {
      errorSpy.mockRestore();
    });
    const { make } = clients(context);
    const url = await refusedUrl(context);
    const ws = make(url, undefined, {
      maxRetries: 0,
      startClosed: false, // Need to try to connect to trigger error
    });
    await sleep(100);
    expect(errorSpy).toHaveBeenCalledWith(expect.stringContaining('No WebSocket implementation'));
    ws.close();
  });

  // Error Handling - Connection Failures
  test('handles immediate connection failure', async (context) => {
    useGlobalWebSocket(context);
    const { make } = clients(context);
    const errorSpy = vi.fn();
    const ws = make(await refusedUrl(context), undefined, { maxRetries: 1, maxReconnectionDelay: 100 });
    ws.addEventListener('error', errorSpy);
    await sleep(500);
    expect(errorSpy).toHaveBeenCalled();
    expect(ws.retryCount).toBeGreaterThan(0);
    ws.close();
  });

  test('stops retrying after maxRetries', async (context) => {
    useGlobalWebSocket(context);
    const { make } = clients(context);
    const maxRetries = 3;
    let errorCount = 0;
    const ws = make(await refusedUrl(context), undefined, {
      maxRetries,
      minReconnectionDelay: 10,
      maxReconnectionDelay: 20,
    });
    ws.addEventListener('error', () => {
      errorCount++;
    });
    await sleep(500);
    expect(ws.retryCount).toBe(maxRetries);
    expect(errorCount).toBeGreaterThanOrEqual(maxRetries);
    ws.close();
  });

  test('handles connection timeout', async (context) => {
    // rewritten: theirs asserts nothing (its TIMEOUT spy is never checked, and the unroutable address
    // fails at once rather than timing out); here a server that never answers the upgrade, and the
    // spy is checked: the attempt is cut at connectionTimeout with a TIMEOUT error.
    useGlobalWebSocket(context);
    const { make } = clients(context);
    const hole = await startBlackHole();
    context.defer(() => hole.stop());
    const timeoutSpy = vi.fn();
    const ws = make(`ws://127.0.0.1:${String(hole.port)}/`, undefined, { connectionTimeout: 100, maxRetries: 1 });
    ws.addEventListener('error', (event: AnyEvent) => {
      if (event.message === 'TIMEOUT') timeoutSpy();
    });
    await sleep(500);
    ws.close();
    expect(timeoutSpy).toHaveBeenCalled();
  });

  // Error Handling - Message Queue
  test('respects maxEnqueuedMessages limit', async (context) => {
    useGlobalWebSocket(context);
    const { make } = clients(context);
    const maxMessages = 5;
    const ws = make(await refusedUrl(context), undefined, { maxRetries: 0, maxEnqueuedMessages: maxMessages });
    for (let i = 0; i < maxMessages + 10; i++) ws.send(`message-${String(i)}`);
    expect(ws.bufferedAmount).toBeLessThanOrEqual(maxMessages * 10);
    ws.close();
  });

  test('calculates buffered amount for different message types', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, startClosed: true });
    ws.send('hello');
    ws.send(new ArrayBuffer(10));
    ws.send(new Blob(['test']));
    expect(ws.bufferedAmount).toBeGreaterThan(0);
    ws.close();
  });

  // Error Handling - Event Target Polyfill
  test('warns when EventTarget is not available', async (context) => {
    // rewritten: theirs re-imports the cached module and asserts nothing. Here the subject's module is
    // evaluated afresh with EventTarget and Event removed: it must either work without them (a
    // client can be made) or say so on console.error, naming EventTarget, rather than fail silently.
    const errorSpy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    context.defer(() => {
      errorSpy.mockRestore();
    });
    const g = globalThis as { EventTarget?: unknown; Event?: unknown };
    const { EventTarget: savedTarget, Event: savedEvent } = g;
    const entry =
      context.subject.name === 'redialer'
        ? new URL('../../../../src/adapters/websocket/index.ts', import.meta.url).href
        : pathToFileURL(createRequire(import.meta.url).resolve('partysocket/ws')).href.replace(/\.cjs$/, '.js');
    let usable = false;
    delete g.EventTarget;
    delete g.Event;
    try {
      const module = (await import(/* @vite-ignore */ `${entry}?fresh=${String(Date.now())}`)) as Record<
        string,
        unknown
      >;
      const Class = (module['ReconnectingWebSocket'] ?? module['default']) as new (...args: unknown[]) => {
        close(): void;
      };
      new Class('ws://127.0.0.1:1/', undefined, { startClosed: true, WebSocket: context.WebSocket }).close();
      usable = true;
    } catch {
      // not usable: it must have said why
    } finally {
      g.EventTarget = savedTarget;
      g.Event = savedEvent;
    }
    const warned = errorSpy.mock.calls.some((call) => String(call[0]).includes('EventTarget'));
    expect({ usable, warned }).not.toEqual({ usable: false, warned: false });
  });

  // Error Handling - Close Scenarios
  test('handles close before connection established', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, startClosed: true });
    ws.close();
    // Should be in CLOSED state (3)
    expect(ws.readyState).toBe(3);
  });

  test('handles multiple close calls', async (context) => {
    const { make, statics, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { startClosed: true });
    ws.close();
    ws.close();
    ws.close();
    expect(ws.readyState).toBe(statics.CLOSED);
  });

  test('handles reconnect while already connecting', async (context) => {
    // rewritten: their close() runs in a timer the test does not wait for; here the test waits, so
    // that what the rapid reconnect() calls start is over (and any throw is seen) within the test.
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0 });
    expect(() => {
      ws.reconnect();
      ws.reconnect();
      ws.reconnect();
    }).not.toThrow();
    await sleep(100);
    ws.close();
  });

  // Error Handling - Edge Cases
  test('handles extremely long message queue', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, {
      maxRetries: 0,
      maxEnqueuedMessages: Number.POSITIVE_INFINITY,
    });
    for (let i = 0; i < 1000; i++) ws.send(`message-${String(i)}`);
    expect(ws.bufferedAmount).toBeGreaterThan(0);
    ws.close();
  });

  test('handles empty message send', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, startClosed: true });
    expect(() => {
      ws.send('');
    }).not.toThrow();
    ws.close();
  });

  test('handles rapid reconnect calls', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, startClosed: true });
    expect(() => {
      for (let i = 0; i < 10; i++) ws.reconnect();
    }).not.toThrow();
    ws.close();
  });

  test('handles binaryType changes while disconnected', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { startClosed: true });
    expect(() => {
      ws.binaryType = 'arraybuffer';
      ws.binaryType = 'blob';
    }).not.toThrow();
    expect(ws.binaryType).toBe('blob');
    ws.close();
  });

  // Error Handling - Retry Logic
  test('resets retry count on successful connection', async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, {
      maxRetries: 5,
      minReconnectionDelay: 10,
      maxReconnectionDelay: 20,
      connectionTimeout: 500,
      minUptime: 50,
    });
    await sleep(2000);
    expect(ws.retryCount).toBeGreaterThan(0);
    ws.close();
  }, 10_000);

  test('exponential backoff increases delay correctly', async (context) => {
    // rewritten: they set the private `_retryCount` and read the private `_getNextDelay()` for 0-4;
    // here the failures at a refused port are timed: each wait is longer than the one before.
    const { make, url } = await againstRefusedUrl(context);
    // Waits of 50, 100, 200 and 400 ms: each twice the one before.
    const schedule = { minReconnectionDelay: 50, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 2 };
    const ws = make(url, undefined, { ...schedule, maxRetries: 5 });
    const times = errorTimes(ws);
    await settle(5000, async (done) => {
      while (times.length < 4) await sleep(10);
      done();
    });
    const delays = times.slice(1).map((t, i) => t - times[i]!);
    expect(delays[1]).toBeGreaterThan(delays[0]!);
    expect(delays[2]).toBeGreaterThan(delays[1]!);
    ws.close();
  });

  // Error Handling - Debug Mode
  test('custom debugLogger receives messages', async (context) => {
    useGlobalWebSocket(context);
    const { make } = clients(context);
    const debugLogger = vi.fn();
    const ws = make(await refusedUrl(context), undefined, {
      debug: true,
      debugLogger,
      maxRetries: 0,
      startClosed: true,
    });
    ws.reconnect();
    expect(debugLogger).toHaveBeenCalledWith('RWS>', expect.any(String), expect.anything());
    ws.close();
  });

  test('debug mode logs connection attempts', async (context) => {
    // rewritten: their assertion runs in a timer the test does not wait for; here the test waits.
    useGlobalWebSocket(context);
    const logSpy = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    context.defer(() => {
      logSpy.mockRestore();
    });
    const { make } = clients(context);
    const ws = make(await refusedUrl(context), undefined, { debug: true, maxRetries: 1 });
    await sleep(100);
    expect(logSpy).toHaveBeenCalled();
    ws.close();
  });
});
