/**
 * The harness that runs a peer's own test suite, re-expressed here, against the peer package and
 * against redialer in the same run. Each test is written once, against a `ReconnectingWebSocket`
 * class handed to it, and registered once per subject. Where a subject is known to fail a test
 * (the peer itself, or redialer on purpose), the table of known differences says so with the
 * reason; such a test runs as `it.fails`, so it fails the run again the day it starts to pass.
 */
import partysocketModule from 'partysocket/ws';
import rwsModule from 'reconnecting-websocket';
import { afterEach, describe, expect, it } from 'vitest';
import { ReconnectingWebSocket } from '../../../../src/adapters/websocket/index.js';
import { ClientWebSocket } from '../../../support/websocket/client-websocket.js';
import { type TestServer, startServer } from '../../../support/websocket/ws-server.js';

/** The class a test constructs: the shape the three packages share, loosely typed on purpose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SubjectClass = new (url: any, protocols?: any, options?: any) => any;

/** Who runs a suite. */
export type SubjectName = 'reconnecting-websocket' | 'partysocket' | 'redialer';

// reconnecting-websocket ships CommonJS typed as an ES module: the class is the default export at
// run time, and `default.default` to the type checker.
const RWS = ((rwsModule as unknown as { default?: unknown }).default ?? rwsModule) as SubjectClass;
const Partysocket = partysocketModule as unknown as SubjectClass;

/**
 * The peers remove their listeners from a socket they abandon while it is still connecting; `ws` then
 * emits 'error' to nobody, which throws (an uncaught exception in the application, not a test
 * result). A no-op listener of the harness keeps that out of the comparison. reconnecting-websocket
 * needs it; partysocket 1.3 adds one of its own.
 */
const QuietWebSocket = class extends (ClientWebSocket as unknown as new (...args: unknown[]) => EventTarget) {
  constructor(...args: unknown[]) {
    super(...args);
    this.addEventListener('error', () => undefined);
  }
} as unknown as typeof ClientWebSocket;

/** A subject: its class and the WebSocket class its tests should hand it (or install globally). */
export interface Subject {
  readonly name: SubjectName;
  readonly Class: SubjectClass;
  readonly WebSocket: typeof ClientWebSocket;
}

export const SUBJECTS: Readonly<Record<SubjectName, Subject>> = {
  'reconnecting-websocket': { name: 'reconnecting-websocket', Class: RWS, WebSocket: QuietWebSocket },
  partysocket: { name: 'partysocket', Class: Partysocket, WebSocket: ClientWebSocket },
  redialer: { name: 'redialer', Class: ReconnectingWebSocket, WebSocket: ClientWebSocket },
};

/** A subject that fails a test, and why. */
export interface KnownDifference {
  /** Which subject fails it: the peer itself (its own test, on this runtime), or redialer. */
  readonly fails: 'peer' | 'redialer' | 'both';
  /** One line: why, and for redialer the option that gives the peer's behaviour (docs/websocket.md). */
  readonly reason: string;
}

/** What each test gets: the class under test and cleanups that run after it, whatever its result. */
export interface PeerTestContext {
  readonly subject: Subject;
  /** The class under test. */
  readonly RWS: SubjectClass;
  /** The WebSocket class to pass as the `WebSocket` option (or to install as the global). */
  readonly WebSocket: typeof ClientWebSocket;
  /** Keeps `client` to be closed after the test; returns it. */
  track<T>(client: T): T;
  /** Runs `cleanup` after the test (last registered, first run). */
  defer(cleanup: () => unknown): void;
  /** A real `ws` server on 127.0.0.1 on an ephemeral port, stopped after the test. */
  server(onConnection?: Parameters<typeof startServer>[1]): Promise<TestServer>;
}

export type PeerTest = (context: PeerTestContext) => Promise<void> | void;

interface Registered {
  readonly name: string;
  readonly body: PeerTest;
  readonly timeout: number | undefined;
}

/**
 * Declares one peer suite: `define` registers the peer's tests with `test(name, body)`; each runs
 * against the peer and against redialer. `known` maps a test's name to the subject that fails it.
 */
export function peerSuite(
  title: string,
  peer: Exclude<SubjectName, 'redialer'>,
  known: Readonly<Record<string, KnownDifference>>,
  define: (test: (name: string, body: PeerTest, timeout?: number) => void) => void,
): void {
  const tests: Registered[] = [];
  define((name, body, timeout) => {
    if (tests.some((t) => t.name === name)) throw new Error(`peer suite ${title}: two tests named "${name}"`);
    tests.push({ name, body, timeout });
  });

  for (const subject of [SUBJECTS[peer], SUBJECTS.redialer]) {
    describe(`${title} on ${subject.name}`, () => {
      const cleanups: (() => unknown)[] = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });
      const context: PeerTestContext = {
        subject,
        RWS: subject.Class,
        WebSocket: subject.WebSocket,
        track(client) {
          cleanups.push(() => {
            const c = client as { onclose: unknown; close(): void };
            c.onclose = null;
            c.close();
          });
          return client;
        },
        defer(cleanup) {
          cleanups.push(cleanup);
        },
        async server(onConnection) {
          const s = await startServer(0, onConnection);
          cleanups.push(() => s.stop());
          return s;
        },
      };
      for (const { name, body, timeout } of tests) {
        const difference = known[name];
        const side = subject.name === 'redialer' ? 'redialer' : 'peer';
        const fails = difference !== undefined && (difference.fails === side || difference.fails === 'both');
        if (fails) it.fails(`${name} (fails here: ${difference.reason})`, () => body(context), timeout);
        else it(name, () => body(context), timeout);
      }
    });
  }

  it(`${title}: every known difference names a test of the suite`, () => {
    expect(Object.keys(known).filter((name) => !tests.some((t) => t.name === name))).toEqual([]);
  });
}
