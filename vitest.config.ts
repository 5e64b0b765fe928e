import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';
import { sourceEntries } from './test/support/source-entry.js';

// CI writes a JSON report per run (one per Node major) and counts it; VITEST_JSON names the file.
const jsonReport = process.env['VITEST_JSON'] ?? 'test-results/vitest.json';

// REDIALER_GRPC_JS=grpc-js-1-10 runs the code under test (src/ and the tests' clients) against another
// installed grpc-js (an npm alias), to catch a grpc-js release that changes the internals redialer/grpc
// reads. Files named *grpc-server.ts keep the newest grpc-js: the test servers are the foreign side.
const grpcJs = process.env['REDIALER_GRPC_JS'];
const grpcJsAlias: Plugin = {
  name: 'redialer-grpc-js-version',
  enforce: 'pre',
  resolveId(source, importer, options) {
    if (
      grpcJs === undefined ||
      source !== '@grpc/grpc-js' ||
      importer === undefined ||
      importer.endsWith('grpc-server.ts')
    )
      return null;
    return this.resolve(grpcJs, importer, { ...options, skipSelf: true });
  },
};

// The examples import the package by its name, as users do; here that name means the sources, the
// same modules the tests import, so the tests need no build and see one copy of each class.
const ownName = Object.entries(sourceEntries()).map(([specifier, entry]) => ({
  find: new RegExp(`^${specifier}$`),
  replacement: fileURLToPath(new URL(entry, import.meta.url)),
}));

export default defineConfig({
  plugins: [grpcJsAlias],
  resolve: { alias: ownName },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Vitest's default (one worker fewer than the cores) gives a two-core machine one worker, which
    // leaves a core idle while the tests wait on sockets and timers. At least two.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: process.env['CI'] === 'true' ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
