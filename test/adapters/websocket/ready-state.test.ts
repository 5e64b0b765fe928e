/** readyState, retryCount and shouldReconnect as functions of the snapshot, as tables. */
import { describe, expect, it } from 'vitest';
import { ReadyState } from '../../../src/adapters/websocket/index.js';
import {
  isPaused,
  readyStateOf,
  retryCountOf,
  shouldReconnectOf,
  type WebSocketSnapshot,
} from '../../../src/adapters/websocket/ready-state.js';
import type { WebSocketLike } from '../../../src/adapters/websocket/websocket-types.js';

const socket = {} as WebSocketLike;
const base = { since: 100, attempt: 3, lastError: undefined };
const snapshots = {
  idle: { ...base, state: 'IDLE' },
  paused: { ...base, state: 'IDLE', paused: true },
  connecting: { ...base, state: 'CONNECTING', timeoutAt: 200 },
  ready: { ...base, state: 'READY', connection: socket },
  waiting: { ...base, state: 'TRANSIENT_FAILURE', nextAttemptAt: 300 },
  shutdown: { ...base, state: 'SHUTDOWN', reason: 'shutdown' },
} satisfies Record<string, WebSocketSnapshot>;
type Name = keyof typeof snapshots;

describe('readyStateOf', () => {
  const { CONNECTING, OPEN, CLOSING, CLOSED } = ReadyState;
  it.each<[Name, number | undefined, boolean, number]>([
    ['idle', undefined, false, CLOSED],
    ['idle', undefined, true, CLOSING], // reconnect() let go of a socket still closing
    ['paused', undefined, false, CONNECTING],
    ['paused', undefined, true, CLOSING],
    ['connecting', undefined, false, CONNECTING],
    ['connecting', undefined, true, CLOSING],
    ['waiting', undefined, false, CONNECTING],
    ['waiting', undefined, true, CLOSING],
    ['ready', undefined, false, OPEN],
    ['ready', CLOSING, false, CLOSING], // the open socket's own state wins
    ['shutdown', undefined, false, CLOSED],
    ['shutdown', undefined, true, CLOSED],
  ])('%s, socket %s, abandoned closing %s -> %i', (name, socketState, abandonedClosing, expected) => {
    expect(readyStateOf(snapshots[name], socketState, abandonedClosing)).toBe(expected);
  });
});

describe('retryCountOf (minUptime 50)', () => {
  it.each<[Name, number, number]>([
    ['idle', 0, 0],
    ['paused', 0, 0],
    ['connecting', 0, 2], // attempt 3 is the second retry
    ['waiting', 0, 3], // the retry to come
    ['ready', 149, 2], // up 49 ms: still counting
    ['ready', 150, 0], // up minUptime: the count has reset
    ['shutdown', 0, 2],
  ])('%s at %i -> %i', (name, now, expected) => {
    expect(retryCountOf(snapshots[name], now, 50)).toBe(expected);
  });

  it('is never negative', () => {
    expect(retryCountOf({ ...snapshots.connecting, attempt: 0 }, 0, 50)).toBe(0);
  });
});

describe('shouldReconnectOf and isPaused', () => {
  it.each<[Name, boolean, boolean]>([
    ['idle', false, false],
    ['paused', true, true],
    ['connecting', true, false],
    ['ready', true, false],
    ['waiting', true, false],
    ['shutdown', false, false],
  ])('%s -> shouldReconnect %s, paused %s', (name, reconnects, paused) => {
    expect(shouldReconnectOf(snapshots[name])).toBe(reconnects);
    expect(isPaused(snapshots[name])).toBe(paused);
  });
});
