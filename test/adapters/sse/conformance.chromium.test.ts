/**
 * The same bytes, four clients: every parser case of the text/event-stream format (WHATWG HTML
 * §9.2.6) served by one Node server on 127.0.0.1 and read by redialer's ReconnectingEventSource in
 * Node, the same class bundled into headless Chromium, Chromium's own EventSource, and the
 * `eventsource` npm package (4.x) in Node. Each client records the events its first stream
 * dispatched (type, data, lastEventId) and is closed at its first error (the stream's end). Chromium's
 * native EventSource is the reference: redialer must agree with it on every case, in Node and in the
 * browser. The table of all four is printed. Skipped, with a notice, where no Chromium is installed.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { EventSource as NpmEventSource } from 'eventsource';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconnectingEventSource } from '../../../src/adapters/sse/index.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../../support/chromium.js';

noticeIfNoChromium('the event-stream conformance table in Chromium');

/** Each case: its bytes, written in the given pieces (a split inside a line, a CRLF split in two…). */
const CASES: readonly { readonly name: string; readonly pieces: readonly string[] }[] = [
  { name: 'LF', pieces: ['data: a\n\n'] },
  { name: 'CRLF', pieces: ['data: a\r\n\r\n'] },
  { name: 'CR', pieces: ['data: a\r\rdata: b\r\r'] },
  { name: 'CRLF split between chunks', pieces: ['data: a\r', '\n\r', '\ndata: b\n\n'] },
  { name: 'mixed line ends', pieces: ['data: a\r\ndata: b\rdata: c\n\n'] },
  { name: 'leading BOM', pieces: ['\uFEFFdata: a\n\n'] },
  { name: 'BOM in data', pieces: ['data: \uFEFFa\n\n'] },
  { name: 'multi-line data', pieces: ['data: a\ndata: b\n\n'] },
  { name: 'two spaces after the colon', pieces: ['data:  a\n\n'] },
  { name: 'no space after the colon', pieces: ['data:a\n\n'] },
  { name: 'field without colon', pieces: ['data\n\n'] },
  { name: 'two empty data lines', pieces: ['data\ndata\n\n'] },
  { name: 'comments', pieces: [': hello\ndata: a\n: bye\n\n'] },
  { name: 'comment-only block', pieces: [': ping\n\ndata: after\n\n'] },
  { name: 'event without data', pieces: ['event: x\n\ndata: after\n\n'] },
  { name: 'named event', pieces: ['event: tick\ndata: 1\n\n'] },
  { name: 'type resets', pieces: ['event: tick\ndata: 1\n\ndata: 2\n\n'] },
  { name: 'empty event field', pieces: ['event:\ndata: 1\n\n'] },
  { name: 'id persists', pieces: ['id: 7\ndata: a\n\ndata: b\n\n'] },
  { name: 'id without data moves the cursor', pieces: ['data: a\n\nid: 9\n\ndata: b\n\n'] },
  { name: 'id with NUL ignored', pieces: ['id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n'] },
  { name: 'empty id resets', pieces: ['id: 4\ndata: a\n\nid\ndata: b\n\n'] },
  { name: 'retry digits only, then data', pieces: ['retry: 15s\nretry: 1500\ndata: a\n\n'] },
  { name: 'unknown field', pieces: ['foo: bar\ndata: a\n\n'] },
  { name: 'field name case', pieces: ['Data: a\ndata: b\n\n'] },
  { name: 'incomplete event at the end', pieces: ['data: a\n\ndata: b\n'] },
  { name: 'colon in the value', pieces: ['data: a: b\n\n'] },
  { name: 'split inside a field name', pieces: ['da', 'ta: a\n', '\n'] },
  { name: 'UTF-8 split inside a character', pieces: ['data: é', '\n\n'] },
];

const TYPES = ['message', 'tick', 'x'] as const;
type Seen = readonly (readonly [string, string, string])[];

/** Serves case `n` at /case/n (its pieces 5 ms apart, then the end), an empty page at /. */
async function startServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const match = /^\/case\/(\d+)/.exec(req.url ?? '');
    const found = match === null ? undefined : CASES[Number(match[1])];
    if (found === undefined) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>sse</title>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    const bytes = found.pieces.map((piece) => Buffer.from(piece, 'utf8'));
    // The UTF-8 case splits inside 'é' (two bytes): one byte in each chunk.
    if (found.name.startsWith('UTF-8')) {
      const all = Buffer.concat(bytes);
      const at = all.indexOf(0xc3) + 1;
      bytes.splice(0, bytes.length, all.subarray(0, at), all.subarray(at));
    }
    let i = 0;
    const next = (): void => {
      const chunk = bytes[i++];
      if (chunk === undefined) {
        res.end();
        return;
      }
      res.write(chunk);
      setTimeout(next, 5);
    };
    next();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}

