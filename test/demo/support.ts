/** Builds the demo (as `npm start` does) into a folder of test-results/ for a test to run. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs scripts/build-demo.mjs into test-results/<name>/ and returns that folder. */
export async function buildDemo(name: string): Promise<string> {
  const outdir = `${root}test-results/${name}`;
  await promisify(execFile)(process.execPath, ['scripts/build-demo.mjs', outdir], { cwd: root, timeout: 60_000 });
  return outdir;
}
