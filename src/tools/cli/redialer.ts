#!/usr/bin/env node
/**
 * The `redialer` executable. See `redialer simulate --help`.
 * @module
 */
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`redialer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
