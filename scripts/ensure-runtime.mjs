// Prints the path of a Deno or Bun binary, installing it first if needed.
//
//   node scripts/ensure-runtime.mjs deno            -> ~/.cache/redialer/deno/2.x.y/deno
//   node scripts/ensure-runtime.mjs bun --cached    -> the cached binary, or exit 1 without asking the registry
//
// Both publish their Linux binaries on the npm registry as platform packages (the optional
// dependencies of the `deno` and `bun` packages), so CI and developers need no other download site.
// They are cached outside the project, in $REDIALER_RUNTIME_CACHE or ~/.cache/redialer/NAME, one
// folder per exact version, and reused; they are never project dependencies.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { compareVersions, installBinaryPackage, npm } from './registry-binary.mjs';

const RUNTIMES = {
  deno: { wrapper: 'deno', platform: '@deno/linux-x64-glibc', binary: 'deno' },
  bun: { wrapper: 'bun', platform: '@oven/bun-linux-x64', binary: join('bin', 'bun') },
};

const [name, flag] = process.argv.slice(2);
const runtime = RUNTIMES[name];
if (runtime === undefined || (flag !== undefined && flag !== '--cached')) {
  process.stderr.write('usage: node scripts/ensure-runtime.mjs deno|bun [--cached]\n');
  process.exit(2);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  process.stderr.write(
    `ensure-runtime: only linux-x64 binaries are fetched, this is ${process.platform}-${process.arch}\n`,
  );
  process.exit(1);
}

const cache = join(process.env['REDIALER_RUNTIME_CACHE'] ?? join(homedir(), '.cache', 'redialer'), name);
mkdirSync(cache, { recursive: true });
const cached = readdirSync(cache)
  .filter((version) => existsSync(join(cache, version, runtime.binary)))
  .sort(compareVersions);
if (cached.length > 0) {
  process.stdout.write(`${join(cache, cached.at(-1), runtime.binary)}\n`);
  process.exit(0);
}
if (flag === '--cached') process.exit(1);

// The platform package's version is the one the wrapper package pins for it.
const version = JSON.parse(
  npm(['view', `${runtime.wrapper}@latest`, `optionalDependencies.${runtime.platform}`, '--json']),
);
if (typeof version !== 'string') {
  process.stderr.write(`ensure-runtime: ${runtime.wrapper} names no ${runtime.platform}\n`);
  process.exit(1);
}
process.stdout.write(`${installBinaryPackage(runtime.platform, version, cache, runtime.binary)}\n`);
