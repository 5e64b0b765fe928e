/**
 * partysocket 1.3's src/tests/edge-cases.test.ts, the tests of its ReconnectingWebSocket, re-expressed
 * on the harness. Theirs construct a PartySocket (host and room); where the behaviour tested is the
 * base class's (binaryType, the queue, readyState, close(), retryCount, the getters), the client here
 * is the class itself at a server's URL (or a refused one). Their tests of PartySocket's own features
 * (its id's UUID, the ws:// or wss:// choice from the host) are out of scope and not here.
 */
import { expect } from 'vitest';
import type { TestServer } from '../../../support/websocket/ws-server.js';
import { type KnownDifference, type PeerTestContext, peerSuite } from './peer-suite.js';
import {
  type Client,
  againstRefusedUrl,
  againstServer,
  clients,
  expectReadyStateConstants,
  reconnectUntilOpen,
  sleep,
} from './peer-support.js';

const known: Record<string, KnownDifference> = {};

/** The client most of these tests start from: at a server of the test's own, made with startClosed. */
async function startClosedClient(context: PeerTestContext): Promise<{ ps: Client; s: TestServer }> {
  const { make, s } = await againstServer(context);
  return { ps: make(s.url, undefined, { startClosed: true }), s };
}

peerSuite('partysocket edge-cases.test.ts', 'partysocket', known, (test) => {
  // Edge Cases - BinaryType
  test("should default binaryType to 'blob'", async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    expect(ps.binaryType).toBe('blob');
  });

  test('should set binaryType before connection', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.binaryType = 'arraybuffer';
    expect(ps.binaryType).toBe('arraybuffer');
  });

  test('should apply binaryType to WebSocket after connection', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.binaryType = 'arraybuffer';
    await reconnectUntilOpen(ps);
    expect(ps.binaryType).toBe('arraybuffer');
    ps.close();
  });

  test('should preserve binaryType across reconnections', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.binaryType = 'arraybuffer';
    await reconnectUntilOpen(ps);
    expect(ps.binaryType).toBe('arraybuffer');
    // Trigger reconnection
    await reconnectUntilOpen(ps, { once: true });
    expect(ps.binaryType).toBe('arraybuffer');
    ps.close();
  });

  // Edge Cases - Message Queue
  test('should queue messages up to maxEnqueuedMessages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context);
    const ps = make(s.url, undefined, { maxEnqueuedMessages: 3, startClosed: true });
    ps.send('message1');
    ps.send('message2');
    ps.send('message3');
    expect(ps.bufferedAmount).toBeGreaterThan(0);
  });

  test('should not queue messages beyond maxEnqueuedMessages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context);
    const ps = make(s.url, undefined, { maxEnqueuedMessages: 2, startClosed: true });
    ps.send('message1');
    ps.send('message2');
    const bufferedBefore = ps.bufferedAmount;
    ps.send('message3'); // This should be dropped
    expect(ps.bufferedAmount).toBe(bufferedBefore);
  });

  test('should handle exactly maxEnqueuedMessages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context);
    const ps = make(s.url, undefined, { maxEnqueuedMessages: 5, startClosed: true });
    for (let i = 0; i < 5; i++) ps.send(`message${String(i)}`);
    expect(ps.bufferedAmount).toBeGreaterThan(0);
    // 6th message should be dropped
    const bufferedBefore = ps.bufferedAmount;
    ps.send('message6');
    expect(ps.bufferedAmount).toBe(bufferedBefore);
  });

  test('should calculate bufferedAmount for string messages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.send('hello');
    expect(ps.bufferedAmount).toBe(5); // "hello".length
  });

  test('should calculate bufferedAmount for Blob messages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.send(new Blob(['test data']));
    expect(ps.bufferedAmount).toBe(9); // blob.size
  });

  test('should calculate bufferedAmount for ArrayBuffer messages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.send(new ArrayBuffer(8));
    expect(ps.bufferedAmount).toBe(8); // buffer.byteLength
  });

  test('should calculate bufferedAmount for ArrayBufferView messages', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    ps.send(new Uint8Array([1, 2, 3, 4, 5]));
    expect(ps.bufferedAmount).toBe(5); // view.byteLength
  });

  test('should flush message queue on connection', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps, s } = await startClosedClient(context);
    ps.send('queued1');
    ps.send('queued2');
    expect(ps.bufferedAmount).toBeGreaterThan(0);
    await reconnectUntilOpen(ps);
    // Wait for messages to be sent
    await sleep(100);
    expect(s.received).toContain('queued1');
    expect(s.received).toContain('queued2');
    ps.close();
  });

  // Edge Cases - ReadyState Constants
  test('should expose static readyState constants', (context) => {
    expectReadyStateConstants(clients(context).statics);
  });

  test('should expose instance readyState constants', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, url } = await againstRefusedUrl(context);
    expectReadyStateConstants(make(url, undefined, { startClosed: true }));
  });

  test('should report CLOSED state when startClosed is true', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, statics, url } = await againstRefusedUrl(context);
    const ps = make(url, undefined, { startClosed: true });
    expect(ps.readyState).toBe(statics.CLOSED);
  });

  test('should report CONNECTING state by default', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, statics, url } = await againstRefusedUrl(context);
    const ps = make(url);
    expect(ps.readyState).toBe(statics.CONNECTING);
    ps.close();
  });

  // Edge Cases - Close Behavior
  test('should handle close() when not connected', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    expect(() => {
      ps.close();
    }).not.toThrow();
  });

  test('should handle multiple close() calls', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    await reconnectUntilOpen(ps);
    ps.close();
    expect(() => {
      ps.close();
    }).not.toThrow();
  });

  test('should set shouldReconnect to false when close() is called', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    expect(ps.shouldReconnect).toBe(false);
    ps.reconnect();
    expect(ps.shouldReconnect).toBe(true);
    ps.close();
    expect(ps.shouldReconnect).toBe(false);
  });

  // Edge Cases - RetryCount
  test('should start with retryCount 0', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, url } = await againstRefusedUrl(context);
    const ps = make(url, undefined, { startClosed: true });
    expect(ps.retryCount).toBe(0);
  });

  test('should reset retryCount when reconnect() is called', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { ps } = await startClosedClient(context);
    await reconnectUntilOpen(ps);
    // Force a reconnection by calling reconnect
    ps.reconnect();
    // retryCount should be reset to 0
    expect(ps.retryCount).toBe(0);
    ps.close();
  });

  // Edge Cases - Extensions and Protocol
  test('should return empty string for extensions when not connected', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context);
    expect(make(s.url, undefined, { startClosed: true }).extensions).toBe('');
  });

  test('should return empty string for protocol when not connected', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context);
    expect(make(s.url, undefined, { startClosed: true }).protocol).toBe('');
  });

  test('should return empty string for url when not connected', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context);
    expect(make(s.url, undefined, { startClosed: true }).url).toBe('');
  });
});
