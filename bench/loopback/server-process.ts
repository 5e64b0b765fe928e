/**
 * A grpc-js server in its own process, so that the client side's CPU can be measured alone.
 * Messages from the parent: { cmd: 'start', port } (0: any port) and { cmd: 'stop' }; each is answered
 * with { ok: true, port } or { ok: false, error }.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';

let server: Server | undefined;

function reply(message: unknown): void {
  process.send?.(message);
}

process.on('message', (message: { cmd: 'start'; port: number } | { cmd: 'stop' }) => {
  if (message.cmd === 'start') {
    const s = new Server();
    s.bindAsync(`127.0.0.1:${String(message.port)}`, ServerCredentials.createInsecure(), (error, port) => {
      if (error !== null) {
        reply({ ok: false, error: error.message });
        return;
      }
      server = s;
      reply({ ok: true, port });
    });
  } else {
    server?.forceShutdown();
    server = undefined;
    reply({ ok: true, port: 0 });
  }
});
process.on('disconnect', () => {
  server?.forceShutdown();
  process.exit(0);
});
