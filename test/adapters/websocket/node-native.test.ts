/**
 * The adapter on a runtime's own WebSocket, without the WebSocket option: this Node (undici: global
 * on Node >= 22, behind --experimental-websocket on Node 20), and Deno and Bun where their binaries
 * are installed (`node scripts/ensure-runtime.mjs deno|bun`, which CI runs). Each runs the same script
 * (test/support/websocket/native-suite.mjs) in a child process against real `ws` servers on 127.0.0.1: refused
 * attempts, a reconnect after the server drops the connection, the heartbeat; then the process must
 * exit by itself, since any timer, socket or listener left behind would keep it alive.
 *
 * The refused address is a port held by an open connection (holdRefusedPort), not one bound and
 * closed: a closed port can be taken by any server started meanwhile (by this test, or by another
 * file of a parallel run), and the script then connects to it. A server that closes with 4401 made
 * the socket give up after one close, and Node exited with 13, saying nothing, while step 1 waited
 * for three. The script now names the step it cannot finish (test/support/websocket/native-suite.mjs).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HeldPort, holdRefusedPort } from '../../support/refused-port.js';
import { type TestServer, startServer } from '../../support/websocket/ws-server.js';

const SCRIPT = fileURLToPath(new URL('../../support/websocket/native-suite.mjs', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);

/** A runtime binary installed by scripts/ensure-runtime.mjs, or undefined (never installs here). */
function cachedRuntime(name: 'deno' | 'bun'): string | undefined {
  if (process.env['REDIALER_OTHER_RUNTIMES'] === 'skip') return undefined;
  try {
    return execFileSync(process.execPath, ['scripts/ensure-runtime.mjs', name, '--cached'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return undefined;
  }
}

const deno = cachedRuntime('deno');
const bun = cachedRuntime('bun');
if (process.env['REDIALER_OTHER_RUNTIMES'] === 'skip') {
  console.log('Deno and Bun: run in the Node 20 pass only (REDIALER_OTHER_RUNTIMES=skip)');
} else {
  for (const [name, path] of [
    ['Deno', deno],
    ['Bun', bun],
  ] as const) {
    if (path === undefined)
      console.log(`${name} is not installed: skipping it (node scripts/ensure-runtime.mjs ${name.toLowerCase()})`);
  }
}

const RUNTIMES: { name: string; command: string[] | undefined }[] = [
  {
    name: `Node ${process.versions.node}`,
    command: [process.execPath, ...(major < 22 ? ['--experimental-websocket', '--no-warnings'] : [])],
  },
  { name: 'Deno', command: deno === undefined ? undefined : [deno, 'run', '--allow-net', '--allow-read'] },
  { name: 'Bun', command: bun === undefined ? undefined : [bun] },
];

/** Runs the script under `command` against the three URLs: its exit code and output. */
async function runSuite(
  command: readonly string[],
  bundle: string,
  urls: readonly [refused: string, dropping: string, silent: string],
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const [program, ...args] = command;
  const child = spawn(program ?? '', [...args, SCRIPT, pathToFileURL(bundle).href, ...urls], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000); // a process kept alive by a leak
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve(code);
    });
  });
  return { exitCode, stdout, stderr };
}

interface Result {
  refused: { events: string[]; ms: number; cause: string };
  reconnect: { opens: number; states: string[]; code: number; readyState: number; url: string };
  heartbeat: { code: number; reason: string; after: number; error: string };
}

describe("on a runtime's own WebSocket", () => {
  let dir = '';
  let bundle = '';
  const servers: TestServer[] = [];
  const held: HeldPort[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'redialer-native-'));
    bundle = join(dir, 'redialer-websocket.mjs');
    await build({
      entryPoints: [fileURLToPath(new URL('../../../src/adapters/websocket/index.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const port of held) await port.release();
    await rm(dir, { recursive: true, force: true });
  });

  for (const runtime of RUNTIMES) {
    it.skipIf(runtime.command === undefined)(
      `${runtime.name}: refused attempts end at once, a dropped connection comes back, a silent one is closed, the process exits by itself`,
      async () => {
        const refused = await holdRefusedPort();
        held.push(refused);
        const dropping = await startServer(0, (client, n) => {
          if (n === 1)
            client.once('message', () => {
              client.terminate();
            });
        });
        // Accepts the upgrade, then never answers (nor do its clients' pings get a reply).
        const silent = await startServer();
        servers.push(dropping, silent);
        const { exitCode, stdout, stderr } = await runSuite(runtime.command ?? [], bundle, [
          `ws://127.0.0.1:${String(refused.port)}/`,
          dropping.url,
          silent.url,
        ]);
        // The script's stderr says which step failed or hung, and what it saw.
        expect(exitCode, `exit code ${String(exitCode)}; stderr: ${stderr || '(empty)'}`).toBe(0);
        expect(stderr).toBe('');
        const result = JSON.parse(stdout) as Result;
        console.log(
          `${runtime.name}: 3 refused attempts in ${String(result.refused.ms)} ms; silent connection closed after ${String(result.heartbeat.after)} ms`,
        );
        expect(result.refused.events).toEqual(['error', 'close 1006', 'error', 'close 1006', 'error', 'close 1006']);
        expect(result.refused.ms).toBeLessThan(10_000); // no attempt waited for the connect timeout
        expect(result.reconnect).toMatchObject({ opens: 2, code: 1000, readyState: 3, url: dropping.url });
        expect(result.reconnect.states.filter((s) => s === 'READY')).toHaveLength(2);
        expect(result.reconnect.states.at(-1)).toBe('SHUTDOWN');
        expect(dropping.received).toEqual(['hello 1', 'hello 2']);
        expect(result.heartbeat).toMatchObject({
          code: 4000,
          reason: 'heartbeat timeout',
          error: 'HeartbeatTimeoutError',
        });
        expect(result.heartbeat.after).toBeGreaterThanOrEqual(400);
        expect(silent.received.filter((m) => m === 'ping').length).toBeGreaterThanOrEqual(1);
      },
      60_000,
    );
  }

  // A server that closes every connection with 4401 where the script expects otherwise: the step
  // can never finish, and says so at once (before, Node exited with 13 and said nothing).
  it.each([
    { url: 'refused', step: 'step 1 (three refused attempts)', why: 'accepted a connection' },
    {
      url: 'dropping',
      step: 'step 2 (a dropped connection comes back, then closes)',
      why: 'the socket gave up (permanent-failure)',
    },
  ])(`Node ${process.versions.node}: a $url URL that denies: $step is named on stderr`, async ({ url, step, why }) => {
    const denying = await startServer(0, (client) => {
      client.close(4401, 'denied');
    });
    servers.push(denying);
    const refused = await holdRefusedPort();
    held.push(refused);
    const refusedUrl = `ws://127.0.0.1:${String(refused.port)}/`;
    const { exitCode, stdout, stderr } = await runSuite(RUNTIMES[0]?.command ?? [], bundle, [
      url === 'refused' ? denying.url : refusedUrl,
      denying.url,
      denying.url,
    ]);
    expect(stdout).toBe('');
    expect(stderr).toContain(`native-suite: ${step} failed: `);
    expect(stderr).toContain(why);
    expect(exitCode).toBe(1);
  });
});
