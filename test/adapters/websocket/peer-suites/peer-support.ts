/**
 * What the re-expressed peer suites share beyond the harness (peer-suite.ts): the client surface the
 * subjects offer, typed as a test uses it; the runtime's WebSocket installed as the global (the
 * peers' tests pass no `WebSocket` option, so the class comes from the global); a refused URL on
 * 127.0.0.1 in place of their unroutable addresses; and bounded waits.
 */
import { type MockInstance, expect, vi } from 'vitest';
import { holdRefusedPort } from '../../../support/refused-port.js';
import type { TestServer, startServer } from '../../../support/websocket/ws-server.js';
import type { PeerTestContext, SubjectClass } from './peer-suite.js';

/** An event as a test reads it. */
export interface AnyEvent {
  readonly type: string;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: string;
  readonly data?: unknown;
}

type Handler = ((event: AnyEvent) => void) | null;
type ListenerArg = ((event: AnyEvent) => void) | { handleEvent(event: AnyEvent): void };

/** The surface of the peers' ReconnectingWebSocket and redialer's, loosely typed on purpose. */
export interface Client {
  readonly readyState: number;
  readonly retryCount: number;
  readonly bufferedAmount: number;
  readonly url: string;
  readonly protocol: string;
  readonly extensions: string;
  readonly shouldReconnect?: boolean;
  readonly CONNECTING: number;
  readonly OPEN: number;
  readonly CLOSING: number;
  readonly CLOSED: number;
  binaryType: string;
  onopen: Handler;
  onclose: Handler;
  onerror: Handler;
  onmessage: Handler;
  addEventListener(type: string, listener: ListenerArg, options?: { once?: boolean }): void;
  removeEventListener(type: string, listener: ListenerArg): void;
  send(data: unknown): unknown;
  close(code?: number, reason?: string): void;
  reconnect(code?: number, reason?: string): void;
  drainQueuedMessages?: () => unknown[];
}

/** The class's statics, as the tests read them. */
export interface ClientClass {
  readonly CONNECTING: number;
  readonly OPEN: number;
  readonly CLOSING: number;
  readonly CLOSED: number;
}

/** Makes the test's client functions: `make` constructs and tracks a client of the subject. */
export function clients(context: PeerTestContext): {
  make: (url: unknown, protocols?: unknown, options?: Record<string, unknown>) => Client;
  statics: ClientClass;
} {
  const { RWS } = context;
  const track = <T>(client: T): T => context.track(client);
  return {
    make: (url, protocols, options) =>
      track(
        (options === undefined
          ? protocols === undefined
            ? new RWS(url)
            : new RWS(url, protocols)
          : new RWS(url, protocols, options)) as Client,
      ),
    statics: RWS as unknown as ClientClass,
  };
}

/** The subject's class, for a test that calls it without `new`. */
export function asFunction(RWS: SubjectClass): (...args: unknown[]) => unknown {
  return RWS as unknown as (...args: unknown[]) => unknown;
}

interface Globals {
  WebSocket?: unknown;
}

/**
 * Installs `Class` as `globalThis.WebSocket` (or removes the global when `Class` is null) until
 * the test's cleanups run. Call it first in a test, so that it is restored after the clients close.
 */
export function useGlobalWebSocket(context: PeerTestContext, Class: unknown = context.WebSocket): void {
  if (Class === undefined) throw new TypeError('useGlobalWebSocket: pass null to remove the global');
  const g = globalThis as Globals;
  const had = Object.prototype.hasOwnProperty.call(g, 'WebSocket');
  const previous = g.WebSocket;
  if (Class === null) delete g.WebSocket;
  else g.WebSocket = Class;
  context.defer(() => {
    if (had) g.WebSocket = previous;
    else delete g.WebSocket;
  });
}

/**
 * The WebSocket class of the run, recording every socket it constructs: how a test sees which class
 * a client used without reading its private socket, and when (`Date.now()`, which a fake clock sets).
 */
export function recordingWebSocket(Base: unknown): { Class: unknown; made: unknown[]; at: number[] } {
  const made: unknown[] = [];
  const at: number[] = [];
  const Class = class extends (Base as new (...args: unknown[]) => object) {
    constructor(...args: unknown[]) {
      super(...args);
      made.push(this);
      at.push(Date.now());
    }
  };
  return { Class, made, at };
}

