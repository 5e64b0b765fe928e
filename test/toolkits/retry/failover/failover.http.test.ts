/**
 * failover() with Node's real fetch against real HTTP servers on 127.0.0.1: one down (the port
 * refuses), one slow (answers after 10 s), one rate-limited (429 with Retry-After), one good. Requests
 * are counted on the server side. Assertions are on order and counts, never on speed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FailoverProvider,
  type FailoverError,
  HttpResponseError,
  failover,
  isFailoverError,
} from '../../../../src/toolkits/retry/index.js';
import { refusedUrl } from '../../../support/refused-port.js';

const servers: Server[] = [];
const sockets = new Set<Socket>();
const disposers: (() => void)[] = [];

afterEach(async () => {
  for (const dispose of disposers.splice(0)) dispose();
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) =>
          s.close(() => {
            resolve();
          }),
        ),
    ),
  );
});

interface Served {
  readonly url: string;
  /** Requests received. */
  calls: number;
  /** Requests open now, and the most open at once. */
  open: number;
  peak: number;
  /** Requests whose client went away before the answer. */
  abandoned: number;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  const served = { url: '', calls: 0, open: 0, peak: 0, abandoned: 0 };
  const server = createServer((req, res) => {
    served.calls += 1;
    served.open += 1;
    served.peak = Math.max(served.peak, served.open);
    res.on('close', () => {
      served.open -= 1;
      if (!res.writableFinished) served.abandoned += 1;
    });
    handler(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve();
    }),
  );
  served.url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  return served;
}

const slowHandler = (_req: IncomingMessage, res: ServerResponse): void => {
  const timer = setTimeout(() => res.end('slow'), 10_000);
  res.on('close', () => {
    clearTimeout(timer);
  });
};
const limitedHandler = (_req: IncomingMessage, res: ServerResponse): void => {
  res.writeHead(429, { 'retry-after': '30' }).end();
};
const goodHandler = (_req: IncomingMessage, res: ServerResponse): void => {
  res.end('good');
};

function post(name: string, url: string): FailoverProvider<string, string> {
  return {
    name,
    breaker: { consecutiveFailures: 3 },
    call: async (body, { signal }) => {
      const res = await fetch(url, { method: 'POST', body, signal });
      if (!res.ok) {
        await res.body?.cancel();
        throw new HttpResponseError(res);
      }
      return res.text();
    },
  };
}

describe('failover with real HTTP providers', () => {
  it('down, slow, 429: the error says what each did; a later call skips them while they wait', async () => {
    const down = await refusedUrl();
    const slow = await serve(slowHandler);
    const limited = await serve(limitedHandler);
    const send = failover([post('down', down), post('slow', slow.url), post('limited', limited.url)], {
      attemptTimeout: 300,
    });
    disposers.push(() => {
      send.dispose();
    });
    const error = await send('hello').catch((e: unknown) => e);
    expect(isFailoverError(error)).toBe(true);
    const { outcomes, message } = error as FailoverError;
    expect(outcomes.map((o) => [o.provider, o.outcome, o.attempts])).toEqual([
      ['down', 'failed', 1],
      ['slow', 'timed-out', 1],
      ['limited', 'failed', 1],
    ]);
    expect(message).toMatch(/down: failed \(TypeError: fetch failed.*ECONNREFUSED/);
    expect(message).toMatch(/slow: timed-out \(attempt 2 did not complete within 300 ms/);
    expect(message).toMatch(/limited: failed \(HTTP 429.*the server asked for 30000 ms/);
    expect(slow.calls).toBe(1);
    expect(limited.calls).toBe(1);
    // The slow request was aborted: the server saw its client go.
    await expect.poll(() => slow.abandoned, { timeout: 5000 }).toBe(1);

    // A second call skips the rate-limited provider: the server's 30 s is a floor on its backoff.
    const again = (await send('hello').catch((e: unknown) => e)) as FailoverError;
    expect(isFailoverError(again)).toBe(true);
    expect(again.outcomes.find((o) => o.provider === 'limited')).toMatchObject({ outcome: 'skipped', attempts: 0 });
    // The hint, spread upwards by up to 20 % (30–36 s after the 429, less the time since).
    expect(again.message).toMatch(/limited: skipped \(backing off until \+[23]\d{4} ms\)/);
    expect(limited.calls).toBe(1);
  }, 20_000);

  it('the good provider serves once the others fail; the next call goes straight to it', async () => {
    const down = await refusedUrl();
    const limited = await serve(limitedHandler);
    const good = await serve(goodHandler);
    const send = failover([post('down', down), post('limited', limited.url), post('good', good.url)]);
    disposers.push(() => {
      send.dispose();
    });
    expect(await send('one')).toBe('good');
    expect(await send('two')).toBe('good');
    expect([limited.calls, good.calls]).toEqual([1, 2]);
  });

  it('hedging: a slow provider gets one companion; the answer wins and the slow request is aborted', async () => {
    const slow = await serve(slowHandler);
    const slower = await serve(slowHandler);
    const good = await serve(goodHandler);
    const send = failover([post('slow', slow.url), post('slower', slower.url), post('good', good.url)], {
      hedgeDelay: 100,
      maxCopies: 2,
      maxAttempts: 3,
      deadline: 1500,
    });
    disposers.push(() => {
      send.dispose();
    });
    const error = await send('x').catch((e: unknown) => e);
    // Two copies at most: slow and slower never answer, so good is never started.
    expect((error as FailoverError).reason).toBe('deadline');
    expect([slow.calls, slower.calls, good.calls]).toEqual([1, 1, 0]);
    await expect.poll(() => slow.abandoned + slower.abandoned, { timeout: 5000 }).toBe(2);

    const hedged = failover([post('slow', slow.url), post('good', good.url)], { hedgeDelay: 100 });
    disposers.push(() => {
      hedged.dispose();
    });
    expect(await hedged('y')).toBe('good');
    expect(good.calls).toBe(1);
    await expect.poll(() => slow.abandoned, { timeout: 5000 }).toBe(2);
    expect(slow.peak).toBe(1);
  }, 20_000);
});
