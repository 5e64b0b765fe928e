/** The Node examples run against real local servers. */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials, type ServerWritableStream, type sendUnaryData } from '@grpc/grpc-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { greet, greeterService } from '../../examples/grpc-client.js';
import { type WatchEvent, type WatchRequest, watchConfig, watchService } from '../../examples/grpc-watch.js';
import { openFeed } from '../../examples/websocket-node.js';
import type { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
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
