import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: process.env['CI'] === 'true' ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
  },
});
