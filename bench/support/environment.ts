/** Where and when a benchmark ran. */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

export interface Environment {
  readonly commit: string;
  readonly dirty: boolean;
  readonly node: string;
  readonly date: string;
  readonly cpu: string;
  readonly cores: number;
}

export function environment(): Environment {
  const git = (...args: string[]): string => {
    try {
      return execFileSync('git', args, { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty: git('status', '--porcelain', '--', 'src', 'bench') !== '',
    node: process.version,
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
  };
}
