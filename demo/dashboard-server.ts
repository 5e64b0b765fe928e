/**
 * The dashboard's server (node:http on 127.0.0.1): the page, its script, and `/live`, a WebSocket
 * that pushes every client's state and takes "Retry now" and fault switches from the page.
 * `pause()` takes the whole server away (connections dropped, port refused) until `resume()`.
 */
import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import type { DemoRig } from './demo-rig.js';
import type { ClientId, FaultName, PageMessage, ServerMessage } from './live-protocol.js';
import { dashboardHtml } from './page/dashboard-html.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** The port to listen on; if it is taken, any free port. 0: any free port. */
  readonly port: number;
  /** The folder holding the page's bundled script, `dashboard.js`. */
  readonly assetsDir: string;
  readonly rig: DemoRig;
  /** When the demo started, on the demo's clock (`Date.now()`, the managers' clock); the page counts from it. */
  readonly startedAt: number;
  /** The first message each page gets: everything so far. */
  readonly hello: () => ServerMessage;
}

/** A running dashboard server. */
export interface Dashboard {
  readonly url: string;
  readonly port: number;
  /** Sends a message to every page. */
  publish(message: ServerMessage): void;
  /** Drops every page's connection and stops listening (the page sees ECONNREFUSED). */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

const CLIENTS: readonly ClientId[] = ['grpc', 'websocket', 'failover'];
const FAULTS: readonly FaultName[] = ['pass', 'refuse', 'blackhole', 'close'];

/** Parses a page message; undefined for anything else. */
export function parsePageMessage(text: string): PageMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, client, fault } = value as Record<string, unknown>;
  if (!CLIENTS.includes(client as ClientId)) return undefined;
  if (type === 'retry') return { type, client: client as ClientId };
  if (type === 'fault' && FAULTS.includes(fault as FaultName))
    return { type, client: client as ClientId, fault: fault as FaultName };
  return undefined;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(error);
    };
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Starts the dashboard server. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const wss = new WebSocketServer({ noServer: true });
  const pages = new Set<WebSocket>();
  let script: Promise<Buffer> | undefined;

  const serve = (request: IncomingMessage, response: ServerResponse): void => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/' || path === '/index.html') {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(dashboardHtml({ startedAt: options.startedAt, servedAt: Date.now() }));
    } else if (path === '/dashboard.js') {
      script ??= readFile(join(options.assetsDir, 'dashboard.js'));
      script.then(
        (body) =>
          response
            .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' })
            .end(body),
        (error: unknown) =>
          response
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`dashboard.js is missing (${String(error)}): run npm start`),
      );
    } else if (path === '/favicon.ico') {
      response.writeHead(204).end();
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  };

  const server = createServer(serve);
  server.on('upgrade', (request, socket, head) => {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/live') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (page) => {
      pages.add(page);
      page.on('close', () => pages.delete(page));
      page.on('error', () => {
        page.terminate();
      });
      page.on('message', (data) => {
        const message = parsePageMessage(Buffer.from(data as Buffer).toString());
        if (message === undefined) return;
        const client = options.rig.clients[message.client];
        if (message.type === 'retry') client.resetBackoff();
        else {
          client.setFault(message.fault, message.fault !== 'pass').catch((error: unknown) => {
            console.error(`redialer demo: could not switch the ${message.client} proxy to ${message.fault}:`, error);
          });
        }
      });
      page.send(JSON.stringify(options.hello()));
    });
  });

  let port: number;
  try {
    port = await listen(server, options.port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.port === 0) throw error;
    port = await listen(server, 0);
  }
  let listening = true;

  const stop = async (): Promise<void> => {
    for (const page of pages) page.terminate();
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    server.closeAllConnections();
    await closed;
  };

  return {
    url: `http://127.0.0.1:${String(port)}/`,
    port,
    publish(message) {
      const text = JSON.stringify(message);
      for (const page of pages) page.send(text);
    },
    pause: stop,
    async resume() {
      if (listening) return;
      await listen(server, port);
      listening = true;
    },
    async close() {
      await stop();
      wss.close();
    },
  };
}
