// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layeringConfig } from './eslint.layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'test-results/', 'bench/results/', '.bench-build/', 'docs/api/', '.demo-build/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'eslint.layers.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // An AbortSignal's reason is whatever the caller aborted with; it is passed on unchanged.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // The core runs in browsers: it never imports Node built-ins or a transport.
    files: ['src/**/*.ts'],
    ignores: [
      'src/adapters/grpc/**',
      'src/tools/cli/**',
      'src/testing/node.ts',
      'src/testing/fault-proxy.ts',
      'src/toolkits/bullmq/**',
      'src/toolkits/redis/**',
      'src/adapters/react/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'The core must run in browsers: no Node built-ins outside adapters.' },
            { group: ['ws', '@grpc/*'], message: 'Only the adapters import a transport.' },
            {
              group: ['bullmq', 'bullmq/*', 'ioredis', 'ioredis/*'],
              message: 'Only redialer/bullmq and redialer/redis import bullmq or ioredis.',
            },
            {
              group: ['react', 'react/*', 'react-dom', 'react-dom/*'],
              message: 'Only redialer/react (src/adapters/react/) imports React.',
            },
          ],
        },
      ],
    },
  },
  {
    // redialer/react runs in browsers and on servers that render React: React, rxjs and the core only.
    files: ['src/adapters/react/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'redialer/react must run in browsers: no Node built-ins.' },
            { group: ['ws', '@grpc/*'], message: 'Only the adapters import a transport.' },
            { group: ['react-dom', 'react-dom/*'], message: "The hooks need react only; rendering is the app's." },
          ],
        },
      ],
    },
  },
  {
    // The retry toolkit takes an OpenTelemetry meter through a structural type; the package stays optional.
    files: ['src/toolkits/retry/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'redialer/retry must run in browsers: no Node built-ins.' },
            { group: ['ws', '@grpc/*'], message: 'Only the adapters import a transport.' },
            {
              group: ['@opentelemetry/*'],
              message: 'Take a meter through MeterLike; @opentelemetry/api is an optional peer.',
            },
            {
              group: ['bullmq', 'bullmq/*', 'ioredis', 'ioredis/*'],
              message: 'Only redialer/bullmq and redialer/redis import bullmq or ioredis.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Node adapters: bullmq only in redialer/bullmq; redialer/redis types ioredis structurally.
    files: [
      'src/adapters/grpc/**',
      'src/tools/cli/**',
      'src/testing/node.ts',
      'src/testing/fault-proxy.ts',
      'src/toolkits/redis/**',
      'src/toolkits/server/admission.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['bullmq', 'bullmq/*', 'ioredis', 'ioredis/*'],
              message: 'Only redialer/bullmq imports bullmq; redialer/redis types ioredis structurally.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    // Plain JavaScript (examples, scripts, fixtures): recommended rules without type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'URL',
          'Buffer',
          'AbortController',
          'structuredClone',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    // CommonJS files exist to prove that require() works.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The layering of src/ (eslint.layers.js): which folder may import which.
  ...layeringConfig(),
);
