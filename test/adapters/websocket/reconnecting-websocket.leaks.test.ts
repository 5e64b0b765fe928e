/**
 * Leak checks for ReconnectingWebSocket on real sockets and timers: after close() — open, mid-attempt
 * or waiting to retry — no timer or TCP handle created since the start remains; and, in a child
 * process, one on unrefScheduler lets Node exit by itself while it keeps retrying.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ReconnectingWebSocket } from '../../../src/adapters/websocket/index.js';
import { until } from '../../support/grpc/record.js';
import { startServer } from '../../support/websocket/ws-server.js';
import { excessOver, leakCheck } from '../../support/active-resources.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { itExitsWhileRetrying } from '../../support/child-process.js';

const cleanup = cleanupAfterEach();

describe('adapters leave no handle behind', () => {
  it('ReconnectingWebSocket: open, mid-attempt (upgrade never answered) and waiting to retry, then close()', async () => {
    const server = await startServer();
    const { silentPort, refusedPort, before } = await leakCheck(cleanup, () => server.stop());
    const options = { WebSocket, minReconnectionDelay: 50, maxReconnectionDelay: 200, connectionTimeout: 2000 };
    const open = new ReconnectingWebSocket(server.url, undefined, options);
    const attempting = new ReconnectingWebSocket(`ws://127.0.0.1:${String(silentPort)}/`, undefined, options);
    const waiting = new ReconnectingWebSocket(`ws://127.0.0.1:${String(refusedPort)}/`, undefined, options);
    await until(open.state$, (s) => s.state === 'READY');
    await until(waiting.state$, (s) => s.state === 'TRANSIENT_FAILURE');
    expect(open.sendWithStatus('x')).toBe('sent');
    expect(attempting.snapshot.state).toBe('CONNECTING');
    const closed = new Promise((r) => {
      open.addEventListener('close', r);
    });
    for (const socket of [open, attempting, waiting]) socket.close();
    await closed;
    expect(await excessOver(before)).toEqual({});
  });
});

describe("unref'd adapters let Node exit by itself (child processes, against dist/)", () => {
  itExitsWhileRetrying('ReconnectingWebSocket with scheduler: unrefScheduler', 'unref-websocket-exit.mjs');
});
