/**
 * The public names of every entry of package.json `exports`: runtime values (what importing the
 * entry yields) and types (what its declarations export besides). The list is kept in
 * public-names.json, so that a change of the public surface shows in review. A name exported by two
 * entries must mean one thing: the same declaration re-exported, never two declarations that happen
 * to share a name. The root entry stays small: what an application uses. Reads src/ (the entries'
 * sources, by package.json's dist paths), so it needs no build.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
};

/**
 * The most runtime names the root entry `redialer` may have: 35 for the connection and its errors, and
 * the resumable-stream contract (`ResumeCursor`, `isCannotResumeError`).
 */
const ROOT_VALUE_LIMIT = 37;

/** One public name of one entry and the declaration behind it (`file#name`). */
export interface PublicName {
  readonly entry: string;
  readonly name: string;
  readonly declaration: string;
}

/** The names that two or more entries export with different declarations. */
export function twoMeanings(names: readonly PublicName[]): string[] {
  const byName = new Map<string, Map<string, string[]>>();
  for (const { entry, name, declaration } of names) {
    const declarations = byName.get(name) ?? new Map<string, string[]>();
    declarations.set(declaration, [...(declarations.get(declaration) ?? []), entry]);
    byName.set(name, declarations);
  }
  return [...byName]
    .filter(([, declarations]) => declarations.size > 1)
    .map(
      ([name, declarations]) =>
        `${name}: ${[...declarations].map(([declaration, entries]) => `${entries.join(', ')} -> ${declaration}`).join(' | ')}`,
    );
}

/** `./dist/x/index.js` -> `src/x/index.ts`. */
function sourceOf(target: string): string {
  return join(root, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

const entries = Object.entries(pkg.exports)
  .filter(([key]) => key !== './package.json')
  .map(([key, target]) => {
    const js = typeof target === 'string' ? target : target.default;
    return { entry: key === '.' ? 'redialer' : `redialer/${key.slice(2)}`, source: sourceOf(js) };
  });

/** Every exported name of each entry with the declaration it resolves to, by one compiler pass over src. */
function declaredNames(): PublicName[] {
  const program = ts.createProgram(
    entries.map((e) => e.source),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      jsx: ts.JsxEmit.ReactJSX,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const names: PublicName[] = [];
  for (const { entry, source } of entries) {
    const file = program.getSourceFile(source);
    const moduleSymbol = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (moduleSymbol === undefined) throw new Error(`no module for ${entry} at ${source}`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = target.declarations?.[0];
      const where =
        declaration === undefined ? '?' : relative(root, declaration.getSourceFile().fileName).split('\\').join('/');
      names.push({ entry, name: exported.name, declaration: `${where}#${target.name}` });
    }
  }
  return names;
}

interface EntryNames {
  readonly values: string[];
  readonly types: string[];
}

let declared: PublicName[];
let surface: Record<string, EntryNames>;

beforeAll(async () => {
  declared = declaredNames();
  surface = {};
  for (const { entry, source } of entries) {
    const runtime = new Set(Object.keys((await import(pathToFileURL(source).href)) as object));
    const all = declared.filter((n) => n.entry === entry).map((n) => n.name);
    surface[entry] = {
      values: [...runtime].sort(),
      types: all.filter((name) => !runtime.has(name)).sort(),
    };
  }
}, 60_000);

describe('public names', () => {
  it('are the ones listed in public-names.json (run with -u to accept a change)', async () => {
    // Formatted as the repository's prettier formats the committed file.
    const file = join(root, 'test/package/public-names.json');
    const options = { ...(await prettier.resolveConfig(file)), parser: 'json' };
    await expect(await prettier.format(JSON.stringify(surface), options)).toMatchFileSnapshot('public-names.json');
  });

  it('mean one thing: a name two entries export is one declaration', () => {
    expect(twoMeanings(declared)).toEqual([]);
  });

  it(`the root entry has at most ${String(ROOT_VALUE_LIMIT)} runtime names`, () => {
    expect(surface['redialer']?.values.length).toBeLessThanOrEqual(ROOT_VALUE_LIMIT);
  });

  it('the check catches two meanings and lets a re-export through', () => {
    expect(
      twoMeanings([
        { entry: 'redialer', name: 'connectionEvents', declaration: 'src/core/connection-status.ts#connectionEvents' },
        {
          entry: 'redialer/machine',
          name: 'connectionEvents',
          declaration: 'src/core/connection-status.ts#connectionEvents',
        },
        {
          entry: 'redialer/retry',
          name: 'connectionEvents',
          declaration: 'src/toolkits/retry/metrics/connection-attempt-metrics.ts#connectionEvents',
        },
      ]),
    ).toEqual([
      'connectionEvents: redialer, redialer/machine -> src/core/connection-status.ts#connectionEvents | redialer/retry -> src/toolkits/retry/metrics/connection-attempt-metrics.ts#connectionEvents',
    ]);
  });
});
