/** The Node examples run against real local servers. */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials, type ServerWritableStream, type sendUnaryData } from '@grpc/grpc-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { greet, greeterService } from '../../examples/grpc-client.js';
import { type WatchEvent, type WatchRequest, watchConfig, watchService } from '../../examples/grpc-watch.js';
import { openFeed } from '../../examples/websocket-node.js';
import { openResumableFeed } from '../../examples/websocket-resume.js';
import type { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import { type CannotResumeError, isCannotResumeError } from '../../src/index.js';
import { refusedPort } from '../support/refused-port.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  vi.useRealTimers();
});

describe('examples/grpc-client.ts', () => {
  it('waits through a refused first attempt and says hello once the server is up', async () => {
    const port = await refusedPort();
    const server = new Server();
    server.addService(greeterService, {
      sayHello: (call: { request: { name: string } }, callback: sendUnaryData<{ message: string }>) => {
        callback(null, { message: `Hello ${call.request.name}` });
      },
    });
    cleanup.push(() => {
      server.forceShutdown();
    });
    const log: string[] = [];
    const reply = greet(`127.0.0.1:${String(port)}`, (line) => log.push(line));
    // Start the server once the client has seen its first attempt fail.
    await vi.waitFor(
      () => {
        expect(log).toContain('TRANSIENT_FAILURE: reconnecting in 1 s');
      },
      { timeout: 5000 },
    );
    await new Promise<void>((resolve, reject) => {
      server.bindAsync(`127.0.0.1:${String(port)}`, ServerCredentials.createInsecure(), (error) => {
        if (error === null) resolve();
        else reject(error);
      });
    });
    expect(await reply).toBe('Hello redialer');
    expect(log.slice(0, 4)).toEqual(['IDLE', 'CONNECTING', 'TRANSIENT_FAILURE: reconnecting in 1 s', 'CONNECTING']);
    expect(log).toContain('READY');
    expect(log.at(-1)).toBe('SHUTDOWN');
  });
});

