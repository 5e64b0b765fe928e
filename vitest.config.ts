import { defineConfig } from 'vitest/config';

// CI writes a JSON report per run (one per Node major) and counts it; VITEST_JSON names the file.
const jsonReport = process.env['VITEST_JSON'] ?? 'test-results/vitest.json';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: process.env['CI'] === 'true' ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
