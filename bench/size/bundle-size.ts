/**
 * Bundle sizes, measured the same way for every redialer subpath and for the peers: esbuild bundles an
 * entry that re-exports the whole module (`export * as entry from …`, so nothing can be tree-shaken
 * away), minified, ESM; the size is the minified output gzipped at level 9. redialer is measured with
 * rxjs external (what it adds to an app that has rxjs) and with rxjs bundled (everything it pulls in).
 * Optional peers (@grpc/grpc-js, ws, react, bullmq, ioredis, @opentelemetry/api) and Node built-ins
 * are always external. `npm run size` writes bench/results/bundle-size.json and the sizes block of
 * BENCHMARKS.md; test/package/bundle-size.test.ts checks each subpath against its budget.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** One measured bundle. */
export interface BundleSize {
  /** `redialer/retry`, or a peer's package name. */
  readonly name: string;
  /** Minified bytes. */
  readonly minified: number;
  /** Minified, then gzipped (level 9). */
  readonly gzip: number;
}

/** A redialer subpath, measured with rxjs external and with rxjs bundled. */
export interface SubpathSize {
  readonly subpath: string;
  /** `node` for the subpaths that only run on Node (their built-ins are external either way). */
  readonly platform: 'browser' | 'node';
  readonly rxjsExternal: BundleSize;
  readonly withRxjs: BundleSize;
}

/** An app's bundle: one thing used the way a page uses it, tree-shaken, everything it pulls bundled. */
export interface AppSize extends BundleSize {
  /** What the app uses, for the table. */
  readonly uses: string;
}

/** The whole measurement. */
export interface BundleSizeReport {
  readonly esbuild: string;
  readonly subpaths: readonly SubpathSize[];
  readonly peers: readonly (BundleSize & { readonly version: string })[];
  /** Apps as a page bundles them (rxjs resolved as bundlers resolve it by default), redialer's and the peers'. */
  readonly apps: readonly AppSize[];
}

/**
 * The app bundles: each imports one thing and uses it the way a page does, so that the bundler keeps
 * only what that use reaches. `{from}` is a redialer subpath (resolved to dist/ through the exports
 * map) or a peer's package name. The three WebSocket apps make the same calls.
 */
export const APPS: readonly {
  readonly name: string;
  readonly uses: string;
  readonly from: string;
  readonly code: string;
}[] = [
  {
    name: 'redialer',
    uses: '`ConnectionManager` + `state$`',
    from: 'redialer',
    code: `import { ConnectionManager } from {from};
const manager = new ConnectionManager({ connector: () => { throw new Error('none'); } });
manager.state$.subscribe((s) => console.log(s.state));
manager.connect();`,
  },
  {
    name: 'redialer/websocket',
    uses: '`ReconnectingWebSocket`',
    from: 'redialer/websocket',
    code: 'import { ReconnectingWebSocket as Socket } from {from};\n{socket}',
  },
  {
    name: 'redialer/sse',
    uses: '`ReconnectingEventSource`',
    from: 'redialer/sse',
    code: `import { ReconnectingEventSource } from {from};
const source = new ReconnectingEventSource('http://127.0.0.1:1/events');
source.addEventListener('message', (e) => console.log(e.data));`,
  },
  {
    name: 'partysocket',
    uses: '`WebSocket`',
    from: 'partysocket',
    code: 'import { WebSocket as Socket } from {from};\n{socket}',
  },
  {
    name: 'reconnecting-websocket',
    uses: 'its default export',
    from: 'reconnecting-websocket',
    code: 'import Socket from {from};\n{socket}',
  },
];

/** What every WebSocket app does with its socket. */
const SOCKET_USE = `const socket = new Socket('ws://127.0.0.1:1/');
socket.addEventListener('message', (e) => console.log(e.data));
socket.send('hello');`;

/** The peers measured beside redialer, each as its own package entry (all devDependencies). */
export const PEERS = ['reconnecting-websocket', 'p-retry', 'cockatiel'] as const;

/** Peer dependencies that are never bundled, and the subpaths that need Node. */
// Every bundle resolves rxjs the way a browser bundler does (its tree-shakeable ESM build); on Node's
// `node` condition rxjs resolves to its CommonJS build, which no bundler can shake.
const ALWAYS_EXTERNAL = [
  '@grpc/grpc-js',
  'ws',
  'react',
  'react-dom',
  'bullmq',
  'ioredis',
  '@opentelemetry/api',
  'node:*',
];
const NODE_SUBPATHS = new Set(['redialer/grpc', 'redialer/testing/node', 'redialer/bullmq', 'redialer/redis']);

async function bundle(
  name: string,
  entry: string,
  resolveDir: string,
  external: string[],
  contents = `export * as entry from ${JSON.stringify(entry)};\n`,
): Promise<BundleSize> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { name, minified: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

/** Measures every subpath of the built package (`root`/dist, from its exports map) and the peers. */
export async function measureBundleSizes(root: string): Promise<BundleSizeReport> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  const subpaths: SubpathSize[] = [];
  const files = new Map<string, string>();
  for (const [key, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object') continue;
    const subpath = key === '.' ? 'redialer' : `redialer/${key.slice(2)}`;
    const platform = NODE_SUBPATHS.has(subpath) ? 'node' : 'browser';
    const file = resolve(root, target.default);
    files.set(subpath, file);
    subpaths.push({
      subpath,
      platform,
      rxjsExternal: await bundle(subpath, file, root, [...ALWAYS_EXTERNAL, 'rxjs']),
      withRxjs: await bundle(subpath, file, root, ALWAYS_EXTERNAL),
    });
  }
  const peers = [];
  for (const name of PEERS) {
    const { version } = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    };
    peers.push({ ...(await bundle(name, name, root, [])), version });
  }
  const apps: AppSize[] = [];
  for (const app of APPS) {
    const contents = app.code
      .replace('{from}', JSON.stringify(files.get(app.from) ?? app.from))
      .replace('{socket}', SOCKET_USE);
    apps.push({ ...(await bundle(app.name, app.from, root, ALWAYS_EXTERNAL, `${contents}\n`)), uses: app.uses });
  }
  const { version: esbuild } = JSON.parse(readFileSync(join(root, 'node_modules/esbuild/package.json'), 'utf8')) as {
    version: string;
  };
  return { esbuild, subpaths, peers, apps };
}
