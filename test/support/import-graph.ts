import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Walks the relative-import graph of a built entry and returns the packages it imports (bare or
 * `node:` specifiers, with subpaths folded into their package). Comments are skipped, since a TSDoc
 * example may mention other packages.
 */
export function externalPackages(entryFile: string): string[] {
  const seen = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(
      /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
    )) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else external.add(packageOf(specifier));
    }
  };
  visit(entryFile);
  return [...external].sort();
}

function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}