/** Reads one case with an EventSource-like class in Node: the events until the first error. */
function readWith(
  make: (url: string) => {
    addEventListener(type: string, listener: (event: Event) => void): void;
    close(): void;
  },
  url: string,
): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const seen: [string, string, string][] = [];
    const source = make(url);
    const timer = setTimeout(() => {
      source.close();
      reject(new Error(`no error event from ${url} within 5 s`));
    }, 5000);
    for (const type of TYPES) {
      source.addEventListener(type, (event) => {
        const message = event as MessageEvent<string>;
        seen.push([message.type, message.data, message.lastEventId]);
      });
    }
    source.addEventListener('error', () => {
      clearTimeout(timer);
      source.close();
      resolve(seen);
    });
  });
}

/** The same in the page, with `ctor` ('EventSource' or the bundled 'ReconnectingEventSource'). */
function readInPage(page: Page, ctor: string, url: string): Promise<Seen> {
  return page.evaluate(
    ([name, target, types]) =>
      new Promise<Seen>((resolve, reject) => {
        const Ctor = (globalThis as unknown as Record<string, new (url: string) => EventSource>)[name];
        if (Ctor === undefined) throw new Error(`no ${name} in the page`);
        const seen: [string, string, string][] = [];
        const source = new Ctor(target);
        const timer = setTimeout(() => {
          source.close();
          reject(new Error(`no error event within 5 s`));
        }, 5000);
        for (const type of types) {
          source.addEventListener(type, (event) => {
            const message = event as MessageEvent<string>;
            seen.push([message.type, message.data, message.lastEventId]);
          });
        }
        source.addEventListener('error', () => {
          clearTimeout(timer);
          source.close();
          resolve(seen);
        });
      }),
    [ctor, url, TYPES] as const,
  );
}

describe.skipIf(!hasChromium)('text/event-stream conformance: redialer, Chromium, eventsource', () => {
  let dir: string | undefined;
  let context: BrowserContext | undefined;
  let server: Server | undefined;
  let origin = '';
  let page: Page;

  beforeAll(async () => {
    ({ server, origin } = await startServer());
    dir = await mkdtemp(join(tmpdir(), 'redialer-sse-'));
    const entry = fileURLToPath(new URL('../../../src/adapters/sse/index.ts', import.meta.url));
    const bundle = await build({
      stdin: {
        contents: `import { ReconnectingEventSource } from ${JSON.stringify(entry)}; globalThis.ReconnectingEventSource = ReconnectingEventSource;`,
        resolveDir: dir,
      },
      bundle: true,
      format: 'iife',
      platform: 'browser',
      write: false,
    });
    context = await launchChromium(join(dir, 'profile'));
    page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.addScriptTag({ content: bundle.outputFiles[0]?.text ?? '' });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('every case: redialer in Node and in Chromium dispatch what Chromium dispatches', async () => {
    const rows: string[] = [];
    const differences: string[] = [];
    for (const [n, { name }] of CASES.entries()) {
      const url = `${origin}/case/${String(n)}`;
      const chromium = await readInPage(page, 'EventSource', url);
      const inBrowser = await readInPage(page, 'ReconnectingEventSource', url);
      const inNode = await readWith((u) => new ReconnectingEventSource(u), url);
      const npm = await readWith((u) => new NpmEventSource(u), url);
      const show = (seen: Seen): string => JSON.stringify(seen.map(([type, data, id]) => `${type}:${data}#${id}`));
      const verdict = (seen: Seen): string => (JSON.stringify(seen) === JSON.stringify(chromium) ? 'same' : show(seen));
      rows.push(`| ${name} | ${show(chromium)} | ${verdict(inNode)} | ${verdict(inBrowser)} | ${verdict(npm)} |`);
      if (JSON.stringify(inNode) !== JSON.stringify(chromium)) differences.push(`${name} (Node): ${show(inNode)}`);
      if (JSON.stringify(inBrowser) !== JSON.stringify(chromium))
        differences.push(`${name} (Chromium): ${show(inBrowser)}`);
    }
    console.info(
      [
        '| case | Chromium EventSource (type:data#lastEventId) | redialer, Node | redialer, Chromium | eventsource 4 |',
        '|---|---|---|---|---|',
        ...rows,
      ].join('\n'),
    );
    expect(differences).toEqual([]);
  }, 120_000);
});
