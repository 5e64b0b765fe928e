/**
 * The published types compile for every kind of TypeScript consumer: Node with and without
 * @types/node, a browser project (lib dom + es2022), moduleResolution nodenext and bundler, a
 * CommonJS `.cts` file and a project that uses `using`. Each consumer is a small project against the
 * packed tarball, checked with `skipLibCheck: false`, so every shipped declaration is compiled.
 *
 * TypeScript does not depend on the Node major, so this runs once per CI (on the Node that runs
 * `npm test`); the other majors' runs set REDIALER_PACKAGE_CHECKS=skip.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packedForSuite } from '../support/packed-package.js';
import { formatDiagnostics, typeCheckProject } from '../support/type-check.js';
import { EVERY_RWS_OPTION_SOURCE } from '../support/websocket/rws-options.js';

const skip = process.env['REDIALER_PACKAGE_CHECKS'] === 'skip';
if (skip) console.log('consumer-types: skipped (REDIALER_PACKAGE_CHECKS=skip; runs once per CI)');

/** What every browser-safe subpath offers, used the way a consumer would. */
const BROWSER_SAFE = `
import { ConnectionManager, grpcBackoff, permanent, type ConnectionSnapshot, type Connector } from 'redialer';
import { createFakeConnector, createVirtualClock } from 'redialer/testing';
import { retry, retryBackoff, HttpResponseError, tokenBucketBudget, type RetryOptions } from 'redialer/retry';
import { ReconnectingWebSocket } from 'redialer/websocket';
import { simulateStorm } from 'redialer/simulator';
import { NEVER } from 'rxjs';

const connector: Connector<string> = () => NEVER;
const manager = new ConnectionManager({ connector, backoff: grpcBackoff({ initialBackoff: 500 }) });
manager.state$.subscribe((s: ConnectionSnapshot<string>) => {
  if (s.state === 'TRANSIENT_FAILURE') console.log(s.nextAttemptAt);
  if (s.state === 'READY') console.log(s.connection.length);
});
manager.shutdown();
const clock = createVirtualClock();
const fake = createFakeConnector((attempt) => { attempt.fail(permanent(new Error('no'))); });
console.log(clock.pendingTimers(), fake.attempts.length);
const options: RetryOptions = { maxAttempts: 3, budget: tokenBucketBudget({ maxTokens: 10, tokenRatio: 0.1 }) };
export const ok: Promise<number> = retry(async () => 1, options);
export const operator = retryBackoff({ maxAttempts: 2 });
export const error = new HttpResponseError({ status: 503, headers: {} });
export const socketType: typeof ReconnectingWebSocket = ReconnectingWebSocket;
export const storm = simulateStorm;
`;

const NODE_ONLY = `
import { ManagedChannel, channelState } from 'redialer/grpc';
import { startFaultProxy } from 'redialer/testing/node';
import { admission, drain, drainHttp2 } from 'redialer/server';
export const node = [ManagedChannel, channelState, startFaultProxy, admission, drain, drainHttp2] as const;
`;

const USING = `
import { ConnectionManager } from 'redialer';
import { NEVER } from 'rxjs';
export function scoped(): void {
  using manager = new ConnectionManager({ connector: () => NEVER });
  manager.connect();
}
`;

const CJS = `
import { ConnectionManager, isPermanentError } from 'redialer';
import { retry } from 'redialer/retry';
import rxjs = require('rxjs');
const manager = new ConnectionManager({ connector: () => rxjs.NEVER });
manager.shutdown();
export const checks = [isPermanentError, retry] as const;
`;

/**
 * Application code written against partysocket 1.3's types (partysocket/ws), every part of its surface
 * used the way such code uses it. It compiles against partysocket itself, and with the import line
 * switched to redialer/websocket (the drop-in claim: switching is one import line).
 */
