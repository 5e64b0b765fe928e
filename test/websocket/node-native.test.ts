/**
 * Node's own WebSocket (undici: global on Node >= 22, behind --experimental-websocket on Node 20),
 * without the WebSocket option. A child process loads the bundled adapter, reconnects once after the
 * server drops it, closes, and must then exit by itself: any timer, socket or listener left behind
 * would keep it alive.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from './support/ws-server.js';

const SCRIPT = `
import { ReconnectingWebSocket } from './redialer-websocket.mjs';
const socket = new ReconnectingWebSocket(process.argv[2], undefined, { minReconnectionDelay: 50, maxReconnectionDelay: 200 });
const states = [];
let opens = 0;
socket.state$.subscribe((s) => states.push(s.state));
socket.onopen = () => {
  opens += 1;
  socket.send('hello ' + String(opens));
  if (opens === 2) socket.close(1000, 'done');
};
socket.onclose = (event) => {
  if (opens === 2) console.log(JSON.stringify({ opens, states, code: event.code, readyState: socket.readyState, url: socket.url }));
};
`;

const major = Number(process.versions.node.split('.')[0]);

describe("on Node's own WebSocket", () => {
  let dir = '';
  let server: TestServer | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'redialer-node-native-'));
    await build({
      entryPoints: [fileURLToPath(new URL('../../src/websocket/index.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      outfile: join(dir, 'redialer-websocket.mjs'),
      logLevel: 'silent',
    });
    await writeFile(join(dir, 'run.mjs'), SCRIPT);
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reconnects after the server drops it, then close() lets the process exit by itself', async () => {
    server = await startServer(0, (client, n) => {
      if (n === 1) client.once('message', () => { client.terminate(); });
    });
    const flags = major < 22 ? ['--experimental-websocket', '--no-warnings'] : [];
    const child = spawn(process.execPath, [...flags, join(dir, 'run.mjs'), server.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000); // a process kept alive by a leak
      child.once('exit', (code) => {
        clearTimeout(killer);
        resolve(code);
      });
    });
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    const result = JSON.parse(stdout) as { opens: number; states: string[]; code: number; readyState: number; url: string };
    expect(result).toMatchObject({ opens: 2, code: 1000, readyState: 3, url: server.url });
    expect(result.states.filter((s) => s === 'READY')).toHaveLength(2);
    expect(result.states.at(-1)).toBe('SHUTDOWN');
    expect(server.received).toEqual(['hello 1', 'hello 2']);
  });
});
