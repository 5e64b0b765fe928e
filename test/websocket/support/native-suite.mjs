// The adapter on a runtime's own WebSocket, without the WebSocket option: Node (>= 22, or 20 with
// --experimental-websocket), Deno and Bun run this same script. Usage:
//   RUNTIME native-suite.mjs BUNDLE REFUSED_URL DROPPING_URL SILENT_URL
// It prints one JSON line with what it saw, closes everything, and must then exit by itself: a
// timer, socket or listener left behind would keep the process alive.
const [bundle, refusedUrl, droppingUrl, silentUrl] = globalThis.Deno?.args ?? process.argv.slice(2);
const { ReconnectingWebSocket } = await import(bundle);

const FAST = { minReconnectionDelay: 50, maxReconnectionDelay: 100, connectionTimeout: 10_000 };
const result = {};
const started = Date.now();

// 1. Refused: every attempt ends at once with error then close (never at the 10 s connect timeout).
await new Promise((resolve) => {
  const socket = new ReconnectingWebSocket(refusedUrl, null, FAST);
  const events = [];
  socket.onerror = () => events.push('error');
  socket.onclose = (event) => {
    events.push(`close ${event.code}`);
    if (events.filter((e) => e.startsWith('close')).length === 3) {
      socket.close();
      result.refused = {
        events,
        ms: Date.now() - started,
        cause: String(socket.snapshot.lastError?.cause?.message ?? socket.snapshot.lastError?.cause ?? ''),
      };
      resolve();
    }
  };
});

// 2. The server drops the first connection: the client reconnects, sends, and closes cleanly.
await new Promise((resolve) => {
  const socket = new ReconnectingWebSocket(droppingUrl, undefined, FAST);
  const states = [];
  let opens = 0;
  socket.state$.subscribe((s) => states.push(s.state));
  socket.onopen = () => {
    opens += 1;
    socket.send(`hello ${opens}`);
    if (opens === 2) socket.close(1000, 'done');
  };
  socket.onclose = (event) => {
    if (opens === 2) {
      result.reconnect = { opens, states, code: event.code, readyState: socket.readyState, url: socket.url };
      resolve();
    }
  };
});

// 3. A connection that carries nothing: the heartbeat closes it with 4000 after interval + timeout.
await new Promise((resolve) => {
  const heartbeat = { interval: 200, timeout: 200, ping: 'ping' };
  const socket = new ReconnectingWebSocket(silentUrl, undefined, { ...FAST, heartbeat });
  socket.onclose = (event) => {
    if (event.code !== 4000) return;
    const lastError = socket.snapshot.lastError;
    socket.close();
    // How long nothing had arrived when the heartbeat gave up (HeartbeatTimeoutError.silence).
    result.heartbeat = { code: event.code, reason: event.reason, after: lastError?.silence, error: lastError?.name };
    resolve();
  };
});

console.log(JSON.stringify(result));