const PARTYSOCKET_APP = `
import ReconnectingWebSocket, {
  CloseEvent,
  ErrorEvent,
  type Message,
  type Options,
  type ProtocolsProvider,
  type UrlProvider,
  type WebSocketEventMap,
} from 'partysocket/ws';

const options: Options = {
  WebSocket: globalThis.WebSocket,
${EVERY_RWS_OPTION_SOURCE}
  debugLogger: (...args: any[]) => console.log(...args),
  shouldReconnectOnClose: (event: CloseEvent) => event.code !== 4000,
};
const url: UrlProvider = async () => 'wss://example.test/feed';
const protocols: ProtocolsProvider = async () => ['v2', 'v1'];
export const ws = new ReconnectingWebSocket(url, protocols, options);
new ReconnectingWebSocket('wss://example.test/');
new ReconnectingWebSocket(() => 'wss://example.test/', null);
new ReconnectingWebSocket('wss://example.test/', 'v1', {});

ws.onopen = (event: Event) => console.log(event.type);
ws.onmessage = (event: MessageEvent) => console.log(event.data);
ws.onclose = (event: CloseEvent) => console.log(event.code, event.reason, event.wasClean);
ws.onerror = (event: ErrorEvent) => console.log(event.message, event.error);
ws.addEventListener('message', (event) => console.log(event.data));
ws.addEventListener('close', (event) => console.log(event.code));
ws.addEventListener('error', (event) => console.log(event.message));
const onOpen = (): void => undefined;
ws.addEventListener('open', onOpen, { once: true });
ws.removeEventListener('open', onOpen);
export const listener = (event: WebSocketEventMap['close']): number => event.code;

const queue: Message[] = [];
if (!ws.send('hello')) queue.push('hello');
export const sent: boolean = ws.send(new Uint8Array([1, 2]));
export const drained: Message[] = ws.drainQueuedMessages();
export const should: boolean = ws.shouldReconnect;
export const numbers: number[] = [
  ws.readyState, ws.retryCount, ws.bufferedAmount, ws.CONNECTING, ws.OPEN, ws.CLOSING, ws.CLOSED,
  ReconnectingWebSocket.CONNECTING, ReconnectingWebSocket.OPEN, ReconnectingWebSocket.CLOSING, ReconnectingWebSocket.CLOSED,
];
export const strings: string[] = [ws.url, ws.protocol, ws.extensions];
ws.binaryType = 'arraybuffer';
ws.close();
ws.close(1000, 'bye');
ws.reconnect();
ws.reconnect(4000, 'switch');
export const made = [new CloseEvent(1000, 'bye', ws), new ErrorEvent(new Error('x'), ws)];
export function keep(socket: ReconnectingWebSocket): ReconnectingWebSocket { return socket; }
`;

/** The same for reconnecting-websocket 4.4's types. */
const RWS_APP = `
import ReconnectingWebSocket, {
  type CloseEvent,
  type ErrorEvent,
  type Event,
  type Message,
  type Options,
  type UrlProvider,
} from 'reconnecting-websocket';

const options: Options = {
  WebSocket: globalThis.WebSocket,
${EVERY_RWS_OPTION_SOURCE}
};
const url: UrlProvider = () => Promise.resolve('wss://example.test/feed');
export const ws = new ReconnectingWebSocket(url, ['v1'], options);
new ReconnectingWebSocket('wss://example.test/', 'v1');
new ReconnectingWebSocket('wss://example.test/', undefined, {});

ws.onopen = (event: Event) => console.log(event.type);
ws.onmessage = (event: MessageEvent) => console.log(event.data);
ws.onclose = (event: CloseEvent) => console.log(event.code, event.reason, event.wasClean);
ws.onerror = (event: ErrorEvent) => console.log(event.message, event.error);
ws.addEventListener('message', (event: MessageEvent) => console.log(event.data));
ws.addEventListener('close', (event: CloseEvent) => console.log(event.code));
ws.addEventListener('open', (event: Event) => console.log(event.type));
const onError = (event: ErrorEvent): void => console.log(event.message);
ws.addEventListener('error', onError);
ws.removeEventListener('error', onError);

const pending: Message[] = [];
pending.push('later');
ws.send('hello');
ws.send(new ArrayBuffer(2));
export const numbers: number[] = [ws.readyState, ws.retryCount, ws.bufferedAmount, ReconnectingWebSocket.OPEN];
export const strings: string[] = [ws.url, ws.protocol, ws.extensions];
ws.binaryType = 'arraybuffer';
ws.close(1000, 'bye');
ws.reconnect(4000, 'switch');
export function keep(socket: ReconnectingWebSocket): ReconnectingWebSocket { return socket; }
`;

