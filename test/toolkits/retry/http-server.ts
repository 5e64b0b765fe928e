/**
 * A real HTTP server on 127.0.0.1 for the tests that run Node's fetch, with what it saw counted on the
 * server side, and the fetch those tests call (an answer that is not 2xx is an HttpResponseError).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HttpResponseError } from '../../../src/toolkits/retry/index.js';
import type { Cleanup } from '../../support/cleanup.js';
import { listenOnLoopback } from '../../support/loopback.js';

/** What a server has seen so far (read it when needed: it counts on). */
export interface Served {
  readonly url: string;
  /** Requests received. */
  readonly calls: number;
  /** Requests open now, and the most open at once. */
  readonly open: number;
  readonly peak: number;
  /** Requests whose client went away before the answer. */
  readonly abandoned: number;
}

/** Serves `handler` (given each request's number, from 1) on 127.0.0.1; `cleanup` closes it and its sockets. */
export async function serve(
  cleanup: Cleanup,
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<Served> {
  const served = { url: '', calls: 0, open: 0, peak: 0, abandoned: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    served.calls += 1;
    served.open += 1;
    served.peak = Math.max(served.peak, served.open);
    res.on('close', () => {
      served.open -= 1;
      if (!res.writableFinished) served.abandoned += 1;
    });
    handler(req, res, served.calls);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await listenOnLoopback(server, sockets, cleanup);
  served.url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  return served;
}

/** Fetches `url` with `init`: the body as text, or an HttpResponseError (the body cancelled) when not ok. */
export async function fetchText(url: string, signal: AbortSignal, init: RequestInit = {}): Promise<string> {
  const res = await fetch(url, { ...init, signal });
  if (!res.ok) {
    await res.body?.cancel();
    throw new HttpResponseError(res, { method: init.method ?? 'GET' });
  }
  return res.text();
}
