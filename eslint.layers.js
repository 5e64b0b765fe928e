// @ts-check
/**
 * The layering of src/: which folders each folder may import. README.md's "Architecture" section draws
 * the same tree; eslint.config.js turns this table into one `@typescript-eslint/no-restricted-imports`
 * rule per folder (test/package/layering.test.ts proves that the rule rejects a forbidden import).
 *
 * Imports inside src/ are relative, and every folder named here has a name no other folder of src/
 * has, so a forbidden import is one whose specifier climbs out (`../`) into a folder of that name.
 * No file of src/ imports the package by its own name (`redialer`, `redialer/…`): that name reaches
 * the sources only through tsconfig.json's `paths` and the tests' aliases, the build would emit it
 * unchanged (dist/ loading itself through the exports map), and this table could not tell which
 * folder such an import reaches.
 */

/**
 * @typedef {object} Layer
 * @property {string} folder   the folder under src/
 * @property {string} name     the folder's last segment, as a relative import names it
 * @property {readonly string[]} may  the folders (as in `folder`) it may import besides its own
 */

/** @type {readonly Layer[]} */
export const LAYERS = [
  { folder: 'internal', name: 'internal', may: [] },
  { folder: 'errors', name: 'errors', may: ['internal'] },
  { folder: 'backoff', name: 'backoff', may: ['errors', 'internal'] },
  { folder: 'core', name: 'core', may: ['backoff', 'errors', 'internal'] },
  { folder: 'connectors', name: 'connectors', may: ['core', 'backoff', 'errors', 'internal'] },
  { folder: 'testing', name: 'testing', may: ['core', 'backoff', 'errors', 'internal'] },
  ...['grpc', 'websocket', 'sse', 'react'].map((name) => ({
    folder: `adapters/${name}`,
    name,
    may: ['core', 'backoff', 'connectors', 'errors', 'internal'],
  })),
  { folder: 'toolkits/retry', name: 'retry', may: ['core', 'backoff', 'connectors', 'errors', 'internal'] },
  { folder: 'toolkits/server', name: 'server', may: ['core', 'backoff', 'errors', 'internal'] },
  {
    folder: 'toolkits/redis',
    name: 'redis',
    may: ['toolkits/retry', 'core', 'backoff', 'errors', 'internal'],
  },
  {
    folder: 'toolkits/bullmq',
    name: 'bullmq',
    may: ['toolkits/retry', 'toolkits/redis', 'core', 'backoff', 'errors', 'internal'],
  },
  // The tools are the library's first consumers: they may use all of it, and nothing uses them.
  {
    folder: 'tools/simulator',
    name: 'simulator',
    may: ['toolkits/server', 'testing', 'core', 'backoff', 'connectors', 'errors', 'internal'],
  },
  { folder: 'tools/cli', name: 'cli', may: ['tools/simulator'] },
];

/** The entries whose index gathers several layers, and the layers each may re-export. */
export const ENTRIES = [
  { file: 'src/index.ts', may: ['core', 'backoff', 'connectors', 'errors', 'internal'] },
  { file: 'src/core/index.ts', may: ['core', 'backoff', 'connectors', 'errors', 'internal'] },
];

/** The grpc-js workaround layer belongs to the gRPC adapter: nothing else reaches into it. */
export const PRIVATE_FOLDERS = [
  { folder: 'adapters/grpc/grpc-js-workarounds', name: 'grpc-js-workarounds', owner: 'adapters/grpc' },
];

const escape = (/** @type {string} */ text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** For a nested folder (adapters/grpc), the optional parent segment a specifier may climb through. */
const parentOf = (/** @type {Layer} */ layer) =>
  layer.folder.includes('/') ? `(${escape(layer.folder.slice(0, layer.folder.lastIndexOf('/')))}/)?` : '';

/** The pattern every block adds: the package's own name, which src/ never imports. */
const OWN_NAME = {
  regex: '^redialer(/|$)',
  message: 'src/ imports its own modules by relative paths, never as `redialer…` (eslint.layers.js).',
};

/**
 * The flat-config blocks of the layering rule: for each folder, the folders it may not import.
 * @returns {import('eslint').Linter.Config[]}
 */
export function layeringConfig() {
  /** @type {import('eslint').Linter.Config[]} */
  const blocks = [];
  for (const layer of LAYERS) {
    const forbidden = LAYERS.filter((other) => other !== layer && !layer.may.includes(other.folder));
    const patterns = forbidden.map((other) => ({
      regex: `^(\\.\\./)+${parentOf(other)}${escape(other.name)}/`,
      message: `src/${layer.folder} may not import src/${other.folder} (eslint.layers.js; README.md, "Architecture").`,
    }));
    for (const hidden of PRIVATE_FOLDERS) {
      if (layer.folder === hidden.owner) continue;
      patterns.push({
        regex: `(^|/)${escape(hidden.name)}/`,
        message: `src/${hidden.folder} is private to src/${hidden.owner} (eslint.layers.js).`,
      });
    }
    blocks.push({
      files: [`src/${layer.folder}/**/*.ts`],
      ignores: ENTRIES.map((entry) => entry.file),
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...patterns, OWN_NAME] }] },
    });
  }
  // The entries that gather several layers: the root (what an application uses) and redialer/machine
  // (src/core/index.ts, the advanced tier of building blocks). Each may re-export the lower layers only.
  for (const entry of ENTRIES) {
    const forbidden = LAYERS.filter(
      (layer) => !entry.may.includes(layer.folder) && `src/${layer.folder}/index.ts` !== entry.file,
    );
    blocks.push({
      files: [entry.file],
      rules: {
        '@typescript-eslint/no-restricted-imports': [
          'error',
          {
            patterns: [
              ...forbidden.map((layer) => ({
                regex: `^(\\./|(\\.\\./)+)${parentOf(layer)}${escape(layer.name)}/`,
                message: `the entry ${entry.file} may not import src/${layer.folder}: it has a subpath of its own.`,
              })),
              OWN_NAME,
            ],
          },
        ],
      },
    });
  }
  return blocks;
}
