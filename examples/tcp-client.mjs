// A redialer-managed TCP connection in plain JavaScript, with a connector of your own, to a local
// server that goes away for a few seconds and comes back. Run it: node examples/tcp-client.mjs It prints every state with the countdown to the next attempt.
import { createServer, connect } from 'node:net';
import { Observable } from 'rxjs';
import { ConnectionManager } from 'redialer';

const started = Date.now();
const clock = () => `${((Date.now() - started) / 1000).toFixed(2).padStart(6)} s`;
const sockets = new Set();
let server;

function startServer(port) {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write('hello\n'); // the proof that the server accepted this connection
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server.address().port)));
}

function stopServer() {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(resolve));
}

const port = await startServer(0);

// A connector: one TCP attempt; established on the server's first bytes, not on TCP connect.
const connector = () =>
  new Observable((subscriber) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', () => subscriber.next(socket));
    socket.once('error', (error) => subscriber.error(error));
    socket.once('close', () => subscriber.complete());
    return () => socket.destroy();
  });

const manager = new ConnectionManager({ connector });
manager.state$.subscribe((s) => {
  const detail =
    s.state === 'TRANSIENT_FAILURE'
      ? `attempt ${s.attempt} failed (${s.lastError?.code ?? s.lastError?.message}); next in ${((s.nextAttemptAt - Date.now()) / 1000).toFixed(2)} s`
      : s.state === 'CONNECTING'
        ? `attempt ${s.attempt}`
        : '';
  console.log(`${clock()}  ${s.state.padEnd(17)} ${detail}`);
});

manager.connect();
setTimeout(async () => {
  console.log(`${clock()}  -- server stops --`);
  await stopServer();
  setTimeout(async () => {
    await startServer(port);
    console.log(`${clock()}  -- server is back --`);
  }, 5000);
}, 2000);

await manager.waitForStateChange('IDLE');
// Wait for READY, the outage, and READY again.
for (let ready = 0; ready < 2;) {
  await manager.waitForStateChange(manager.snapshot.state);
  if (manager.snapshot.state === 'READY') ready += 1;
}
manager.shutdown();
await stopServer();
console.log(`${clock()}  done: reconnected after the outage; shutdown left no timer or socket behind.`);
