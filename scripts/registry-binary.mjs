// Shared by ensure-node.mjs and ensure-runtime.mjs: unpack a binary's npm package into a cache folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs npm and returns its trimmed output. */
export const npm = (args) =>
  execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

/** Orders x.y.z versions. */
export function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/**
 * Packs `name@version` from the registry, unpacks it into `cache/version`, checks that
 * `binary` (a path inside the package) runs with --version, and returns its path.
 */
export function installBinaryPackage(name, version, cache, binary) {
  const work = mkdtempSync(join(tmpdir(), 'redialer-binary-'));
  try {
    const tarball = npm(['pack', `${name}@${version}`, '--pack-destination', work, '--silent'])
      .split('\n')
      .at(-1);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    const target = join(cache, version);
    rmSync(target, { recursive: true, force: true });
    renameSync(join(work, 'package'), target);
    const path = join(target, binary);
    execFileSync('chmod', ['+x', path]);
    execFileSync(path, ['--version'], { stdio: 'ignore' });
    return path;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
