/** The events that stand in for a socket the client lets go of, as a table. */
import { describe, expect, it } from 'vitest';
import type { ConnectionSnapshot } from '../../../src/core/connection-snapshot.js';
import { ConnectTimeoutError } from '../../../src/errors/connect-timeout-error.js';
import { type Releasing, releaseOf } from '../../../src/adapters/websocket/socket-release.js';

const target = {};
const waiting: ConnectionSnapshot = {
  state: 'TRANSIENT_FAILURE',
  since: 0,
  attempt: 1,
  lastError: new Error('x'),
  nextAttemptAt: 9,
};
const timedOut: ConnectionSnapshot = { ...waiting, lastError: new ConnectTimeoutError(1, 20) };

/** A release as plain words: its close code and reason, and its events as `type code reason`. */
function describeRelease(releasing: Releasing | undefined, opened: boolean, manager = waiting) {
  const release = releaseOf(releasing, opened, manager, target);
  return {
    code: release.code,
    reason: release.reason,
    events: release.events.map(([type, event]) =>
      type === 'close' ? `close ${String(event.code)} ${event.reason}` : `error ${(event.error as Error).message}`,
    ),
  };
}

describe('releaseOf', () => {
  it.each<[string, Releasing | undefined, boolean, ReturnType<typeof describeRelease>]>([
    [
      'close() of an open socket',
      { kind: 'close', code: 4000, reason: 'bye' },
      true,
      { code: 4000, reason: 'bye', events: ['close 4000 bye'] },
    ],
    [
      'close() of an open socket, no reason',
      { kind: 'close', code: 1000 },
      true,
      { code: 1000, reason: undefined, events: ['close 1000 '] },
    ],
    [
      'close() of a socket still connecting',
      { kind: 'close', code: 1000 },
      false,
      { code: 1000, reason: undefined, events: ['close 1006 '] },
    ],
    [
      'reconnect() with no code',
      { kind: 'reconnect' },
      true,
      { code: 1000, reason: undefined, events: ['close 1000 '] },
    ],
    [
      'reconnect() of a socket still connecting',
      { kind: 'reconnect', code: 4001, reason: 'again' },
      false,
      { code: 4001, reason: 'again', events: ['close 4001 again'] },
    ],
    ['a socket that lost a race', undefined, false, { code: undefined, reason: undefined, events: [] }],
  ])('%s', (_name, releasing, opened, expected) => {
    expect(describeRelease(releasing, opened)).toEqual(expected);
  });

  it("an attempt cut at its deadline: reconnecting-websocket's TIMEOUT error, then a 1006 close", () => {
    expect(describeRelease(undefined, false, timedOut).events).toEqual(['error TIMEOUT', 'close 1006 timeout']);
    // While the manager still shows the attempt, it was not a cut.
    expect(describeRelease(undefined, false, { ...timedOut, state: 'CONNECTING', timeoutAt: 20 }).events).toEqual([]);
  });

  it('leaves out an undefined reason, so that the socket is closed with the code alone', () => {
    expect(Object.keys(releaseOf({ kind: 'close', code: 1000 }, true, waiting, target))).toEqual(['code', 'events']);
  });
});
