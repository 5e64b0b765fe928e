/** The send path: socket, queue or drop, one outcome per message. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionSnapshot } from '../../../src/core/connection-snapshot.js';
import { ReadyState } from '../../../src/adapters/websocket/index.js';
import { type DropEvent, SendPath, type SendPathOptions } from '../../../src/adapters/websocket/send-path.js';
import type { WebSocketLike } from '../../../src/adapters/websocket/websocket-types.js';

const base = { since: 0, attempt: 1, lastError: undefined };
const connecting: ConnectionSnapshot = { ...base, state: 'CONNECTING', timeoutAt: 10 };
const closed: ConnectionSnapshot = { ...base, state: 'SHUTDOWN', reason: 'shutdown' };
const gaveUp: ConnectionSnapshot = { ...base, state: 'SHUTDOWN', reason: 'permanent-failure' };

function socket(readyState: number = ReadyState.OPEN) {
  const sent: unknown[] = [];
  const s = { readyState, send: (data: unknown) => sent.push(data) } as unknown as WebSocketLike & {
    readyState: number;
  };
  return { s, sent };
}

function setup(options: Partial<SendPathOptions> = {}) {
  const drops: DropEvent[] = [];
  const path = new SendPath(
    { maxEnqueuedMessages: 2, maxEnqueuedBytes: 100, dropOnClose: false, ...options },
    (event) => drops.push(event),
  );
  return { path, drops, reasons: () => drops.map((d) => `${d.data as string} ${d.reason}`) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SendPath.send', () => {
  it('to the open socket when nothing is queued; else queued in order; refused when full', () => {
    const { path, reasons } = setup();
    const { s, sent } = socket(ReadyState.CONNECTING);
    expect(path.send('a', connecting, undefined)).toBe('queued');
    expect(path.send('b', connecting, s)).toBe('queued'); // a socket not open yet
    expect(path.send('c', connecting, s)).toBe('rejected');
    expect(reasons()).toEqual(['c queue-full']);
    s.readyState = ReadyState.OPEN;
    expect(path.send('d', connecting, s)).toBe('rejected'); // still queued before it, and full
    path.flush(s);
    expect(sent).toEqual(['a', 'b']);
    expect(path.send('e', connecting, s)).toBe('sent');
    expect(sent).toEqual(['a', 'b', 'e']);
  });

  it('flush stops when the socket stops being open, and keeps the rest', () => {
    const { path } = setup();
    path.send('a', connecting, undefined);
    path.send('b', connecting, undefined);
    const s: { readyState: number; send(): void } = {
      readyState: ReadyState.OPEN,
      send: () => {
        s.readyState = ReadyState.CLOSING;
      },
    };
    path.flush(s as unknown as WebSocketLike);
    expect(path.queue.length).toBe(1);
  });

  it('after close(): queued, with one warning until rearm(); after giving up: queued, no warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { path } = setup();
    expect(path.send('a', closed, undefined)).toBe('queued');
    path.send('b', gaveUp, undefined);
    path.send('c', closed, undefined);
    expect(warn).toHaveBeenCalledTimes(1);
    path.rearm();
    path.send('d', { ...closed }, undefined);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('with dropOnClose: refused once closed; what was queued is taken on SHUTDOWN and dropped', () => {
    const { path, reasons } = setup({ dropOnClose: true });
    path.send('a', connecting, undefined);
    expect(path.takeOnShutdown(connecting)).toEqual([]);
    const taken = path.takeOnShutdown(gaveUp);
    expect(path.queue.length).toBe(0);
    expect(path.send('b', closed, undefined)).toBe('rejected');
    path.dropClosed(taken);
    expect(reasons()).toEqual(['b closed', 'a closed']);
  });

  it('without dropOnClose, SHUTDOWN keeps the queue', () => {
    const { path } = setup();
    path.send('a', connecting, undefined);
    expect(path.takeOnShutdown(closed)).toEqual([]);
    expect(path.queue.length).toBe(1);
  });
});
