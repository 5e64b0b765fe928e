/**
 * `npm start`: the scripted demo in the terminal, with the dashboard served on 127.0.0.1.
 *   --serve     keep running with the dashboard after the story (Ctrl-C to stop)
 *   --fast      the same story in about fifteen seconds
 *   --port N    the dashboard's port (default 4600; a free one if taken)
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runDemo } from './run-demo.js';
import { FAST_SCENARIO, FULL_SCENARIO } from './scenario.js';

const USAGE = 'usage: npm start [-- --serve] [--fast] [--port N]';

function parse(): { serve: boolean; fast: boolean; port: number } | undefined {
  const { values } = parseArgs({
    options: {
      serve: { type: 'boolean', default: false },
      fast: { type: 'boolean', default: false },
      port: { type: 'string', default: '4600' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`redialer demo: --port must be an integer in [0, 65535], got ${values.port}`);
  return { serve: values.serve, fast: values.fast, port };
}

let args;
try {
  args = parse();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (args === undefined) {
  process.stdout.write(`${USAGE}\n`);
} else {
  const stop = new AbortController();
  // The first Ctrl-C ends the story (with its summary) or the serve mode; a second one exits at once.
  const onSignal = (): void => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  await runDemo({
    scenario: args.fast ? FAST_SCENARIO : FULL_SCENARIO,
    serve: args.serve,
    port: args.port,
    assetsDir: dirname(fileURLToPath(import.meta.url)),
    out: process.stdout,
    signal: stop.signal,
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
