/**
 * The source file behind a package subpath (`redialer`, `redialer/retry`, …), read from package.json's
 * `exports` map, so that tests which run a documentation snippet from source follow the tree.
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

/** The repository-relative source path (`src/…/index.ts`) of an import specifier `redialer[/sub]`. */
export function sourceEntryOf(specifier: string): string {
  const key = specifier === 'redialer' ? '.' : `./${specifier.slice('redialer/'.length)}`;
  const target = manifest.exports[key];
  if (target === undefined || typeof target === 'string')
    throw new Error(`package.json exports has no entry ${JSON.stringify(key)} for ${JSON.stringify(specifier)}`);
  return target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
}

/** Rewrites every `'redialer…'` import of a snippet to the source entry, `upToRoot` being the way from the snippet's folder to the repository root. */
export function importsFromSource(snippet: string, upToRoot: string): string {
  return snippet.replace(/'(redialer(?:\/[\w/]+)?)'/g, (_, specifier: string) => {
    const entry = sourceEntryOf(specifier).replace(/\.ts$/, '.js');
    return `'${upToRoot}${entry}'`;
  });
}
