/**
 * reconnecting-websocket 4.4 and partysocket 1.3, their own `_getNextDelay()` on a closed instance
 * with a stub WebSocket.
 */
import PartySocket from 'partysocket/ws';
import ReconnectingWebSocketModule from 'reconnecting-websocket';
import type { RandomSource } from '../../src/backoff/backoff.js';
import type { ClientReconnect, StormPolicy } from '../../src/tools/simulator/storm-policy.js';
import {
  RECONNECTING_WEBSOCKET_RULES,
  partysocketPolicy,
  reconnectingWebSocketMinDelay,
  reconnectingWebSocketPolicy,
  reconnectingWebSocketProcessPolicy,
} from '../../src/tools/simulator/policies/reconnecting-websocket-policy.js';
import { stepBackoff } from './step-backoff.js';

/** A WebSocket class that is never opened (the instances start closed). */
export class StubWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readonly readyState = 3;
  constructor() {
    throw new Error('the stub WebSocket is never opened');
  }
}

// The package's CommonJS entry exports the class itself; its typings describe an ES default export.
const ReconnectingWebSocket = ReconnectingWebSocketModule as unknown as typeof ReconnectingWebSocketModule.default;

interface Internals {
  _retryCount: number;
  _getNextDelay(): number;
}

/**
 * After a connection that lasted minUptime the retry count is 0; `_connect()` increments it and
 * then waits `_getNextDelay()`, before the first attempt after the loss too.
 */
function fromInstance(instance: unknown): ClientReconnect {
  const rws = instance as Internals;
  return {
    rules: RECONNECTING_WEBSOCKET_RULES,
    backoff: stepBackoff(
      () => {
        rws._retryCount = 0;
      },
      () => {
        rws._retryCount += 1;
        return rws._getNextDelay();
      },
    ),
  };
}

const instance = (minReconnectionDelay: number): ClientReconnect =>
  fromInstance(
    new ReconnectingWebSocket('ws://storm.invalid', [], {
      WebSocket: StubWebSocket,
      startClosed: true,
      minReconnectionDelay,
    }),
  );

/**
 * reconnecting-websocket: its default minReconnectionDelay (`1000 + Math.random() * 4000`) is drawn
 * once per module load, i.e. once per page; each simulated client is a page, so the same formula is
 * drawn per client and passed in.
 */
export const reconnectingWebSocketReal: StormPolicy = {
  name: reconnectingWebSocketPolicy.name,
  description: `${reconnectingWebSocketPolicy.description} (real _getNextDelay)`,
  forClient: (random: RandomSource) => instance(reconnectingWebSocketMinDelay(random)),
};

/** reconnecting-websocket with every client in one process: one module-load draw, shared. */
export const reconnectingWebSocketProcessReal: StormPolicy = {
  name: reconnectingWebSocketProcessPolicy.name,
  description: `${reconnectingWebSocketProcessPolicy.description} (real _getNextDelay)`,
  forClient: (random: RandomSource) => instance(reconnectingWebSocketMinDelay(random)),
  forRun: (random: RandomSource) => {
    const min = reconnectingWebSocketMinDelay(random);
    return () => instance(min);
  },
};

/** partysocket with its defaults. */
export const partysocketReal: StormPolicy = {
  name: partysocketPolicy.name,
  description: `${partysocketPolicy.description} (real _getNextDelay)`,
  forClient: () =>
    fromInstance(new PartySocket('ws://storm.invalid', [], { WebSocket: StubWebSocket, startClosed: true })),
};
