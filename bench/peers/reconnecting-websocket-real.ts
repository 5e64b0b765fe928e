/**
 * reconnecting-websocket 4.4 and partysocket 1.3, their own `_getNextDelay()` on a closed instance
 * with a stub WebSocket.
 */
import PartySocket from 'partysocket/ws';
import ReconnectingWebSocketModule from 'reconnecting-websocket';
import type { RandomSource } from '../../src/backoff/backoff.js';
import type { ClientReconnect, StormPolicy } from '../../src/simulator/storm-policy.js';
import { partysocketPolicy, reconnectingWebSocketPolicy } from '../../src/simulator/policies/reconnecting-websocket-policy.js';
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

function fromInstance(instance: unknown): ClientReconnect {
  const rws = instance as Internals;
  // After a connection that lasted minUptime the retry count is 0; _connect() increments it before waiting.
  const delayAt = (retry: number): number => {
    rws._retryCount = retry;
    return rws._getNextDelay();
  };
  let retry = 1;
  return {
    firstAttemptDelay: delayAt(1),
    backoff: stepBackoff(
      () => {
        retry = 1;
      },
      () => delayAt(++retry),
    ),
  };
}

/**
 * reconnecting-websocket: its default minReconnectionDelay (`1000 + Math.random() * 4000`) is drawn
 * once per module load, i.e. once per page; each simulated client is a page, so the same formula is
 * drawn per client and passed in.
 */
export const reconnectingWebSocketReal: StormPolicy = {
  name: 'reconnecting-websocket',
  description: `${reconnectingWebSocketPolicy.description} (real _getNextDelay)`,
  forClient: (random: RandomSource) =>
    fromInstance(
      new ReconnectingWebSocket('ws://storm.invalid', [], {
        WebSocket: StubWebSocket,
        startClosed: true,
        minReconnectionDelay: 1000 + random() * 4000,
      }),
    ),
};

/** partysocket with its defaults. */
export const partysocketReal: StormPolicy = {
  name: 'partysocket',
  description: `${partysocketPolicy.description} (real _getNextDelay)`,
  forClient: () => fromInstance(new PartySocket('ws://storm.invalid', [], { WebSocket: StubWebSocket, startClosed: true })),
};
