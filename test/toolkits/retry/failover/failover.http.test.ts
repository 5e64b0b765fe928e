/**
 * failover() with Node's real fetch against real HTTP servers on 127.0.0.1: one down (the port
 * refuses), one slow (answers after 10 s), one rate-limited (429 with Retry-After), one good. Requests
 * are counted on the server side. Assertions are on order and counts, never on speed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  type FailoverProvider,
  type FailoverError,
  failover,
  isFailoverError,
} from '../../../../src/toolkits/retry/index.js';
import { cleanupAfterEach } from '../../../support/cleanup.js';
import { refusedUrl } from '../../../support/refused-port.js';
import { fetchText, serve } from '../http-server.js';

const cleanup = cleanupAfterEach();

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
    call: (body, { signal }) => fetchText(url, signal, { method: 'POST', body }),
  };
}

describe('failover with real HTTP providers', () => {
  it('down, slow, 429: the error says what each did; a later call skips them while they wait', async () => {
    const down = await refusedUrl();
    const slow = await serve(cleanup, slowHandler);
    const limited = await serve(cleanup, limitedHandler);
    const send = failover([post('down', down), post('slow', slow.url), post('limited', limited.url)], {
      attemptTimeout: 300,
    });
    cleanup.push(() => {
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
    expect(message).toMatch(
      /limited: failed \(POST http:\/\/127\.0\.0\.1:\d+\/\S* answered 429.*the server asked for 30 s/,
    );
    expect(slow.calls).toBe(1);
    expect(limited.calls).toBe(1);
    // The slow request was aborted: the server saw its client go.
    await expect.poll(() => slow.abandoned, { timeout: 5000 }).toBe(1);

    // A second call skips the rate-limited provider: the server's 30 s is a floor on its backoff.
    const again = (await send('hello').catch((e: unknown) => e)) as FailoverError;
    expect(isFailoverError(again)).toBe(true);
    expect(again.outcomes.find((o) => o.provider === 'limited')).toMatchObject({ outcome: 'skipped', attempts: 0 });
    // The hint, spread upwards by up to 20 % (30–36 s after the 429, less the time since).
    expect(again.message).toMatch(/limited: skipped \(backing off for another [23]\d s\)/);
    expect(limited.calls).toBe(1);
  }, 20_000);

  it('the good provider serves once the others fail; the next call goes straight to it', async () => {
    const down = await refusedUrl();
    const limited = await serve(cleanup, limitedHandler);
    const good = await serve(cleanup, goodHandler);
    const send = failover([post('down', down), post('limited', limited.url), post('good', good.url)]);
    cleanup.push(() => {
      send.dispose();
    });
    expect(await send('one')).toBe('good');
    expect(await send('two')).toBe('good');
    expect([limited.calls, good.calls]).toEqual([1, 2]);
  });

  it('hedging: a slow provider gets one companion; the answer wins and the slow request is aborted', async () => {
    const slow = await serve(cleanup, slowHandler);
    const slower = await serve(cleanup, slowHandler);
    const good = await serve(cleanup, goodHandler);
    const send = failover([post('slow', slow.url), post('slower', slower.url), post('good', good.url)], {
      hedgeDelay: 100,
      maxCopies: 2,
      maxAttempts: 3,
      deadline: 1500,
    });
    cleanup.push(() => {
      send.dispose();
    });
    const error = await send('x').catch((e: unknown) => e);
    // Two copies at most: slow and slower never answer, so good is never started.
    expect((error as FailoverError).reason).toBe('deadline');
    expect([slow.calls, slower.calls, good.calls]).toEqual([1, 1, 0]);
    await expect.poll(() => slow.abandoned + slower.abandoned, { timeout: 5000 }).toBe(2);

    const hedged = failover([post('slow', slow.url), post('good', good.url)], { hedgeDelay: 100 });
    cleanup.push(() => {
      hedged.dispose();
    });
    expect(await hedged('y')).toBe('good');
    expect(good.calls).toBe(1);
    await expect.poll(() => slow.abandoned, { timeout: 5000 }).toBe(2);
    expect(slow.peak).toBe(1);
  }, 20_000);
});