/** `app` with its import of `peer` switched to redialer/websocket, and nothing else changed. */
function switched(app: string, peer: string): string {
  const line = `} from '${peer}';`;
  if (!app.includes(line)) throw new Error(`the app does not import ${peer}`);
  return app.replace(line, "} from 'redialer/websocket';");
}

interface Consumer {
  readonly name: string;
  readonly compilerOptions: Record<string, unknown>;
  readonly files: Record<string, string>;
  readonly links: readonly string[];
  readonly type?: 'module' | 'commonjs';
}

const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022' };
/** A browser project that a bundler builds. */
const bundler = { ...strict, module: 'preserve', moduleResolution: 'bundler', lib: ['dom', 'es2022'], types: [] };

/**
 * A peer's app as a bundler project, twice: against the peer itself (`peerModule` is the module it
 * imports, in the package of that name), and with that import switched to redialer/websocket, where it
 * needs only rxjs.
 */
function againstPeerAndSwitched(
  app: string,
  peerModule: string,
  names: { readonly peer: string; readonly switched: string },
): Consumer[] {
  const peerPackage = peerModule.split('/')[0] ?? peerModule;
  return [
    { name: names.peer, compilerOptions: bundler, files: { 'index.ts': app }, links: [peerPackage] },
    {
      name: names.switched,
      compilerOptions: bundler,
      files: { 'index.ts': switched(app, peerModule) },
      links: ['rxjs'],
    },
  ];
}

const CONSUMERS: readonly Consumer[] = [
  {
    name: 'Node, nodenext, with @types/node',
    compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'], types: ['node'] },
    files: { 'index.ts': BROWSER_SAFE, 'node.ts': NODE_ONLY },
    links: ['rxjs', '@types/node', '@grpc/grpc-js', 'undici-types'],
    type: 'module',
  },
  {
    // TypeScript's default lib for the target (es2022 and dom): rxjs's own types need dom or @types/node.
    name: 'Node, nodenext, without @types/node',
    compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext', types: [] },
    files: { 'index.ts': BROWSER_SAFE },
    links: ['rxjs'],
    type: 'module',
  },
  {
    name: 'browser, bundler, lib dom + es2022',
    compilerOptions: { ...bundler, exactOptionalPropertyTypes: true },
    files: { 'index.ts': BROWSER_SAFE },
    links: ['rxjs'],
  },
  {
    name: 'CommonJS .cts, nodenext, with @types/node',
    compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'], types: ['node'] },
    files: { 'index.cts': CJS },
    links: ['rxjs', '@types/node', 'undici-types'],
    type: 'commonjs',
  },
  {
    name: '`using`, bundler, lib dom + es2022 + esnext.disposable',
    compilerOptions: { ...bundler, lib: ['dom', 'es2022', 'esnext.disposable'] },
    files: { 'index.ts': USING },
    links: ['rxjs'],
  },
  ...againstPeerAndSwitched(PARTYSOCKET_APP, 'partysocket/ws', {
    peer: 'a partysocket 1.3 app, against partysocket itself (the code is valid partysocket code)',
    switched: 'the same partysocket app with its import switched to redialer/websocket',
  }),
  ...againstPeerAndSwitched(RWS_APP, 'reconnecting-websocket', {
    peer: 'a reconnecting-websocket 4.4 app, against reconnecting-websocket itself',
    switched: 'the same reconnecting-websocket app with its import switched to redialer/websocket',
  }),
];

const packed = packedForSuite(skip);

describe.skipIf(skip)('the packed types compile for each kind of consumer', () => {
  it.each(CONSUMERS.map((c) => [c.name, c] as const))(
    '%s',
    (_name, consumer) => {
      const pkg = packed();
      const dir = join(pkg.dir, `consumer-${String(CONSUMERS.indexOf(consumer))}`);
      mkdirSync(dir, { recursive: true });
      for (const name of consumer.links) pkg.link(name);
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: consumer.type ?? 'module' }),
      );
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: consumer.compilerOptions, files: Object.keys(consumer.files) }, null, 2),
      );
      for (const [file, text] of Object.entries(consumer.files)) writeFileSync(join(dir, file), text);
      expect(formatDiagnostics(typeCheckProject(dir))).toBe('');
    },
    120_000,
  );
});
