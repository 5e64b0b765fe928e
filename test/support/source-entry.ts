/**
 * The source file behind a package subpath (`redialer`, `redialer/retry`, …), read from package.json's
 * `exports` map, so that the tests' mapping of the package's own name and the tests which run a
 * documentation snippet from source follow the tree.
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ExportTarget {
  readonly default: string;
}

const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
  readonly exports: Readonly<Record<string, ExportTarget | string>>;
};

/**
 * Every public specifier (`redialer`, `redialer/retry`, …) with the repository-relative source file
 * behind it: the exports map's `./dist/….js` read as `src/….ts`. vitest.config.ts aliases these, and
 * tsconfig.json's `paths` says the same (a test compares them), so that code importing the package by
 * its name, as the examples do, runs and type-checks from the sources without a build.
 */
export function sourceEntries(): Readonly<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const [key, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const specifier = key === '.' ? 'redialer' : `redialer${key.slice(1)}`;
    entries[specifier] = target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
  }
  return entries;
}

/** The repository-relative source path (`src/…/index.ts`) of an import specifier `redialer[/sub]`. */
export function sourceEntryOf(specifier: string): string {
  const entry = sourceEntries()[specifier];
  if (entry === undefined) throw new Error(`package.json exports has no entry for ${JSON.stringify(specifier)}`);
  return entry;
}

/** Rewrites every `'redialer…'` import of a snippet to the source entry, `upToRoot` being the way from the snippet's folder to the repository root. */
export function importsFromSource(snippet: string, upToRoot: string): string {
  return snippet.replace(/'(redialer(?:\/[\w/]+)?)'/g, (_, specifier: string) => {
    const entry = sourceEntryOf(specifier).replace(/\.ts$/, '.js');
    return `'${upToRoot}${entry}'`;
  });
}
