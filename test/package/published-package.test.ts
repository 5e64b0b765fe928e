/**
 * The tarball as the registry will hold it: publint and arethetypeswrong find nothing, every source
 * map carries its sources, every relative link of the shipped Markdown resolves inside the package,
 * and `typesVersions` (for TypeScript's old `node10` resolution) covers every subpath of `exports`.
 * Like the consumer-types test, this runs once per CI.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { describe, expect, it } from 'vitest';
import { packedForSuite, repoRoot } from '../support/packed-package.js';

const run = promisify(execFile);
const skip = process.env['REDIALER_PACKAGE_CHECKS'] === 'skip';
if (skip) console.log('published-package: skipped (REDIALER_PACKAGE_CHECKS=skip; runs once per CI)');

const packed = packedForSuite(skip);
const pkgDir = (): string => join(packed().dir, 'node_modules/redialer');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    anchors.add(
      (match[1] ?? '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return anchors;
}

describe.skipIf(skip)('the published package', () => {
  it('publint (strict) reports nothing', async () => {
    const { messages, pkg } = await publint({ pkgDir: pkgDir(), pack: false, strict: true });
    expect(messages.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`)).toEqual([]);
  });

  it('arethetypeswrong reports nothing (.attw.json: CommonJS require of ESM is supported from Node 20.19)', async () => {
    const attw = join(repoRoot, 'node_modules/@arethetypeswrong/cli/dist/index.js');
    const outcome = await run(process.execPath, [attw, packed().tarball, '--format', 'ascii', '--no-color'], {
      cwd: repoRoot,
      timeout: 120_000,
    }).then(
      () => 'clean',
      (error: unknown) => String((error as { stdout?: string }).stdout ?? error),
    );
    expect(outcome).toBe('clean');
  }, 130_000);

  it('every source map carries its sources (src/ is not shipped)', () => {
    const maps = packed().files.filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    expect(maps.filter((f) => f.endsWith('.d.ts.map'))).toEqual([]);
    const incomplete = maps.filter((f) => {
      const map = JSON.parse(readFileSync(join(pkgDir(), f), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      return map.sourcesContent?.length !== map.sources.length || map.sourcesContent.some((s) => typeof s !== 'string');
    });
    expect(incomplete).toEqual([]);
  });

  it('every relative link of the shipped Markdown resolves inside the package', () => {
    const broken: string[] = [];
    for (const file of packed().files.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(pkgDir(), file), 'utf8');
      const lines = text.split('\n');
      lines.forEach((line, index) => {
        for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const href = match[1] ?? '';
          if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
          const [path = '', anchor] = href.split('#');
          const target = path === '' ? file : normalize(join(dirname(file), path));
          const where = `${file}:${String(index + 1)}: ${href}`;
          const full = join(pkgDir(), target);
          if (target.startsWith('..') || !existsSync(full)) {
            broken.push(`${where} (not in the package)`);
          } else if (
            anchor !== undefined &&
            statSync(full).isFile() &&
            !anchorsOf(readFileSync(full, 'utf8')).has(anchor)
          ) {
            broken.push(`${where} (no heading #${anchor})`);
          }
        }
      });
    }
    expect(broken).toEqual([]);
  });

  it('typesVersions covers every subpath of exports', () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir(), 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string }>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    const expected = Object.fromEntries(
      Object.entries(pkg.exports)
        .filter(([key, target]) => key !== '.' && typeof target === 'object')
        .map(([key, target]) => [key.slice(2), [(target as { types: string }).types]]),
    );
    expect(pkg.typesVersions['*']).toEqual(expected);
  });
});
