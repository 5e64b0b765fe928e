/**
 * partysocket 1.3's src/tests/performance.test.ts re-expressed on the harness. Each of their time
 * bounds ("< 100 ms", "> 100 messages per second") becomes the behaviour it stands for, checked by
 * count or order (a shared machine makes a time bound flaky and says nothing of the client). Theirs
 * use PartySocket for the message and connection tests; the client here is the base class itself.
 * Their two tests of PartySocket's own operations (URL construction, updateProperties) are out of
 * scope and not here.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'vitest';
import { type KnownDifference, peerSuite } from './peer-suite.js';
import {
  type AnyEvent,
  againstRefusedUrl,
  againstServer,
  closesFirstConnectionAfter,
  echoBack,
  listen,
  nextOpen,
  reconnectUntilOpen,
  settle,
  sleep,
  textOf,
} from './peer-support.js';

const known: Record<string, KnownDifference> = {};

/** The engine's garbage collector, exposed for this process (as `node --expose-gc` would). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

peerSuite('partysocket performance.test.ts', 'partysocket', known, (test) => {
  // Performance - Message Throughput
  test('handles high message volume', async (context) => {
    // rewritten: theirs asserts > 100 messages per second; here every one of the 1000 echoes
    // arrives, in order (PartySocket in theirs; the base class here).
    const messageCount = 1000;
    const { make, s } = await againstServer(context, echoBack);
    const received: string[] = [];
    await settle(8000, (done) => {
      const ps = make(s.url);
      ps.addEventListener('open', () => {
        ps.addEventListener('message', (event: AnyEvent) => {
          void textOf(event.data).then((text) => {
            received.push(text);
            if (received.length === messageCount) {
              ps.close();
              done();
            }
          });
        });
        // Send messages rapidly
        for (let i = 0; i < messageCount; i++) ps.send(`message-${String(i)}`);
      });
    });
    expect(received).toEqual(Array.from({ length: messageCount }, (_, i) => `message-${String(i)}`));
  }, 10_000);

  test('handles rapid small messages efficiently', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    let receivedCount = 0;
    const messageCount = 500;
    const { make, s } = await againstServer(context, (client) => {
      client.on('message', (data) => {
        client.send((data as Buffer).toString());
      });
    });
    await settle(8000, (done) => {
      const ps = make(s.url);
      ps.addEventListener('open', () => {
        ps.addEventListener('message', () => {
          receivedCount++;
          if (receivedCount === messageCount) {
            ps.close();
            done();
          }
        });
        // Send small messages
        for (let i = 0; i < messageCount; i++) ps.send('x');
      });
    });
    expect(receivedCount).toBe(messageCount);
  }, 10_000);

  test('handles large messages efficiently', async (context) => {
    // rewritten: theirs asserts the echo within 1000 ms; here the 10 KB echo arrives whole
    // (PartySocket in theirs; the base class here).
    const largeMessage = 'x'.repeat(10000); // 10KB message
    const { make, s } = await againstServer(context, (client) => {
      client.on('message', (data) => {
        client.send((data as Buffer).toString());
      });
    });
    let received: unknown;
    await settle(5000, (done) => {
      const ps = make(s.url);
      ps.addEventListener('open', () => {
        ps.addEventListener('message', (event: AnyEvent) => {
          received = event.data;
          ps.close();
          done();
        });
        ps.send(largeMessage);
      });
    });
    expect(received).toBeDefined();
    expect(await textOf(received)).toBe(largeMessage);
  });

  // Performance - Connection Speed
  test('connects quickly', async (context) => {
    // rewritten: theirs asserts open within 500 ms; here the client opens on its first attempt (one
    // connection at the server, retryCount 0) (PartySocket in theirs; the base class here).
    const { make, s } = await againstServer(context);
    await settle(5000, (done, _fail, guard) => {
      const ps = make(s.url);
      listen(ps, 'open', guard, () => {
        expect(s.connections).toBe(1);
        expect(ps.retryCount).toBe(0);
        ps.close();
        done();
      });
    });
  });

  test('reconnects quickly after disconnect', async (context) => {
    // rewritten: theirs asserts the reopen within 1000 ms of the close; here the first retry after
    // the server's close is the one that opens (two connections at the server in all), within the
    // test's bound (PartySocket in theirs; the base class here).
    const { make, s } = await againstServer(context, closesFirstConnectionAfter(100));
    let closedAt = 0;
    await settle(5000, (done, _fail, guard) => {
      const ps = make(s.url, undefined, { minReconnectionDelay: 50, maxReconnectionDelay: 100 });
      let firstConnect = false;
      ps.addEventListener('open', () => {
        if (!firstConnect) firstConnect = true;
      });
      ps.addEventListener('close', () => {
        closedAt = performance.now();
      });
      listen(ps, 'open', guard, () => {
        if (firstConnect && closedAt > 0) {
          expect(s.connections).toBe(2);
          ps.close();
          done();
        }
      });
    });
  });

  // Performance - Message Queue
  test('respects maxEnqueuedMessages limit efficiently', async (context) => {
    // rewritten: theirs also asserts the 10000 sends take < 100 ms; here only what is kept counts
    const maxMessages = 10;
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, maxEnqueuedMessages: maxMessages });
    for (let i = 0; i < 10000; i++) ws.send(`message-${String(i)}`);
    // Should only have maxMessages in queue
    expect(ws.bufferedAmount).toBeLessThanOrEqual(maxMessages * 15);
    ws.close();
  });

  test('message queue operations are fast', async (context) => {
    // rewritten: theirs asserts 1000 sends take < 50 ms; here all 1000 are queued (bufferedAmount is
    // their total length)
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, maxEnqueuedMessages: 1000 });
    let total = 0;
    for (let i = 0; i < 1000; i++) {
      const message = `msg-${String(i)}`;
      total += message.length;
      ws.send(message);
    }
    expect(ws.bufferedAmount).toBe(total);
    ws.close();
  });

  // Performance - Reconnection Logic
  test('retry delay calculation is efficient', async (context) => {
    // rewritten, and not expressible: theirs times 100 calls of the private `_getNextDelay()` (after
    // setting the private `_retryCount`) against a 10 ms bound. Public behaviour reaches the delay
    // only by waiting it out (1 s to 10 s per retry with these options), and a time bound is not kept
    // here; what remains is that a client with these options is accepted and closes cleanly.
    const { make, statics, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, {
      minReconnectionDelay: 1000,
      maxReconnectionDelay: 10000,
      reconnectionDelayGrowFactor: 1.3,
      maxRetries: 100,
      startClosed: true,
    });
    expect(ws.readyState).toBe(statics.CLOSED);
    ws.close();
    expect(ws.readyState).toBe(statics.CLOSED);
  });

  test("multiple reconnect calls don't cause performance issues", async (context) => {
    // rewritten: theirs asserts 100 reconnect() calls take < 100 ms at an unroutable address; here at
    // a server: after them the client ends up with one connection, not one per call.
    const { make, s } = await againstServer(context);
    const ws = make(s.url, undefined, { maxRetries: 0, startClosed: true });
    for (let i = 0; i < 100; i++) ws.reconnect();
    await nextOpen(ws);
    await sleep(100);
    expect(s.clients.size).toBe(1);
    ws.close();
  });

  // Performance - Event Handling
  test('adding many event listeners is efficient', async (context) => {
    // rewritten: theirs asserts adding 400 listeners takes < 50 ms; here the 100 open listeners are
    // each called once when the client opens.
    const { make, s } = await againstServer(context);
    const ws = make(s.url, undefined, { startClosed: true });
    let opens = 0;
    for (let i = 0; i < 100; i++) {
      ws.addEventListener('open', () => {
        opens++;
      });
      ws.addEventListener('message', () => undefined);
      ws.addEventListener('close', () => undefined);
      ws.addEventListener('error', () => undefined);
    }
    await reconnectUntilOpen(ws);
    expect(opens).toBe(100);
    ws.close();
  });

  test('removing many event listeners is efficient', async (context) => {
    // rewritten: theirs asserts removing 100 listeners takes < 50 ms; here none of them is called
    // when the client opens.
    const { make, s } = await againstServer(context);
    const ws = make(s.url, undefined, { startClosed: true });
    let calls = 0;
    const listeners: (() => void)[] = [];
    for (let i = 0; i < 100; i++) {
      const listener = (): void => {
        calls++;
      };
      listeners.push(listener);
      ws.addEventListener('open', listener);
    }
    for (const listener of listeners) ws.removeEventListener('open', listener);
    await reconnectUntilOpen(ws);
    expect(calls).toBe(0);
    ws.close();
  });

  // Performance - Memory
  test('closed sockets can be garbage collected', async (context) => {
    // rewritten: theirs asserts `true` (it cannot fail); here the 100 closed clients are watched
    // with WeakRefs and the collector is run: none of them is still reachable.
    const gc = collector();
    const { url } = await againstRefusedUrl(context);
    const refs: WeakRef<object>[] = [];
    (() => {
      for (let i = 0; i < 100; i++) {
        // not tracked: the harness's cleanup would keep them reachable
        const ws = new context.RWS(url, undefined, { startClosed: true }) as { close(): void };
        refs.push(new WeakRef(ws));
        ws.close();
      }
    })();
    for (let round = 0; round < 5 && refs.some((r) => r.deref() !== undefined); round++) {
      await sleep(20);
      gc();
    }
    expect(refs.filter((r) => r.deref() !== undefined).length).toBe(0);
  });

  test("message queue doesn't grow unbounded", async (context) => {
    const { make, url } = await againstRefusedUrl(context);
    const ws = make(url, undefined, { maxRetries: 0, maxEnqueuedMessages: 10 });
    const initialAmount = ws.bufferedAmount;
    for (let i = 0; i < 1000; i++) ws.send(`message-${String(i)}`);
    const finalAmount = ws.bufferedAmount;
    // Should not grow beyond limit
    expect(finalAmount).toBeLessThanOrEqual(initialAmount + 10 * 15);
    ws.close();
  });
});
