/**
 * retry() around Node's real fetch against a real HTTP server on 127.0.0.1: the classifier must
 * recognise the errors fetch really throws, not only hand-made ones.
 */
import { describe, expect, it } from 'vitest';
import { request, metrics } from '../../../examples/retry-fetch.js';
import { constantBackoff } from '../../../src/index.js';
import {
  HttpResponseError,
  classify,
  isAttemptTimeoutError,
  isRetryError,
  retry,
  type RetryOptions,
} from '../../../src/toolkits/retry/index.js';
import { cleanupAfterEach } from '../../support/cleanup.js';
import { refusedUrl } from '../../support/refused-port.js';
import { fetchText, serve } from './http-server.js';

const cleanup = cleanupAfterEach();

const fast: RetryOptions = { backoff: constantBackoff(5), maxAttempts: 3 };

describe('retry() with real fetch', () => {
  it('503 with Retry-After: 0 is retried on the backoff until the server answers', async () => {
    const server = await serve(cleanup, (_req, res, n) => {
      if (n < 3) res.writeHead(503, { 'Retry-After': '0' }).end();
      else res.end('hello');
    });
    await expect(retry(({ signal }) => fetchText(server.url, signal), fast)).resolves.toBe('hello');
    expect(server.calls).toBe(3);
  });

  it('Retry-After: 0 does not replace the backoff: with a 60 s backoff and 1 s left, one request and a give-up', async () => {
    const server = await serve(cleanup, (_req, res) => {
      res.writeHead(503, { 'Retry-After': '0' }).end();
    });
    const error = await retry(({ signal }) => fetchText(server.url, signal), {
      ...fast,
      backoff: constantBackoff(60_000),
      totalTimeout: 1000,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'deadline', attempts: 1 });
    expect(server.calls).toBe(1);
  });

  it('connection refused: fetch throws TypeError("fetch failed") with an ECONNREFUSED cause, which proves nothing was sent', async () => {
    const url = await refusedUrl();
    const error = await retry(({ signal }) => fetchText(url, signal, { method: 'POST' }), {
      ...fast,
      idempotency: 'never',
    }).catch((e: unknown) => e);
    expect(isRetryError(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'attempts', attempts: 3 });
    const cause = (error as { cause: unknown }).cause;
    expect(cause).toBeInstanceOf(TypeError);
    expect(classify(cause)).toMatchObject({ kind: 'transient', sent: 'no' });
  });

  it('a connection reset after the request was sent is not retried for a POST', async () => {
    const server = await serve(cleanup, (req) => {
      req.socket.destroy();
    });
    const error = await retry(({ signal }) => fetchText(server.url, signal, { method: 'POST', body: 'pay' }), {
      ...fast,
      idempotency: 'never',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'not-idempotent', attempts: 1 });
    expect(classify((error as { cause: unknown }).cause)).toMatchObject({ kind: 'transient', sent: 'maybe' });
    expect(server.calls).toBe(1);
  });

  it('the same reset is retried for an idempotent GET', async () => {
    const server = await serve(cleanup, (req, res, n) => {
      if (n === 1) req.socket.destroy();
      else res.end('ok');
    });
    await expect(retry(({ signal }) => fetchText(server.url, signal), fast)).resolves.toBe('ok');
    expect(server.calls).toBe(2);
  });

  it('the per-attempt timeout aborts the hung fetch (the server sees the socket close) and retries', async () => {
    let closed = 0;
    const server = await serve(cleanup, (req, res, n) => {
      if (n === 1) {
        req.socket.on('close', () => closed++);
        return; // never answers
      }
      res.end('second');
    });
    const seen: unknown[] = [];
    const result = await retry(
      async ({ signal }) => {
        signal.addEventListener('abort', () => seen.push(signal.reason));
        return fetchText(server.url, signal);
      },
      { ...fast, attemptTimeout: 200 },
    );
    expect(result).toBe('second');
    expect(seen.some(isAttemptTimeoutError)).toBe(true);
    await expect.poll(() => closed).toBe(1);
  });

  it('a 404 is permanent: one request, the original error', async () => {
    const server = await serve(cleanup, (_req, res) => res.writeHead(404).end());
    const error = await retry(({ signal }) => fetchText(server.url, signal), fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpResponseError);
    expect(error).toMatchObject({ status: 404 });
    expect(server.calls).toBe(1);
  });

  it('the example of docs/retry.md works as written', async () => {
    const server = await serve(cleanup, (_req, res, n) => {
      if (n === 1) res.writeHead(429, { 'Retry-After': '0' }).end();
      else res.end('created');
    });
    const before = metrics.snapshot.total.retries;
    const response = await request(server.url, { method: 'POST', body: 'x', signal: new AbortController().signal });
    expect(await response.text()).toBe('created');
    expect(server.calls).toBe(2);
    expect(metrics.snapshot.total.retries - before).toBe(1);
  });
});
