// Bundles the demo with esbuild: demo/main.ts for Node (dependencies stay in node_modules) and the
// dashboard's script for the browser (redialer and rxjs inside). Usage: node scripts/build-demo.mjs [outdir]
import { build } from 'esbuild';

const outdir = process.argv[2] ?? '.demo-build';
await Promise.all([
  build({
    entryPoints: ['demo/main.ts'],
    outfile: `${outdir}/main.js`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  }),
  build({
    entryPoints: ['demo/page/dashboard.ts'],
    outfile: `${outdir}/dashboard.js`,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    sourcemap: true,
    logLevel: 'warning',
  }),
]);
