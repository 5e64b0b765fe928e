/**
 * Drop-in: the public surface of reconnecting-websocket 4.4 exists here, and code typed against it
 * (its Options, its event classes, the DOM's event types) compiles unchanged.
 */
import type {
  CloseEvent as RwsCloseEvent,
  ErrorEvent as RwsErrorEvent,
  Options as RwsOptions,
} from 'reconnecting-websocket';
import rwsModule from 'reconnecting-websocket';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../src/testing/index.js';
import DefaultExport, { ReconnectingWebSocket } from '../../../src/adapters/websocket/index.js';
import { FakeEnvironment, fakeWebSocketClass } from '../../support/websocket/fake-websocket.js';
import { EVERY_RWS_OPTION } from '../../support/websocket/rws-options.js';

// reconnecting-websocket ships CommonJS typed as an ES module: the class is the default export at
// run time, and `default.default` to the type checker.
const RWS = ((rwsModule as unknown as { default?: unknown }).default ?? rwsModule) as typeof rwsModule.default;

const created: ReconnectingWebSocket[] = [];
afterEach(() => {
  for (const socket of created.splice(0)) socket.close();
});

function publicMembers(proto: object): string[] {
  return Object.getOwnPropertyNames(proto).filter((name) => !name.startsWith('_') && name !== 'constructor');
}

describe('drop-in for reconnecting-websocket', () => {
  it('the default export is the class, as in reconnecting-websocket', () => {
    expect(DefaultExport).toBe(ReconnectingWebSocket);
  });

  it('has every public instance member of reconnecting-websocket', () => {
    const theirs = publicMembers(RWS.prototype);
    expect(theirs.length).toBeGreaterThan(15);
    const fake = fakeWebSocketClass();
    const ours = new ReconnectingWebSocket('ws://example.test/', undefined, {
      WebSocket: fake.WebSocket,
      startClosed: true,
      environment: new FakeEnvironment(),
    });
    created.push(ours);
    const missing = theirs.filter((name) => !(name in ours));
    expect(missing).toEqual([]);
  });

  it('has the static ready-state constants', () => {
    for (const name of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'] as const) {
      expect(ReconnectingWebSocket[name]).toBe(RWS[name]);
    }
  });

  it('accepts an Options object and handlers typed for reconnecting-websocket or the DOM', () => {
    const clock = createVirtualClock();
    const fake = fakeWebSocketClass();
    const options: RwsOptions = { WebSocket: fake.WebSocket, ...EVERY_RWS_OPTION };
    const socket = new ReconnectingWebSocket('ws://example.test/', [], {
      ...options,
      scheduler: clock.scheduler,
      environment: new FakeEnvironment(),
    });
    created.push(socket);
    const seen: string[] = [];
    socket.onclose = (event: RwsCloseEvent) => seen.push(`close ${String(event.code)}`);
    socket.onerror = (event: RwsErrorEvent) => seen.push(`error ${event.type}`);
    socket.onmessage = (event: MessageEvent<string>) => seen.push(`message ${event.data}`);
    socket.addEventListener('close', (event: CloseEvent) => seen.push(`listener ${String(event.wasClean)}`));
    fake.last().open();
    fake.last().receive('hi');
    fake.last().fail();
    expect(seen).toEqual(['message hi', 'error error', 'close 1006', 'listener false']);
  });
});