/** A `ws://` URL on 127.0.0.1 that refuses connections (held until the test's cleanups). */
export async function refusedUrl(context: PeerTestContext): Promise<string> {
  const held = await holdRefusedPort();
  context.defer(() => held.release());
  return `ws://127.0.0.1:${String(held.port)}/`;
}

/** How most peer tests start: the runtime's WebSocket as the global, the client maker, a server of the test's own. */
export async function againstServer(
  context: PeerTestContext,
  onConnection?: Parameters<typeof startServer>[1],
): Promise<ReturnType<typeof clients> & { s: TestServer }> {
  useGlobalWebSocket(context);
  const made = clients(context);
  return { ...made, s: await context.server(onConnection) };
}

/**
 * How the peers' tests of failing connections start: as {@link againstServer}, with a refused URL;
 * `Class` is the global WebSocket (the run's unless given).
 */
export async function againstRefusedUrl(
  context: PeerTestContext,
  Class: unknown = context.WebSocket,
): Promise<ReturnType<typeof clients> & { url: string }> {
  useGlobalWebSocket(context, Class);
  const made = clients(context);
  return { ...made, url: await refusedUrl(context) };
}

/** A guard of {@link settle} (or of a suite's own `done` promise). */
export type Guard = <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void;

/** `ws.addEventListener(type, guard(listener))`: a failed assertion in `listener` fails the test. */
export function listen(ws: Client, type: string, guard: Guard, listener: (event: AnyEvent) => void): void {
  ws.addEventListener(type, guard(listener));
}

/** 'connection status constants' as both peers test it: the four readyState values, on the class and on a client. */
function expectStatusConstants(Class: ClientClass, ws: Client): void {
  expectReadyStateConstants(Class);
  expectReadyStateConstants(ws);
}

/** The four readyState values of the WebSocket API, on a class or a client. */
export function expectReadyStateConstants(target: ClientClass): void {
  expect(target.CONNECTING).toBe(0);
  expect(target.OPEN).toBe(1);
  expect(target.CLOSING).toBe(2);
  expect(target.CLOSED).toBe(3);
}

/**
 * 'level0 event listeners are kept after reconnect' as both peers test it: a client of `url` (which
 * refuses) gets its four `on…` handlers; each error checks, guarded, that all four are still the
 * ones set, and the fourth retry calls `done`.
 */
function keepsLevel0Handlers(
  make: ReturnType<typeof clients>['make'],
  url: string,
  guard: Guard,
  done: () => void,
): void {
  const ws = make(url, undefined, {
    maxRetries: 4,
    reconnectionDelayGrowFactor: 1.2,
    maxReconnectionDelay: 20,
    minReconnectionDelay: 10,
  });
  const handleOpen = (): void => undefined;
  const handleClose = (): void => undefined;
  const handleMessage = (): void => undefined;
  const handleError = guard(() => {
    expect(ws.onopen).toBe(handleOpen);
    expect(ws.onclose).toBe(handleClose);
    expect(ws.onmessage).toBe(handleMessage);
    expect(ws.onerror).toBe(handleError);
    if (ws.retryCount === 4) done();
  });
  ws.onopen = handleOpen;
  ws.onclose = handleClose;
  ws.onmessage = handleMessage;
  ws.onerror = handleError;
}

/**
 * 'enqueue messages' and 'respect maximum enqueued messages' as both peers test them: ten messages
 * sent to a client of `url` (which refuses) are held, all ten or `maxEnqueuedMessages` of them; its
 * error event checks bufferedAmount, guarded, and calls `done`.
 */
function holdsMessagesWhileFailing(
  make: ReturnType<typeof clients>['make'],
  url: string,
  maxEnqueuedMessages: number | undefined,
  guard: Guard,
  done: () => void,
): void {
  const ws = make(
    url,
    undefined,
    maxEnqueuedMessages === undefined ? { maxRetries: 0 } : { maxRetries: 0, maxEnqueuedMessages },
  );
  const count = 10;
  const message = 'message';
  for (let i = 0; i < count; i++) ws.send(message);
  ws.onerror = guard(() => {
    expect(ws.bufferedAmount).toBe(message.length * (maxEnqueuedMessages ?? count));
    done();
  });
}

/** The two queue tests of both peers, by name: how many messages the client may hold. */
const QUEUE_TESTS = [
  { name: 'enqueue messages', maxEnqueuedMessages: undefined },
  { name: 'respect maximum enqueued messages', maxEnqueuedMessages: 2 },
] as const;

