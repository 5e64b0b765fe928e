/**
 * The examples import the package by its name (`redialer`, `redialer/grpc`, …), as a reader's code
 * does, and they ship in the tarball. Copied out of the packed package into a consumer project, they
 * type-check there with `skipLibCheck: false` against the installed package and its peers, so an
 * example that imports `../src/…` (which the package does not contain) or a name that no public
 * subpath exports fails here.
 *
 * In the repository the same imports mean the sources: tsconfig.json's `paths` for the type checker
 * and vitest.config.ts's aliases for the tests, so the examples type-check and run without a build.
 * Both follow package.json's `exports`; the first tests hold them to it.
 *
 * Like consumer-types, the tarball check runs once per CI; REDIALER_PACKAGE_CHECKS=skip skips it.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { listFiles, packedForSuite, repoRoot } from '../support/packed-package.js';
import { sourceEntries } from '../support/source-entry.js';
import { formatDiagnostics, typeCheckProject } from '../support/type-check.js';

const skip = process.env['REDIALER_PACKAGE_CHECKS'] === 'skip';
if (skip) console.log('examples-against-tarball: skipped (REDIALER_PACKAGE_CHECKS=skip; runs once per CI)');

describe("the package's own name in the repository", () => {
  it("is mapped by tsconfig.json's paths to the source entry of each subpath, and nothing else", () => {
    const read = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), (path) => ts.sys.readFile(path));
    const { compilerOptions } = read.config as { compilerOptions: { paths?: Record<string, string[]> } };
    const expected = Object.fromEntries(Object.entries(sourceEntries()).map(([name, file]) => [name, [`./${file}`]]));
    expect(compilerOptions.paths).toEqual(expected);
  });

  it('means the sources in the tests: the same module objects as a relative import of src/', async () => {
    for (const [name, file] of Object.entries(sourceEntries())) {
      const byName = (await import(name)) as Record<string, unknown>;
      const bySource = (await import(join(repoRoot, file))) as Record<string, unknown>;
      expect(Object.keys(byName), name).toEqual(Object.keys(bySource));
      for (const key of Object.keys(bySource)) expect(byName[key], `${name}: ${key}`).toBe(bySource[key]);
    }
  }, 60_000);
});

/** What the examples import besides redialer, as a consumer installs it (with the types it needs). */
const PEERS = [
  'rxjs',
  '@types/node',
  'undici-types',
  '@grpc/grpc-js',
  'ws',
  '@types/ws',
  'react',
  '@types/react',
  'bullmq',
  'ioredis',
];

/**
 * A Node project as strict as the repository's, with DOM types for the browser examples, React's
 * automatic JSX runtime for the .tsx one, and the plain JavaScript examples checked too (see
 * `onImportsInJavaScript`).
 */
const COMPILER_OPTIONS = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  skipLibCheck: false,
  noEmit: true,
  target: 'es2022',
  module: 'nodenext',
  moduleResolution: 'nodenext',
  lib: ['es2022', 'dom'],
  types: ['node'],
  jsx: 'react-jsx',
  allowJs: true,
  checkJs: true,
};

/**
 * The plain JavaScript examples have no type annotations, so in them only what their imports say is
 * held to the types: each module resolves and exports each name imported from it. Everything is kept
 * for the TypeScript examples.
 */
function onImportsInJavaScript(diagnostic: ts.Diagnostic): boolean {
  const { file, start } = diagnostic;
  if (file === undefined || !/\.[cm]?js$/.test(file.fileName)) return true;
  if (start === undefined) return true;
  return file.statements.some(
    (statement) =>
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.getStart(file) <= start &&
      start < statement.end,
  );
}

const packed = packedForSuite(skip);

describe.skipIf(skip)('the shipped examples', () => {
  it('type-check against the packed package, copied out of it into a consumer project', () => {
    const pkg = packed();
    const dir = join(pkg.dir, 'examples-consumer');
    cpSync(join(pkg.dir, 'node_modules/redialer/examples'), dir, { recursive: true });
    const files = listFiles(dir).filter((file) => /\.(ts|tsx|mts|js|mjs)$/.test(file));
    // The copy is the shipped examples: the TypeScript, the TSX and the plain JavaScript ones.
    expect(files).toEqual(expect.arrayContaining(['grpc-client.ts', 'connection-banner.tsx', 'email-queue/main.mjs']));
    for (const name of PEERS) pkg.link(name);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'examples', private: true, type: 'module' }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files }, null, 2));
    expect(formatDiagnostics(typeCheckProject(dir, onImportsInJavaScript))).toBe('');
  }, 120_000);
});
