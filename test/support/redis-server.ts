/**
 * A real redis-server per test file, on a unix socket in a temp dir (no port to collide with), started
 * and stopped by the test. When redis-server is not installed, `redisServerPath` is undefined and the
 * suites skip with one printed line (CI installs the Debian package).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary, skipWithout, terminate } from './system-binary.js';

/** The redis-server binary, if one is installed. */
export const redisServerPath: string | undefined = findBinary('redis-server', ['/usr/bin', '/usr/local/bin']);

/** Prints the one line a suite shows when it skips for want of redis-server; returns whether to skip. */
export function skipWithoutRedis(suite: string): boolean {
  return skipWithout(redisServerPath, 'redis-server', 'redis-server', suite);
}

/** A running redis-server. */
export interface RedisServer {
  /** The unix socket to connect to (ioredis: `{ path: socket }`). */
  readonly socket: string;
  /** Stops it (SIGTERM; with `persistent`, the append-only file is flushed first). Resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same socket (and, with `persistent`, the same data). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. Idempotent. */
  dispose(): Promise<void>;
}

/** Starts a redis-server; `persistent` keeps the data across stop()/start() (append-only file, fsync always). */
export async function startRedisServer(options: { persistent?: boolean } = {}): Promise<RedisServer> {
  if (redisServerPath === undefined) throw new Error('redis-server is not installed');
  const binary = redisServerPath;
  const dir = mkdtempSync(join(tmpdir(), 'redialer-redis-'));
  const socket = join(dir, 'redis.sock');
  const args = [
    '--port',
    '0',
    '--unixsocket',
    socket,
    '--unixsocketperm',
    '700',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.persistent === true ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
  let child: ChildProcess | undefined;
  let disposed = false;

  const start = async (): Promise<void> => {
    if (child !== undefined) throw new Error('redis-server is already running');
    rmSync(socket, { force: true });
    const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let output = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // Ready once the socket exists (loglevel warning prints nothing on a clean start).
    const deadline = Date.now() + 10_000;
    while (!existsSync(socket)) {
      if (proc.exitCode !== null) throw new Error(`redis-server exited with ${String(proc.exitCode)}: ${output}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not create its socket within 10 s: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    child = undefined;
    await terminate(proc, once(proc, 'exit'));
  };

  await start();
  return {
    socket,
    stop,
    start,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
