import { describe, expect, it } from 'vitest';
import { HttpResponseError } from '../../../../src/toolkits/retry/index.js';

/** A fetch `Response` whose `url` is set, as fetch sets it (the constructor cannot). */
function fetched(status: number, url: string): Response {
  const response = new Response(null, { status });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

const URL_TEXT = 'https://api.example.test/items';

describe('HttpResponseError: its message names the request when it is known', () => {
  it.each([
    [
      'nothing known: the status',
      new HttpResponseError({ status: 400, headers: {} }),
      'HTTP 400',
      undefined,
      undefined,
    ],
    [
      'method and URL given',
      new HttpResponseError({ status: 400, headers: {} }, { method: 'GET', url: URL_TEXT }),
      `GET ${URL_TEXT} answered 400`,
      'GET',
      URL_TEXT,
    ],
    [
      "a URL object, and Node's statusCode",
      new HttpResponseError({ statusCode: 503, headers: {} }, { method: 'POST', url: new URL(URL_TEXT) }),
      `POST ${URL_TEXT} answered 503`,
      'POST',
      URL_TEXT,
    ],
    [
      "the response's own URL (fetch's Response.url) when none is given",
      new HttpResponseError(fetched(404, URL_TEXT), { method: 'DELETE' }),
      `DELETE ${URL_TEXT} answered 404`,
      'DELETE',
      URL_TEXT,
    ],
    [
      "the response's own URL alone",
      new HttpResponseError(fetched(429, URL_TEXT)),
      `${URL_TEXT} answered 429`,
      undefined,
      URL_TEXT,
    ],
    [
      'an empty URL (a Response not from fetch, a Node client response) is unknown',
      new HttpResponseError(new Response(null, { status: 502 }), { method: 'GET' }),
      'GET answered 502',
      'GET',
      undefined,
    ],
    [
      'a message as before: kept as given',
      new HttpResponseError({ status: 500, headers: {} }, 'upstream failed'),
      'upstream failed',
      undefined,
      undefined,
    ],
    [
      'a message with the request: the message, and the request kept',
      new HttpResponseError({ status: 500, headers: {} }, { method: 'GET', url: URL_TEXT, message: 'upstream failed' }),
      'upstream failed',
      'GET',
      URL_TEXT,
    ],
  ])('%s', (_, error, message, method, url) => {
    expect(error.message).toBe(message);
    expect(error.method).toBe(method);
    expect(error.url).toBe(url);
  });

  it('keeps status, headers and response as before', () => {
    const response = { status: 503, headers: { 'retry-after': '2' } };
    const error = new HttpResponseError(response, { method: 'GET', url: URL_TEXT });
    expect(error).toMatchObject({ name: 'HttpResponseError', status: 503, headers: response.headers, response });
  });
});
