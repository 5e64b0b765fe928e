/**
 * Retrying HTTP requests made with fetch (browsers and Node): docs/retry.md, "fetch".
 */
import {
  HttpResponseError,
  RetryMetrics,
  hasPrecondition,
  idempotencyOfMethod,
  ratioBudget,
  retry,
} from 'redialer/retry';

// One budget and one set of metrics for every call this client makes.
const budget = ratioBudget({ ratio: 0.1 });
export const metrics = new RetryMetrics({
  onRatioCrossed: ({ direction, retryRatio }) => {
    console.warn(`retry ratio ${direction} threshold: ${retryRatio.toFixed(2)}`);
  },
});

/** Sends a request with retries; the signal cancels the whole call, waits included. */
export async function request(url: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> {
  const method = init.method ?? 'GET';
  return retry(
    async ({ signal }) => {
      const response = await fetch(url, { ...init, signal });
      if (!response.ok) {
        // Release the connection; the status and the headers (Retry-After) are all the retry needs.
        await response.body?.cancel();
        throw new HttpResponseError(response, { method });
      }
      return response;
    },
    {
      signal: init.signal,
      maxAttempts: 4,
      totalTimeout: 15_000,
      attemptTimeout: 5_000,
      // GET/PUT/DELETE are retried after any transient failure; a POST only when nothing was sent,
      // unless it carries a precondition such as If-Match.
      idempotency: hasPrecondition(init.headers) ? 'conditional' : idempotencyOfMethod(method),
      precondition: hasPrecondition(init.headers),
      budget,
      metrics,
    },
  );
}
