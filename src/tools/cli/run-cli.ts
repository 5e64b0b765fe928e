/**
 * The `redialer` command: `redialer simulate ...`. Kept apart from the executable so it can be tested.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { simulateStorm } from '../simulator/simulate-storm.js';
import { stormPolicy } from '../simulator/policies/policy-catalog.js';
import type { StormResult } from '../simulator/storm-result.js';
import { type StormSeedsSummary, stormSeedsTable, summarizeSeeds } from '../simulator/storm-seeds.js';
import { stormSvg } from '../simulator/storm-svg.js';
import { stormTable } from '../simulator/storm-table.js';
import { USAGE, UsageError, parseSimulateArgs } from './simulate-args.js';

/** Where the command writes. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly writeFile: (path: string, text: string) => Promise<void>;
}

const defaultIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  writeFile: (path, text) => writeFile(path, text, 'utf8'),
};

/** Runs the command and returns the exit code: 0 done, 1 failed, 2 bad usage. */
export async function runCli(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'simulate') {
    io.stderr.write(`redialer: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return 2;
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  let args;
  try {
    args = parseSimulateArgs(rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`redialer: ${error.message}\nRun "redialer simulate --help" for the options.\n`);
    return 2;
  }
  const results: StormResult[] = [];
  const summaries: StormSeedsSummary[] = [];
  const tty = io.stderr.isTTY === true;
  for (const [i, name] of args.policies.entries()) {
    const runs: StormResult[] = [];
    for (let k = 0; k < args.seeds; k++) {
      const seed = args.seed + k;
      const label = `[${String(i + 1)}/${String(args.policies.length)}] ${name}${args.seeds > 1 ? ` seed ${String(seed)}` : ''}`;
      let lastShown = -1;
      const result = simulateStorm({
        policy: stormPolicy(name),
        clients: args.clients,
        outage: args.outage * 1000,
        capacity: args.capacity,
        seed,
        latency: args.latency,
        server: args.server,
        serverHints: args.serverHints,
        onProgress: ({ elapsed, reconnected, clients }) => {
          if (!tty) return;
          const second = Math.floor(elapsed / 1000);
          if (second === lastShown) return;
          lastShown = second;
          const pct = ((100 * reconnected) / clients).toFixed(1);
          io.stderr.write(`\r${label}: t=${String(second)} s, ${pct} % reconnected   `);
        },
      });
      runs.push(result);
      io.stderr.write(
        `${tty ? '\r' : ''}${label}: done, ${String(result.reconnected)}/${String(result.clients)} reconnected${' '.repeat(20)}\n`,
      );
    }
    results.push(...runs);
    summaries.push(summarizeSeeds(runs));
  }
  if (args.json) io.stdout.write(`${JSON.stringify(args.seeds > 1 ? summaries : results, null, 2)}\n`);
  else io.stdout.write(`${args.seeds > 1 ? stormSeedsTable(summaries) : stormTable(results)}\n`);
  if (args.svg !== undefined) {
    await io.writeFile(args.svg, stormSvg(results.filter((r) => r.seed === args.seed)));
    io.stderr.write(`redialer: wrote ${args.svg}\n`);
  }
  return 0;
}