/** A watch server with 40 revisions of `key`, streamed from `fromRevision` one every 10 ms, then OK. */
async function startWatchServer(port: number, opened: WatchRequest[]): Promise<Server> {
  const server = new Server();
  server.addService(watchService, {
    watch: (call: ServerWritableStream<WatchRequest, WatchEvent>) => {
      opened.push(call.request);
      let revision = call.request.fromRevision;
      const timer = setInterval(() => {
        if (revision >= 40) {
          clearInterval(timer);
          call.end();
          return;
        }
        call.write({ key: call.request.key, value: `v${String(revision)}`, revision });
        revision += 1;
      }, 10);
      call.on('cancelled', () => {
        clearInterval(timer);
      });
      call.on('close', () => {
        clearInterval(timer);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${String(port)}`, ServerCredentials.createInsecure(), (error) => {
      if (error === null) resolve();
      else reject(error);
    });
  });
  return server;
}

describe('examples/grpc-watch.ts', () => {
  it('resumes from the cursor across forceShutdown and a restart: every event once, in order', async () => {
    const port = await refusedPort();
    const opened: WatchRequest[] = [];
    let server = await startWatchServer(port, opened);
    cleanup.push(() => {
      server.forceShutdown();
    });
    const events: WatchEvent[] = [];
    const log: string[] = [];
    const watch = watchConfig(
      `127.0.0.1:${String(port)}`,
      'config/',
      (event) => events.push(event),
      (line) => log.push(line),
    );
    cleanup.push(() => {
      watch.close();
    });
    await vi.waitFor(
      () => {
        expect(events.length).toBeGreaterThanOrEqual(10);
      },
      { timeout: 5000 },
    );
    server.forceShutdown();
    await vi.waitFor(
      () => {
        expect(log.at(-1)).toBe('watch IDLE');
      },
      { timeout: 5000 },
    );
    server = await startWatchServer(port, opened);
    await vi.waitFor(
      () => {
        expect(log).toContain('watch SHUTDOWN');
      },
      { timeout: 10_000 },
    );
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(opened.map((r) => r.fromRevision)).toEqual([0, expect.any(Number)]);
    expect(opened[1]!.fromRevision).toBeGreaterThanOrEqual(10);
    expect(log).not.toContain('watch stopped');
    expect(log.filter((line) => line === 'watch READY')).toHaveLength(2);
  }, 20_000);
});

describe('examples/websocket-node.ts', () => {
  it('queues the first message, and reconnects after the server drops it', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    cleanup.push(
      () =>
        new Promise((resolve) => {
          wss.close(resolve);
        }),
    );
    const received: string[] = [];
    let connections = 0;
    wss.on('connection', (client) => {
      connections += 1;
      client.on('message', (data) => received.push(Buffer.from(data as Buffer).toString()));
      client.send(`hello ${String(connections)}`);
    });
    const log: string[] = [];
    const messages: string[] = [];
    const socket: ReconnectingWebSocket = openFeed(
      `ws://127.0.0.1:${String((wss.address() as AddressInfo).port)}/`,
      (text) => messages.push(text),
      (line) => log.push(line),
    );
    cleanup.push(() => {
      socket.close();
    });
    await vi.waitFor(
      () => {
        expect(messages).toEqual(['hello 1']);
      },
      { timeout: 5000 },
    );
    expect(log.slice(0, 2)).toEqual(['CONNECTING', 'subscribe: queued']);
    for (const client of wss.clients) client.terminate(); // the connection drops; the server stays up
    await vi.waitFor(
      () => {
        expect(messages).toEqual(['hello 1', 'hello 2']);
      },
      { timeout: 10_000 },
    );
    expect(received[0]).toBe('subscribe');
    expect(log.filter((l) => l === 'READY')).toHaveLength(2);
    // Up for less than minUptime (5 s): the drop counts as a failed attempt, so the client waits.
    expect(log.filter((l) => /^TRANSIENT_FAILURE: reconnecting in [01] s$/.test(l))).toHaveLength(1);
  });
});

describe('examples/tcp-client.mjs', () => {
  it('runs as a program: connects, lives through the outage, reconnects, and exits', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['examples/tcp-client.mjs'], { cwd: root, timeout: 30_000 }, (error, out) => {
        if (error === null) resolve(out);
        else reject(new Error(`tcp-client.mjs failed: ${error.message}`, { cause: error }));
      });
    });
    const states = [...stdout.matchAll(/ s {2}(\w+)/g)].map((m) => m[1]);
    expect(states.slice(0, 4)).toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE']);
    expect(stdout).toContain('-- server stops --');
    expect(stdout).toMatch(/READY[^]*-- server stops --[^]*-- server is back --[^]*READY/);
    expect(stdout).toContain('done: reconnected after the outage');
  }, 40_000);
});

