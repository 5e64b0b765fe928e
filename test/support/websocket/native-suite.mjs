// The adapter on a runtime's own WebSocket, without the WebSocket option: Node (>= 22, or 20 with
// --experimental-websocket), Deno and Bun run this same script. Usage:
//   RUNTIME native-suite.mjs BUNDLE REFUSED_URL DROPPING_URL SILENT_URL
// It prints one JSON line with what it saw, closes everything, and must then exit by itself: a
// timer, socket or listener left behind would keep the process alive.
//
// A step that cannot finish says so on stderr, naming the step and what it saw, and exits with 1:
// at once when the socket gives up (a permanent close code, say), after STEP_MS otherwise. And if the
// event loop ever empties while a step waits (Node then exits with 13 and, with --no-warnings,
// prints nothing), the exit handler below names the step.
const [bundle, refusedUrl, droppingUrl, silentUrl] = globalThis.Deno?.args ?? process.argv.slice(2);

/** The bound on each step: each takes well under a second; three of them stay within the test's 30 s kill. */
const STEP_MS = 8_000;
/** The step being waited for (undefined once all are done) and what it has seen so far. */
let waiting = 'the bundle to load';
let seen = [];
const saw = () =>
  seen.length === 0
    ? 'seen: nothing'
    : `seen${seen.length > 20 ? ` (the last 20 of ${String(seen.length)})` : ''}: ${seen.slice(-20).join(', ')}`;
globalThis.process?.on?.('exit', () => {
  if (waiting !== undefined) console.error(`native-suite: exited while waiting for ${waiting}; ${saw()}`);
});

const { ReconnectingWebSocket } = await import(bundle);

const FAST = { minReconnectionDelay: 50, maxReconnectionDelay: 100, connectionTimeout: 10_000 };
const result = {};
const started = Date.now();

/**
 * Runs one step: `body(done, fail)` calls `done()` when the step has seen what it waits for, or
 * `fail(why)`; a step that has done neither after STEP_MS fails.
 */
function step(name, body) {
  waiting = name;
  seen = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`not done after ${String(STEP_MS)} ms`));
    }, STEP_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const fail = (why) => {
      clearTimeout(timer);
      reject(new Error(why));
    };
    body(done, fail);
  });
}

/** Records the socket's states; it must stop only when closed, so giving up fails the step. */
function watch(socket, fail) {
  socket.state$.subscribe((s) => {
    seen.push(s.state);
    if (s.state === 'SHUTDOWN' && s.reason !== 'shutdown') {
      fail(`the socket gave up (${s.reason}): ${String(s.lastError?.message ?? s.lastError)}`);
    }
  });
}

try {
  // 1. Refused: every attempt ends at once with error then close (never at the 10 s connect timeout).
  await step('step 1 (three refused attempts)', (done, fail) => {
    const socket = new ReconnectingWebSocket(refusedUrl, null, FAST);
    const events = [];
    watch(socket, fail);
    socket.onopen = () => {
      fail(`${refusedUrl} accepted a connection: it was to refuse every one`);
    };
    socket.onerror = () => {
      events.push('error');
      seen.push('error');
    };
    socket.onclose = (event) => {
      events.push(`close ${event.code}`);
      seen.push(`close ${event.code}`);
      if (events.filter((e) => e.startsWith('close')).length === 3) {
        socket.close();
        result.refused = {
          events,
          ms: Date.now() - started,
          cause: String(socket.snapshot.lastError?.cause?.message ?? socket.snapshot.lastError?.cause ?? ''),
        };
        done();
      }
    };
  });

  // 2. The server drops the first connection: the client reconnects, sends, and closes cleanly.
  await step('step 2 (a dropped connection comes back, then closes)', (done, fail) => {
    const socket = new ReconnectingWebSocket(droppingUrl, undefined, FAST);
    const states = [];
    let opens = 0;
    socket.state$.subscribe((s) => states.push(s.state));
    watch(socket, fail);
    socket.onopen = () => {
      opens += 1;
      seen.push(`open ${String(opens)}`);
      socket.send(`hello ${opens}`);
      if (opens === 2) socket.close(1000, 'done');
    };
    socket.onclose = (event) => {
      seen.push(`close ${event.code}`);
      if (opens === 2) {
        result.reconnect = { opens, states, code: event.code, readyState: socket.readyState, url: socket.url };
        done();
      }
    };
  });

  // 3. A connection that carries nothing: the heartbeat closes it with 4000 after interval + timeout.
  await step('step 3 (the heartbeat closes a silent connection)', (done, fail) => {
    const heartbeat = { interval: 200, timeout: 200, ping: 'ping' };
    const socket = new ReconnectingWebSocket(silentUrl, undefined, { ...FAST, heartbeat });
    watch(socket, fail);
    socket.onclose = (event) => {
      seen.push(`close ${event.code}`);
      if (event.code !== 4000) return;
      const lastError = socket.snapshot.lastError;
      socket.close();
      // How long nothing had arrived when the heartbeat gave up (HeartbeatTimeoutError.silence).
      result.heartbeat = { code: event.code, reason: event.reason, after: lastError?.silence, error: lastError?.name };
      done();
    };
  });
} catch (error) {
  console.error(`native-suite: ${waiting} failed: ${error.message}; ${saw()}`);
  waiting = undefined;
  // The failed step's socket may still be open: do not wait for it.
  (globalThis.Deno?.exit ?? process.exit)(1);
}

waiting = undefined;
console.log(JSON.stringify(result));
