/**
 * The programs a few suites run as real servers (nginx, redis-server), from the system's packages:
 * where the binary is, the one line a suite prints when it skips for want of it, and stopping a
 * process it started.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first `name` that exists in `dirs` (where Debian puts it) or else on PATH; undefined if none. */
export function findBinary(name: string, dirs: readonly string[]): string | undefined {
  return [...dirs, ...(process.env['PATH'] ?? '').split(delimiter)]
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

/**
 * Prints the one line a suite shows when it skips because `name` is not installed (`binary` is
 * undefined), with the package that provides it; returns whether to skip.
 */
export function skipWithout(binary: string | undefined, name: string, aptPackage: string, suite: string): boolean {
  if (binary !== undefined) return false;
  console.log(`skipping ${suite}: ${name} is not installed (apt-get install ${aptPackage})`);
  return true;
}

/**
 * Sends SIGTERM to `child` unless it has already ended, and resolves once it has exited (`exited`, a
 * promise of its 'exit' event taken before). With `killAfter`, a child still running that many ms
 * later gets SIGKILL.
 */
export async function terminate(child: ChildProcess, exited: Promise<unknown>, killAfter?: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = killAfter === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfter);
  await exited;
  clearTimeout(timer);
}