describe('examples/websocket-resume.ts', () => {
  /**
   * The feed's server: items 1, 2, … published every 10 ms; a resume gets the kept items after its
   * `after` (replaying the last 2 at or before it), then the live ones; a resume from before the
   * compacted part gets cannot-resume.
   */
  async function startFeedServer() {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    const log: { seq: number; data: string }[] = [];
    const live = new Set<WebSocket>();
    const server = {
      url: `ws://127.0.0.1:${String((wss.address() as AddressInfo).port)}/`,
      wss,
      lastSeq: 0,
      /** Items up to this seq are gone (also the ones published later up to it). */
      compactedThrough: 0,
      connections: 0,
      resumes: [] as (number | null)[],
      replayed: 0,
      compactThrough(seq: number) {
        server.compactedThrough = seq;
        log.splice(0, log.filter((item) => item.seq <= seq).length);
      },
      kill() {
        for (const client of wss.clients) client.terminate();
      },
      stop() {
        clearInterval(timer);
      },
    };
    const send = (client: WebSocket, frame: object) => {
      if (client.readyState === client.OPEN) client.send(JSON.stringify(frame));
    };
    const timer = setInterval(() => {
      server.lastSeq += 1;
      const item = { seq: server.lastSeq, data: `item ${String(server.lastSeq)}` };
      if (item.seq <= server.compactedThrough) return;
      log.push(item);
      for (const client of live) send(client, { type: 'item', ...item });
    }, 10);
    wss.on('connection', (client) => {
      server.connections += 1;
      client.on('close', () => live.delete(client));
      client.on('message', (raw) => {
        const { after } = JSON.parse(Buffer.from(raw as Buffer).toString()) as { after: number | null };
        server.resumes.push(after);
        live.delete(client);
        if (after !== null && after < server.compactedThrough) {
          send(client, { type: 'cannot-resume' });
          return;
        }
        for (const item of log) {
          if (after !== null && item.seq <= after - 2) continue;
          if (after !== null && item.seq <= after) server.replayed += 1;
          send(client, { type: 'item', ...item });
        }
        live.add(client);
      });
    });
    cleanup.push(
      () =>
        new Promise((resolve) => {
          server.stop();
          server.kill();
          wss.close(resolve);
        }),
    );
    return server;
  }

  it('delivers every item once, in order, across 3 kills; after a compaction, a resync and the log from the start', async () => {
    const server = await startFeedServer();
    const timeline: (number | CannotResumeError<number>)[] = [];
    const feed = openResumableFeed(server.url, {
      onItem: (seq) => timeline.push(seq),
      onResync: (error) => timeline.push(error),
    });
    cleanup.push(() => {
      feed.close();
    });
    const items = () => timeline.filter((entry) => typeof entry === 'number');
    for (let kill = 1; kill <= 3; kill += 1) {
      const seen = items().length;
      await vi.waitFor(
        () => {
          expect(items().length).toBeGreaterThanOrEqual(seen + 20); // resumed, and receiving live items
        },
        { timeout: 10_000 },
      );
      // Before the second kill, the server compacts past anything the client has: it cannot resume.
      if (kill === 2) server.compactThrough(server.lastSeq + 1);
      server.kill();
    }
    const seen = items().length;
    await vi.waitFor(
      () => {
        expect(items().length).toBeGreaterThanOrEqual(seen + 20);
      },
      { timeout: 10_000 },
    );
    server.stop();
    const n = server.lastSeq;
    await vi.waitFor(
      () => {
        expect(timeline.at(-1)).toBe(n);
      },
      { timeout: 5000 },
    );

    const resyncAt = timeline.findIndex((entry) => isCannotResumeError(entry));
    expect(timeline.filter((entry) => typeof entry !== 'number')).toHaveLength(1); // onResync once
    const error = timeline[resyncAt] as CannotResumeError<number>;
    const before = timeline.slice(0, resyncAt);
    const after = timeline.slice(resyncAt + 1);
    const refused = before.at(-1) as number;
    expect(error.cursor).toBe(refused); // the position the client resumed from
    expect(before).toEqual(Array.from({ length: refused }, (_, i) => i + 1)); // 1..refused, once each
    const first = server.compactedThrough + 1; // the start of the log as it is now
    expect(after).toEqual(Array.from({ length: n - first + 1 }, (_, i) => first + i));
    // One connection per kill and one more; the third asked twice: refused, then from the beginning.
    expect(server.connections).toBe(4);
    expect(server.resumes).toEqual([null, expect.any(Number), refused, null, expect.any(Number)]);
    expect(server.replayed).toBe(4); // 2 replays on each of the 2 resumes that were not refused

    feed.close();
    await vi.waitFor(
      () => {
        expect(server.wss.clients.size).toBe(0);
      },
      { timeout: 5000 },
    );
    expect(feed.socket.readyState).toBe(feed.socket.CLOSED);
  }, 30_000);
});
