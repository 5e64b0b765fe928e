// Three local fake mail providers on 127.0.0.1, each failing its own way:
// - "down": nothing listens on its port (connection refused);
// - "slow": answers after 400 ms, and every fifth request only after 1.5 s;
// - "throttled": answers 429 with Retry-After: 2 to its first four requests, then accepts.
// Every provider rejects a recipient in the .invalid domain with a 400 (a permanent failure) and
// accepts a message once per Idempotency-Key (a repeat is acknowledged, not sent twice).
import { createServer } from 'node:http';

// Email id → the providers that delivered it (a provider cannot see another's Idempotency-Keys).
export const deliveries = new Map();

function startProvider(name, { delay = 0, slowEvery = 0, throttleFirst = 0 } = {}) {
  const stats = { name, requests: 0, accepted: 0, duplicates: 0, throttled: 0, rejected: 0 };
  const seen = new Set();
  const server = createServer((req, res) => {
    // A client that gives up on a slow answer resets its connection; that is not the provider's failure.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      stats.requests += 1;
      const { to } = JSON.parse(body);
      const reply = (status, headers = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ provider: name, status }));
      };
      if (to.endsWith('.invalid')) {
        stats.rejected += 1;
        reply(400);
        return;
      }
      if (stats.throttled < throttleFirst) {
        stats.throttled += 1;
        reply(429, { 'retry-after': '2' });
        return;
      }
      const wait = slowEvery > 0 && stats.requests % slowEvery === 0 ? 1500 : delay;
      setTimeout(() => {
        const key = req.headers['idempotency-key'];
        if (seen.has(key)) stats.duplicates += 1;
        else {
          seen.add(key);
          stats.accepted += 1;
          deliveries.set(key, [...(deliveries.get(key) ?? []), name]);
        }
        if (!res.destroyed) reply(202);
      }, wait);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        name,
        url: `http://127.0.0.1:${server.address().port}/send`,
        stats,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

/** A port that refuses connections: bound once to get a free number, then closed. */
async function downProvider() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  const stats = { name: 'down', requests: 0, accepted: 0, duplicates: 0, throttled: 0, rejected: 0 };
  return { name: 'down', url: `http://127.0.0.1:${port}/send`, stats, close: () => Promise.resolve() };
}

/** Starts the three providers, in the order the mailer tries them. */
export async function startProviders() {
  return [
    await startProvider('throttled', { throttleFirst: 4 }),
    await downProvider(),
    await startProvider('slow', { delay: 400, slowEvery: 5 }),
  ];
}
