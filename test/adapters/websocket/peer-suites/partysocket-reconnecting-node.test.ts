/**
 * partysocket 1.3's src/tests/reconnecting-node.test.ts (one test of its ReconnectingWebSocket on
 * Node) re-expressed on the harness: with no global WebSocket, the class given in the `WebSocket`
 * option is the one used.
 */
import { expect } from 'vitest';
import { type KnownDifference, peerSuite } from './peer-suite.js';
import { clients, recordingWebSocket, settle, useGlobalWebSocket } from './peer-support.js';

const known: Record<string, KnownDifference> = {};

peerSuite('partysocket reconnecting-node.test.ts', 'partysocket', known, (test) => {
  test('pass WebSocket via options', async (context) => {
    // rewritten: they read the private socket (`_ws instanceof NodeWebSocket`); here the class
    // passed records what it constructs.
    useGlobalWebSocket(context, null);
    const recording = recordingWebSocket(context.WebSocket);
    const { make } = clients(context);
    const s = await context.server();
    await settle(5000, (done, _fail, guard) => {
      const ws = make(s.url, undefined, { WebSocket: recording.Class, maxRetries: 0 });
      ws.reconnect();
      ws.addEventListener(
        'open',
        guard(() => {
          expect(recording.made.length).toBeGreaterThan(0);
          expect(recording.made.at(-1)).toBeInstanceOf(recording.Class as new () => object);
          ws.close();
          done();
        }),
      );
    });
  });
});
