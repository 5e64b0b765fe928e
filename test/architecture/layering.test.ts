/**
 * The layering rule of src/ (eslint.layers.js, drawn in README.md's "Architecture"): every folder of
 * src/ has a layer, the rule rejects an import of each folder a layer may not use and accepts each it
 * may, and the grpc-js workaround layer is private to the gRPC adapter. `npm run lint` applies the same
 * blocks to the real tree.
 */
import { Linter } from 'eslint';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { ENTRIES, LAYERS, PRIVATE_FOLDERS, layeringConfig } from '../../eslint.layers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const linter = new Linter({ configType: 'flat', cwd: root });
const config: Linter.Config[] = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
  },
  ...layeringConfig(),
];

/** The messages the layering rule gives a file at `path` (under src/) holding one import of `specifier`. */
function violations(path: string, specifier: string): string[] {
  return linter
    .verify(`import { x } from '${specifier}';\nexport { x };\n`, config, { filename: join(root, 'src', path) })
    .map((message) => message.message);
}

/** The specifier by which a file directly in `from` (a folder under src/) imports `file` in `to`. */
function specifier(from: string, to: string, file = 'some-module.js'): string {
  const path = relative(from, join(to, file)).replaceAll('\\', '/');
  return path.startsWith('.') ? path : `./${path}`;
}

function foldersOf(dir: string): string[] {
  return readdirSync(join(root, dir))
    .filter((name) => statSync(join(root, dir, name)).isDirectory())
    .map((name) => `${dir}/${name}`);
}

describe('the layering of src/', () => {
  it('gives every folder of src/ a layer', () => {
    const grouped = new Set(['src/adapters', 'src/toolkits', 'src/tools']);
    const folders = foldersOf('src').flatMap((dir) => (grouped.has(dir) ? foldersOf(dir) : [dir]));
    const layered = new Set(LAYERS.map((layer) => `src/${layer.folder}`));
    expect(folders.filter((folder) => !layered.has(folder))).toEqual([]);
    expect([...layered].filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  for (const layer of LAYERS) {
    const forbidden = LAYERS.filter((other) => other !== layer && !layer.may.includes(other.folder));
    it(`keeps src/${layer.folder} off ${String(forbidden.length)} folders and lets it use ${String(layer.may.length)}`, () => {
      const at = `${layer.folder}/some-file.ts`;
      for (const other of forbidden) {
        expect(violations(at, specifier(layer.folder, other.folder)), `${layer.folder} -> ${other.folder}`).toEqual([
          expect.stringContaining(`src/${layer.folder} may not import src/${other.folder}`),
        ]);
      }
      for (const allowed of layer.may)
        expect(violations(at, specifier(layer.folder, allowed)), `${layer.folder} -> ${allowed}`).toEqual([]);
      // its own files, and those of its own subfolders, at any depth
      expect(violations(at, './sibling.js')).toEqual([]);
      expect(violations(`${layer.folder}/deeper/some-file.ts`, '../sibling.js')).toEqual([]);
    });
  }

  it('keeps the grpc-js workaround layer private to the gRPC adapter', () => {
    for (const hidden of PRIVATE_FOLDERS) {
      expect(violations(`${hidden.owner}/managed-channel.ts`, specifier(hidden.owner, hidden.folder))).toEqual([]);
      expect(violations('adapters/websocket/some-file.ts', specifier('adapters/websocket', hidden.folder))).toEqual([
        expect.stringContaining('may not import src/adapters/grpc'),
        expect.stringContaining(`src/${hidden.folder} is private to src/${hidden.owner}`),
      ]);
    }
  });

  it("keeps every file of src/ off the package's own name", () => {
    const files = [...LAYERS.map((layer) => `${layer.folder}/some-file.ts`), ...ENTRIES.map((e) => e.file.slice(4))];
    for (const file of files) {
      for (const name of ['redialer', 'redialer/websocket', 'redialer/testing/node']) {
        expect(violations(file, name), `${file} -> ${name}`).toEqual([expect.stringContaining('never as `redialer…`')]);
      }
    }
    // a package whose name only starts with it is someone else's
    expect(violations('core/some-file.ts', 'redialer-plugin')).toEqual([]);
  });

  it('builds the root entry and redialer/machine from the lower layers only', () => {
    expect(violations('index.ts', './core/connection-manager.js')).toEqual([]);
    expect(violations('index.ts', './connectors/happy-eyeballs.js')).toEqual([]);
    expect(violations('index.ts', './adapters/grpc/index.js')).toEqual([
      expect.stringContaining('the entry src/index.ts may not import src/adapters/grpc'),
    ]);
    expect(violations('index.ts', './testing/index.js')).toEqual([
      expect.stringContaining('the entry src/index.ts may not import src/testing'),
    ]);
    // src/core/index.ts is redialer/machine: it gathers building blocks, connectors' among them,
    // which the rest of src/core may not import.
    expect(violations('core/index.ts', '../connectors/interleave-families.js')).toEqual([]);
    expect(violations('core/connection-manager.ts', '../connectors/interleave-families.js')).toEqual([
      expect.stringContaining('src/core may not import src/connectors'),
    ]);
    expect(violations('core/index.ts', '../toolkits/retry/index.js')).toEqual([
      expect.stringContaining('the entry src/core/index.ts may not import src/toolkits/retry'),
    ]);
  });
});
