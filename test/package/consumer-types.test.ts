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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, type PackedPackage } from '../support/packed-package.js';
import { formatDiagnostics, typeCheckProject } from '../support/type-check.js';

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

interface Consumer {
  readonly name: string;
  readonly compilerOptions: Record<string, unknown>;
  readonly files: Record<string, string>;
  readonly links: readonly string[];
  readonly type?: 'module' | 'commonjs';
}

const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022' };
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
    compilerOptions: {
      ...strict,
      module: 'preserve',
      moduleResolution: 'bundler',
      lib: ['dom', 'es2022'],
      types: [],
      exactOptionalPropertyTypes: true,
    },
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
    compilerOptions: {
      ...strict,
      module: 'preserve',
      moduleResolution: 'bundler',
      lib: ['dom', 'es2022', 'esnext.disposable'],
      types: [],
    },
    files: { 'index.ts': USING },
    links: ['rxjs'],
  },
];

let packed: PackedPackage | undefined;
beforeAll(async () => {
  if (!skip) packed = await packPackage();
}, 120_000);
afterAll(() => {
  packed?.remove();
});

describe.skipIf(skip)('the packed types compile for each kind of consumer', () => {
  it.each(CONSUMERS.map((c) => [c.name, c] as const))(
    '%s',
    (_name, consumer) => {
      const pkg = packed!;
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
