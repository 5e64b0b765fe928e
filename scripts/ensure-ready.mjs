// Makes `npm start` and `npm test` work straight after cloning: installs the locked dependencies
// when they are missing or older than the lockfile, then builds dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync('package-lock.json').mtimeMs) {
  process.stderr.write('Installing the locked dependencies (npm ci)…\n');
  execFileSync(npm, ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
execFileSync(npm, ['run', '--silent', 'build'], { stdio: 'inherit' });
