/**
 * The package as users get it: `npm pack` of the built tree, unpacked into a fresh directory whose
 * `node_modules` holds redialer and links to the peers a consumer would install. Nothing above that
 * directory has a `node_modules`, so TypeScript sees only what the consumer installed.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';

const run = promisify(execFile);

/** The repository root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A packed and unpacked copy of the package. */
export interface PackedPackage {
  /** The consumer directory: `node_modules/redialer` is the unpacked tarball. */
  readonly dir: string;
  /** The `.tgz` that `npm pack` wrote. */
  readonly tarball: string;
  /** Paths inside the tarball, relative to its `package/` folder. */
  readonly files: readonly string[];
  /** Links `node_modules/<name>` of the consumer to the repository's installed copy. */
  link(name: string): void;
  /** Removes the directory. */
  remove(): void;
}

/** Packs dist/ (run `npm run build` first) and unpacks it into a temporary consumer directory. */
export async function packPackage(): Promise<PackedPackage> {
  if (!existsSync(join(repoRoot, 'dist/index.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  const dir = mkdtempSync(join(tmpdir(), 'redialer-consumer-'));
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
    cwd: repoRoot,
    timeout: 60_000,
  });
  const [report] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  const tarball = join(dir, report.filename);
  const target = join(dir, 'node_modules/redialer');
  mkdirSync(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { timeout: 60_000 });
  const link = (name: string): void => {
    const to = join(dir, 'node_modules', name);
    if (existsSync(to)) return;
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', name), to, 'dir');
  };
  return {
    dir,
    tarball,
    files: report.files.map((f) => f.path).sort(),
    link,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Lists files under `dir` recursively, relative to it. */
export function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? listFiles(dir, path) : [path];
  });
}

/**
 * The packed package for the tests of one file: packed before them (unless `skip`), removed after
 * them. Returns its getter, which throws if the tests asked for it while skipped.
 */
export function packedForSuite(skip: boolean): () => PackedPackage {
  let packed: PackedPackage | undefined;
  beforeAll(async () => {
    if (!skip) packed = await packPackage();
  }, 120_000);
  afterAll(() => {
    packed?.remove();
  });
  return () => {
    if (packed === undefined) throw new Error('the package was not packed (REDIALER_PACKAGE_CHECKS=skip)');
    return packed;
  };
}