/**
 * The level2 tests' listener that must never run: added for an unknown type and twice for open
 * (an EventTarget keeps one of the two), then removed from open and from another unknown type.
 */
function addThenRemove(ws: Client, unwanted: Parameters<Client['addEventListener']>[1]): void {
  ws.addEventListener('unknown1', unwanted);
  ws.addEventListener('open', unwanted);
  ws.addEventListener('open', unwanted);
  ws.removeEventListener('open', unwanted);
  ws.removeEventListener('unknown2', unwanted);
}

/**
 * The tests that both peers' suites hold (partysocket's began as a copy of reconnecting-websocket's),
 * written once: each suite calls them under the peer's own names, with its own `done`.
 */
export const bothPeers = {
  expectStatusConstants,
  keepsLevel0Handlers,
  holdsMessagesWhileFailing,
  QUEUE_TESTS,
  addThenRemove,
};

/** A silenced spy on `console[method]`, restored after the test. */
export function spyOnConsole(
  context: PeerTestContext,
  method: 'log' | 'warn' | 'debug',
): MockInstance<typeof console.log> {
  const spy = vi.spyOn(console, method).mockReturnValue();
  context.defer(() => {
    spy.mockRestore();
  });
  return spy;
}

/** Pins `Math.random` at `value` until the test's cleanups. */
export function pinMathRandom(context: PeerTestContext, value: number): void {
  const random = vi.spyOn(Math, 'random').mockReturnValue(value);
  context.defer(() => {
    random.mockRestore();
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The shape of the peer's callback tests, bounded: `body` calls `done()` or `fail(error)`; `guard`
 * wraps a listener so that a failed assertion in it fails the test (rather than being thrown into
 * the subject's event dispatch). Rejects after `ms` if neither was called.
 */
export function settle(
  ms: number,
  body: (
    done: () => void,
    fail: (error: unknown) => void,
    guard: <A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void,
  ) => void | Promise<void>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`not settled within ${String(ms)} ms`));
    }, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const fail = (error: unknown): void => {
      clearTimeout(timer);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const guard =
      <A extends unknown[]>(fn: (...args: A) => void) =>
      (...args: A): void => {
        try {
          fn(...args);
        } catch (error) {
          fail(error);
        }
      };
    try {
      const result = body(done, fail, guard);
      if (result instanceof Promise) result.catch(fail);
    } catch (error) {
      fail(error);
    }
  });
}

/**
 * Calls `ws.reconnect()` and resolves at its next open event (rejects after 5 s); `options` are the
 * open listener's, where a test gives them.
 */
export function reconnectUntilOpen(ws: Client, options?: { once: boolean }): Promise<void> {
  const opened = nextOpen(ws, options);
  ws.reconnect();
  return opened;
}

/** Resolves at the next open event of `ws` (rejects after 5 s); `options` are the listener's. */
export function nextOpen(ws: Client, options?: { once: boolean }): Promise<void> {
  return settle(5000, (done) => {
    const onOpen = (): void => {
      done();
    };
    if (options === undefined) ws.addEventListener('open', onOpen);
    else ws.addEventListener('open', onOpen, options);
  });
}

/** Resolves once `predicate` holds (polled every 5 ms); rejects after `ms` naming `what`. */
export async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${String(ms)} ms waiting for ${what}`);
    await sleep(5);
  }
}

/** The text of a message event's data: a string, a Blob, a Buffer or an ArrayBuffer. */
export async function textOf(data: unknown): Promise<string> {
  if (typeof data === 'string') return data;
  if (data instanceof Blob) return data.text();
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  return String(data);
}

/** Calls `listener` with the text of each message `ws` receives (a Blob's once it is read). */
export function onText(ws: Client, listener: (text: string) => void): void {
  ws.addEventListener('message', (event: AnyEvent) => {
    void textOf(event.data).then(listener);
  });
}

/** A server's connection handler that closes the first connection `ms` after it opens. */
export function closesFirstConnectionAfter(ms: number): NonNullable<Parameters<typeof startServer>[1]> {
  return (client, n) => {
    if (n === 1)
      setTimeout(() => {
        client.close();
      }, ms);
  };
}

/** A server's connection handler that sends every message back to its client as text. */
export const echoBack: NonNullable<Parameters<typeof startServer>[1]> = (client) => {
  client.on('message', (data) => {
    client.send((data as Buffer).toString());
  });
};
