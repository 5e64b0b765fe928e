/**
 * A real C-core gRPC server for the interop tests: Debian's python3-grpcio running
 * `ccore-server.py` (the test service of `service.ts`, JSON messages) on 127.0.0.1.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Debian's interpreter: python3-grpcio is installed for it, not for other Pythons on PATH. */
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./ccore-server.py', import.meta.url));

/** The grpcio version, or undefined when python3-grpcio is not installed. */
export const ccoreVersion: string | undefined = (() => {
  const probe = spawnSync(PYTHON, ['-c', 'import grpc; print(grpc.__version__)'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
})();

/** Server channel arguments, as C-core names them (`grpc.http2.max_ping_strikes`…). */
export type CCoreOptions = Readonly<Record<string, number | string>>;

export interface CCoreServer {
  readonly port: number;
  readonly address: string;
  /** Every line the server printed (`CALL Echo`, `STOPPED`…). */
  readonly lines: readonly string[];
  /** `server.stop(grace)`: GOAWAY, calls in flight get `grace` seconds; resolves when the process exited. */
  stop(graceSeconds?: number): Promise<void>;
  /** Kills the process (SIGKILL): connections drop with no GOAWAY. */
  kill(): Promise<void>;
  /** Starts a new server process on the same port. */
  restart(): Promise<void>;
}

interface Process {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<void>;
}

async function launch(
  options: CCoreOptions,
  port: number,
  lines: string[],
): Promise<{ process: Process; port: number }> {
  const child = spawn(PYTHON, [SCRIPT, JSON.stringify({ port, options: Object.entries(options) })], { stdio: 'pipe' });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const reader = createInterface({ input: child.stdout });
  const bound = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the C-core server did not start within 20 s: ${stderr}`));
    }, 20_000);
    reader.on('line', (line) => {
      lines.push(line);
      const match = /^PORT (\d+)$/.exec(line);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the C-core server exited: ${stderr}`));
    });
  });
  try {
    return { process: { child, exited }, port: await bound };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Starts a C-core server on 127.0.0.1 with an ephemeral port (or `port`). */
export async function startCCoreServer(options: CCoreOptions = {}): Promise<CCoreServer> {
  const lines: string[] = [];
  const first = await launch(options, 0, lines);
  let current: Process | undefined = first.process;
  const port = first.port;
  const kill = async (): Promise<void> => {
    const p = current;
    current = undefined;
    if (p === undefined) return;
    p.child.kill('SIGKILL');
    await p.exited;
  };
  return {
    port,
    address: `127.0.0.1:${String(port)}`,
    lines,
    stop: async (graceSeconds = 0) => {
      const p = current;
      current = undefined;
      if (p === undefined) return;
      p.child.stdin.end(`stop ${String(graceSeconds)}\n`);
      await p.exited;
    },
    kill,
    restart: async () => {
      await kill();
      current = (await launch(options, port, lines)).process;
    },
  };
}
