/**
 * The parts of the peers' surface that code switching from partysocket 1.3 or reconnecting-websocket
 * 4.4 uses, on virtual time with scriptable sockets: send()'s boolean and sendWithStatus(), the
 * protocols provider, drainQueuedMessages(), shouldReconnect, shouldReconnectOnClose, debugLogger,
 * binaryType and the event classes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  CloseEvent,
  ErrorEvent,
  type ErrorEventLike,
  type ProtocolsProvider,
  type ReconnectingWebSocketOptions,
  type ReconnectingWebSocket,
} from '../../../src/adapters/websocket/index.js';
import { fakeClient } from '../../support/websocket/fake-client.js';
import { fakeWebSocketClass } from '../../support/websocket/fake-websocket.js';

const open: ReconnectingWebSocket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) if (socket.snapshot.state !== 'SHUTDOWN') socket.close();
});

function setup(options: ReconnectingWebSocketOptions = {}, protocols?: ProtocolsProvider) {
  return fakeClient(open, options, protocols as string | string[] | null | undefined);
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("send(): partysocket's boolean, redialer's status alongside", () => {
  it('true only when handed to the open socket; false when queued or refused, with a drop event for a refusal', () => {
    const h = setup({ maxEnqueuedMessages: 1 });
    expect(h.socket.send('queued')).toBe(false);
    expect(h.socket.send('refused')).toBe(false);
    expect(h.drops.map((d) => [d.data, d.reason])).toEqual([['refused', 'queue-full']]);
    h.last().open();
    expect(h.socket.send('now')).toBe(true);
    expect(h.last().sent).toEqual(['queued', 'now']);
  });

  it("sendWithStatus() says 'sent', 'queued' or 'rejected'", () => {
    const h = setup({ maxEnqueuedMessages: 1 });
    expect(h.socket.sendWithStatus('a')).toBe('queued');
    expect(h.socket.sendWithStatus('b')).toBe('rejected');
    h.last().open();
    expect(h.socket.sendWithStatus('c')).toBe('sent');
    expect(() => (h.socket.sendWithStatus.bind(h.socket) as unknown as () => unknown)()).toThrow(/needs a message/);
  });
});

describe('the protocols provider, asked before every attempt', () => {
  it('a function returning a list, a string or null: each socket is opened with its answer', () => {
    const answers: (string | string[] | null)[] = [['v2', 'v1'], 'v1', null];
    const h = setup({}, () => answers.shift() ?? null);
    for (let i = 0; i < 3; i += 1) {
      h.last().fail();
      const s = h.socket.snapshot;
      if (s.state === 'TRANSIENT_FAILURE') h.clock.advanceTo(s.nextAttemptAt);
    }
    expect(h.fake.sockets.map((s) => s.protocols)).toEqual([['v2', 'v1'], 'v1', undefined, undefined]);
  });

  it('an async provider: the socket opens with what it resolves to', async () => {
    const h = setup({}, () => Promise.resolve(['chat']));
    expect(h.fake.sockets).toHaveLength(0);
    await tick();
    expect(h.fake.sockets.map((s) => s.protocols)).toEqual([['chat']]);
  });

  it('a provider that throws, rejects or answers a number fails that attempt with an error event, retried', async () => {
    for (const provider of [
      () => {
        throw new Error('no token');
      },
      () => Promise.reject(new Error('no token')),
      () => 42 as unknown as string,
    ]) {
      const h = setup({}, provider);
      const errors: ErrorEventLike[] = [];
      h.socket.addEventListener('error', (e) => errors.push(e));
      await tick();
      expect(h.fake.sockets).toHaveLength(0);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(ErrorEvent);
      expect(errors[0]?.message).toMatch(
        /no token|Invalid protocols from the protocols provider: expected a string, an array of strings or null, got 42/,
      );
      expect(h.socket.snapshot.state).toBe('TRANSIENT_FAILURE');
    }
  });

  it('rejects protocols of another type at construction, naming them', () => {
    expect(() => setup({}, 42 as unknown as string)).toThrow(
      /protocols must be a string, an array of strings or a function returning one, got number/,
    );
  });
});

describe('drainQueuedMessages() and shouldReconnect', () => {
  it('drainQueuedMessages() takes back what is queued, oldest first, and nothing is sent of it', () => {
    const h = setup();
    h.socket.send('a');
    h.socket.send(new Uint8Array([1]));
    const drained = h.socket.drainQueuedMessages();
    expect(drained).toEqual(['a', new Uint8Array([1])]);
    expect(h.socket.bufferedAmount).toBe(0);
    h.last().open();
    expect(h.last().sent).toEqual([]);
  });

  it('shouldReconnect: true while it keeps connecting, false after close() and with startClosed until reconnect()', () => {
    const h = setup({ startClosed: true });
    expect(h.socket.shouldReconnect).toBe(false);
    h.socket.reconnect();
    expect(h.socket.shouldReconnect).toBe(true);
    h.last().fail();
    expect(h.socket.shouldReconnect).toBe(true);
    h.socket.close();
    expect(h.socket.shouldReconnect).toBe(false);
  });

  it("shouldReconnectOnClose is partysocket's name for shouldReconnect; both at once is an error", () => {
    const h = setup({ shouldReconnectOnClose: (e) => e.code !== 4001 });
    h.last().open();
    h.last().finish(4001, 'go away', true);
    expect(h.socket.snapshot.state).toBe('SHUTDOWN');
    expect(() => setup({ shouldReconnect: () => true, shouldReconnectOnClose: () => true })).toThrow(
      /"shouldReconnect" and "shouldReconnectOnClose" are the same option/,
    );
  });
});

describe('debugLogger, binaryType and the event classes', () => {
  it('debug writes one line per transition to debugLogger; without debug, nothing', () => {
    const lines: unknown[][] = [];
    const h = setup({ debug: true, debugLogger: (...args) => lines.push(args) });
    h.last().open();
    expect(lines.map((l) => String(l[0]))).toEqual([
      expect.stringMatching(/^redialer\/websocket IDLE -> CONNECTING/),
      expect.stringMatching(/^redialer\/websocket CONNECTING -> READY/),
    ]);
    const quiet: unknown[] = [];
    const q = setup({ debugLogger: (...args) => quiet.push(args) });
    q.last().open();
    expect(quiet).toEqual([]);
    expect(() => setup({ debugLogger: 'console' as unknown as () => void })).toThrow(/"debugLogger"/);
  });

  it("applies 'blob' to every socket unless set, and a binaryType set before the first socket", () => {
    // Sockets that start as `ws`'s do.
    const fake = fakeWebSocketClass();
    const NodeBufferSocket = class extends fake.WebSocket {
      override binaryType = 'nodebuffer';
    };
    const h = setup({ WebSocket: NodeBufferSocket });
    expect(fake.last().binaryType).toBe('blob');
    expect(h.socket.binaryType).toBe('blob');
    const set = setup({ startClosed: true });
    set.socket.binaryType = 'arraybuffer';
    set.socket.reconnect();
    expect(set.last().binaryType).toBe('arraybuffer');
  });

  it('events the client makes are CloseEvent and ErrorEvent instances (DOM Events)', () => {
    const h = setup({ connectionTimeout: 100, minReconnectionDelay: 100 });
    const seen: Event[] = [];
    h.socket.addEventListener('error', (e) => seen.push(e as unknown as Event));
    h.socket.addEventListener('close', (e) => seen.push(e as unknown as Event));
    h.clock.advanceBy(100); // the attempt is cut: TIMEOUT, then a close
    h.last().open();
    h.socket.reconnect(4000, 'switch');
    expect(seen.map((e) => [e.constructor.name, e.type])).toEqual([
      ['ErrorEvent', 'error'],
      ['CloseEvent', 'close'],
      ['CloseEvent', 'close'],
    ]);
    expect(seen[0]).toBeInstanceOf(Event);
    expect(seen[2]).toMatchObject({ code: 4000, reason: 'switch', wasClean: true });
    expect(seen[1]).toMatchObject({ code: 1006, reason: 'timeout', wasClean: false });
    expect(new CloseEvent()).toMatchObject({ type: 'close', code: 1000, reason: '', wasClean: true });
    expect(new ErrorEvent(new Error('x'))).toMatchObject({ type: 'error', message: 'x' });
  });
});
