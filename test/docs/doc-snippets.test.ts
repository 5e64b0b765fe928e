/**
 * Every TypeScript code block in README.md and docs/*.md compiles against the packed package, so a
 * snippet cannot rot. The convention for writers:
 *
 * - A ```ts block is a complete module: imports included. It is type-checked (strict, nodenext,
 *   lib dom + es2022, @types/node) against the tarball that `npm pack` builds.
 * - A ```ts run block is also run with Node from a directory where the package is installed; it
 *   must exit with status 0 within 20 s and talk to nothing but 127.0.0.1.
 * - A fragment that uses names it does not define (a generated client, an address) declares them in
 *   an HTML comment right above the fence, which the rendered page hides:
 *   `<!-- context: declare const address: string; -->`. It is compiled as the snippet's first lines.
 *   `./generated/helloworld_grpc_pb.js` and `./generated/watch_grpc_pb.js` (test/docs/fixtures) stand
 *   for the reader's generated gRPC clients.
 *
 * A failure names the Markdown file and line. Like the consumer-types test, this runs once per CI.
 */
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, type PackedPackage, repoRoot } from '../support/packed-package.js';
import { type TypeDiagnostic, typeCheckProject } from '../support/type-check.js';

const run = promisify(execFile);
const skip = process.env['REDIALER_PACKAGE_CHECKS'] === 'skip';
if (skip) console.log('doc-snippets: skipped (REDIALER_PACKAGE_CHECKS=skip; runs once per CI)');

/** One TypeScript block of a Markdown file. */
interface Snippet {
  /** `docs/retry.md:29`: the file and the line of the opening fence. */
  readonly where: string;
  readonly markdown: string;
  /** 1-based line of the opening fence. */
  readonly fenceLine: number;
  readonly context: string;
  readonly code: string;
  readonly runnable: boolean;
  /** The module file it is checked as, in the consumer directory. */
  readonly file: string;
}

const FENCE = /^```(ts|typescript)(?:\s+(.*))?$/;

/** The TypeScript blocks of one Markdown file, with their context comments. */
export function extractSnippets(markdown: string, text: string): Snippet[] {
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) {
      if ((lines[i] ?? '').startsWith('```')) i = closingFence(lines, i, markdown);
      continue;
    }
    const end = closingFence(lines, i, markdown);
    const flags = (open[2] ?? '').split(/\s+/).filter(Boolean);
    const unknown = flags.filter((flag) => flag !== 'run');
    if (unknown.length > 0)
      throw new Error(`${markdown}:${String(i + 1)}: unknown code block flag ${unknown.join(' ')}`);
    snippets.push({
      where: `${markdown}:${String(i + 1)}`,
      markdown,
      fenceLine: i + 1,
      context: contextAbove(lines, i),
      code: lines.slice(i + 1, end).join('\n'),
      runnable: flags.includes('run'),
      file: `${markdown.replace(/[^A-Za-z0-9]+/g, '-')}-L${String(i + 1)}.ts`,
    });
    i = end;
  }
  return snippets;
}

function closingFence(lines: readonly string[], open: number, markdown: string): number {
  for (let j = open + 1; j < lines.length; j += 1) if (/^```\s*$/.test(lines[j] ?? '')) return j;
  throw new Error(`${markdown}:${String(open + 1)}: code block never closed`);
}

/** The body of a `<!-- context: … -->` comment that ends on the line right above the fence. */
function contextAbove(lines: readonly string[], fence: number): string {
  if (!(lines[fence - 1] ?? '').trimEnd().endsWith('-->')) return '';
  for (let j = fence - 1; j >= 0; j -= 1) {
    const start = (lines[j] ?? '').indexOf('<!-- context:');
    if (start >= 0) {
      const body = lines.slice(j, fence).join('\n');
      return body.slice(body.indexOf('<!-- context:') + '<!-- context:'.length, body.lastIndexOf('-->')).trim();
    }
    if ((lines[j] ?? '').includes('<!--')) return '';
  }
  return '';
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

const SNIPPETS = markdownFiles().flatMap((file) => extractSnippets(file, readFileSync(join(repoRoot, file), 'utf8')));

/** The source a snippet is checked as: its context, its code, and `export {}` so that it is a module. */
function moduleSource(snippet: Snippet): string {
  return `${snippet.context}\n${snippet.code}\nexport {};\n`;
}

/** Maps a line of the checked module back to the Markdown file. */
function markdownLine(snippet: Snippet, line: number): number {
  const contextLines = snippet.context === '' ? 1 : snippet.context.split('\n').length;
  if (line <= contextLines) return snippet.fenceLine - 1; // the context comment
  return snippet.fenceLine + line - contextLines;
}

let packed: PackedPackage | undefined;
const diagnostics = new Map<string, TypeDiagnostic[]>();

beforeAll(async () => {
  if (skip) return;
  packed = await packPackage();
  for (const name of [
    'rxjs',
    'pure-rand',
    '@types/node',
    'undici-types',
    '@grpc/grpc-js',
    'ws',
    '@types/ws',
    '@opentelemetry/api',
    'bullmq',
    'ioredis',
  ]) {
    packed.link(name);
  }
  const { dir } = packed;
  // The reader's own generated clients that the gRPC snippets import (./generated/*.js).
  cpSync(join(repoRoot, 'test/docs/fixtures'), dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'doc-snippets', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom', 'esnext.disposable'],
        types: ['node'],
      },
      files: SNIPPETS.map((s) => s.file),
    }),
  );
  for (const snippet of SNIPPETS) writeFileSync(join(dir, snippet.file), moduleSource(snippet));
  for (const d of typeCheckProject(dir)) {
    const key = d.file ?? '(project)';
    diagnostics.set(key, [...(diagnostics.get(key) ?? []), d]);
  }
}, 180_000);

afterAll(() => {
  packed?.remove();
});

describe.skipIf(skip)('doc snippets', () => {
  it('finds the snippets', () => {
    expect(SNIPPETS.length).toBeGreaterThan(0);
    expect(diagnostics.get('(project)') ?? []).toEqual([]);
  });

  it.each(SNIPPETS.map((s) => [s.where, s] as const))('%s type-checks', (_where, snippet) => {
    const errors = (diagnostics.get(snippet.file) ?? []).map(
      (d) => `${snippet.markdown}:${String(markdownLine(snippet, d.line))}:${String(d.column)}: ${d.message}`,
    );
    expect(errors).toEqual([]);
  });

  it.each(SNIPPETS.filter((s) => s.runnable).map((s) => [s.where, s] as const))(
    '%s runs',
    async (_where, snippet) => {
      const dir = packed!.dir;
      const js = ts.transpileModule(moduleSource(snippet), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const file = join(dir, snippet.file.replace(/\.ts$/, '.mjs'));
      writeFileSync(file, js);
      const outcome = await run(process.execPath, [file], { cwd: dir, timeout: 20_000 }).then(
        () => 'exit 0',
        (error: unknown) => {
          const { code, stderr } = error as { code?: unknown; stderr?: string };
          return `${snippet.where}: exit ${String(code)}\n${stderr ?? ''}`;
        },
      );
      expect(outcome).toBe('exit 0');
    },
    30_000,
  );
});
