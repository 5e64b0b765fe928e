/**
 * A real C-core gRPC server for the interop tests: Debian's python3-grpcio running
 * `ccore-server.py` (the test service of `service.ts`, JSON messages, and grpc.health.v1.Health) on
 * 127.0.0.1.
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

/** How the script runs, besides the channel arguments. */
export interface CCoreSettings {
  /** Serve grpc.health.v1.Health (default true); without it its calls get UNIMPLEMENTED. */
  readonly health?: boolean;
}

/** A status `setHealth` can set; SERVICE_UNKNOWN forgets the name (Check: NOT_FOUND). */
export type CCoreHealthStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface CCoreServer {
  readonly port: number;
  readonly address: string;
  /** Every line the server printed (`CALL Echo`, `STOPPED`…). */
  readonly lines: readonly string[];
  /** `server.stop(grace)`: GOAWAY, calls in flight get `grace` seconds; resolves when the process exited. */
  stop(graceSeconds?: number): Promise<void>;
  /** Kills the process (SIGKILL): connections drop with no GOAWAY. */
  kill(): Promise<void>;
  /** Starts a new server process on the same port (health statuses start over). */
  restart(): Promise<void>;
  /**
   * Sets the health status of `service` ('' is the whole server) and pushes it to its open Watch
   * streams; resolves when the server printed that it did.
   */
  setHealth(service: string, status: CCoreHealthStatus): Promise<void>;
}

interface Process {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<void>;
}

async function launch(
  options: CCoreOptions,
  settings: CCoreSettings,
  port: number,
  lines: string[],
  onLine: (line: string) => void,
): Promise<{ process: Process; port: number }> {
  const config = { port, options: Object.entries(options), health: settings.health ?? true };
  const child = spawn(PYTHON, [SCRIPT, JSON.stringify(config)], { stdio: 'pipe' });
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
      onLine(line);
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
export async function startCCoreServer(options: CCoreOptions = {}, settings: CCoreSettings = {}): Promise<CCoreServer> {
  const lines: string[] = [];
  const waiters = new Map<string, (() => void)[]>();
  const onLine = (line: string): void => {
    const waiting = waiters.get(line);
    waiters.delete(line);
    for (const resolve of waiting ?? []) resolve();
  };
  const first = await launch(options, settings, 0, lines, onLine);
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
      current = (await launch(options, settings, port, lines, onLine)).process;
    },
    setHealth: async (service, status) => {
      const p = current;
      if (p === undefined) throw new Error('the C-core server is not running');
      const line = `HEALTH ${service === '' ? '-' : service} ${status}`;
      const printed = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`the C-core server did not print "${line}" within 5 s`));
        }, 5_000);
        waiters.set(line, [
          ...(waiters.get(line) ?? []),
          () => {
            clearTimeout(timer);
            resolve();
          },
        ]);
      });
      p.child.stdin.write(`health ${service === '' ? '-' : service} ${status}\n`);
      await printed;
    },
  };
}
