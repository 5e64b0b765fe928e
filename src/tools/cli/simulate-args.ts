/**
 * The command line of `redialer simulate`, parsed and validated.
 * @module
 */
import { parseArgs } from 'node:util';
import { STORM_POLICY_NAMES } from '../simulator/policies/policy-catalog.js';
import {
  STORM_SERVER_HINTS,
  STORM_SERVER_MODELS,
  type StormServerHints,
  type StormServerModel,
} from '../simulator/simulate-storm.js';

/** The validated arguments of `redialer simulate`. */
export interface SimulateArgs {
  readonly clients: number;
  /** Outage in seconds. */
  readonly outage: number;
  /** Handshakes per second. */
  readonly capacity: number;
  readonly policies: readonly string[];
  readonly seed: number;
  /** Seeds to run, from `seed` on; more than one prints mean and range. */
  readonly seeds: number;
  /** What the server does with attempts over its budget. */
  readonly server: StormServerModel;
  /** Server-side herd control. */
  readonly serverHints: StormServerHints;
  /** Milliseconds from an attempt to the server's answer. */
  readonly latency: number;
  readonly svg: string | undefined;
  readonly json: boolean;
}

/** A bad command line; the message says which argument and why. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The help text. */
export const USAGE = `Usage: redialer simulate [options]

Simulates a reconnect storm: N clients lose their server for S seconds; it comes back accepting at
most C handshakes per second. Prints one row per policy; progress goes to stderr.

Options:
  --clients N      clients connected when the server goes down      (default 10000)
  --outage S       seconds the server is down                       (default 30)
  --capacity C     handshakes per second once it is back            (default 1000)
  --policy P       a policy, repeatable or comma-separated, or "all" (default all)
                   ${STORM_POLICY_NAMES.join(', ')}
  --seed N         seed of the random source                        (default 1)
  --seeds K        run K seeds (N, N+1, ...) and print mean [range]  (default 1)
  --server M       over-budget attempts: refuse (answered at once) or stall
                   (never answered: each lasts the client's own connect timeout)  (default refuse)
  --server-hints H none, announce (drain(): every client told outage + U(0, 1.1 N/C)
                   at the loss) or admission (each refused client told its own slot)
                   (default none; only redialer clients read hints, and
                   redialer-grpc-exact honours them exactly)
  --latency MS     time from an attempt to the server's answer      (default 0)
  --svg FILE       also write an SVG plot of attempts per second
  --json           print the results as JSON instead of a table
  -h, --help       show this text
`;

function number(
  name: string,
  text: string | undefined,
  fallback: number,
  { min, max, integer }: { min: number; max: number; integer: boolean },
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (
    text.trim() === '' ||
    !Number.isFinite(value) ||
    (integer && !Number.isInteger(value)) ||
    value < min ||
    value > max
  ) {
    throw new UsageError(
      `--${name} must be ${integer ? 'an integer' : 'a number'} from ${String(min)} to ${String(max)}, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

function choice<T extends string>(name: string, text: string | undefined, choices: readonly T[], fallback: T): T {
  if (text === undefined) return fallback;
  if (!(choices as readonly string[]).includes(text)) {
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(text)}`);
  }
  return text as T;
}

/** Parses the arguments that follow `simulate`; throws a {@link UsageError} naming the bad one. */
export function parseSimulateArgs(argv: readonly string[]): SimulateArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        clients: { type: 'string' },
        outage: { type: 'string' },
        capacity: { type: 'string' },
        policy: { type: 'string', multiple: true },
        seed: { type: 'string' },
        seeds: { type: 'string' },
        server: { type: 'string' },
        'server-hints': { type: 'string' },
        latency: { type: 'string' },
        svg: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values;
  const requested = (v.policy ?? ['all'])
    .flatMap((p) => p.split(','))
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const policies = requested.includes('all') ? [...STORM_POLICY_NAMES] : [...new Set(requested)];
  for (const name of policies) {
    if (!STORM_POLICY_NAMES.includes(name)) {
      throw new UsageError(
        `--policy ${JSON.stringify(name)} is not a known policy; choose from ${STORM_POLICY_NAMES.join(', ')} or all`,
      );
    }
  }
  if (policies.length === 0) throw new UsageError('--policy needs at least one policy name');
  if (v.svg === '') throw new UsageError('--svg needs a file name');
  const server = choice('server', v.server, STORM_SERVER_MODELS, 'refuse');
  const serverHints = choice('server-hints', v['server-hints'], STORM_SERVER_HINTS, 'none');
  return {
    clients: number('clients', v.clients, 10_000, { min: 1, max: 1_000_000, integer: true }),
    outage: number('outage', v.outage, 30, { min: 0, max: 86_400, integer: false }),
    capacity: number('capacity', v.capacity, 1000, { min: 1, max: 1_000_000_000, integer: true }),
    policies,
    seed: number('seed', v.seed, 1, { min: 0, max: 2 ** 31 - 1 - 100, integer: true }),
    seeds: number('seeds', v.seeds, 1, { min: 1, max: 100, integer: true }),
    server,
    serverHints,
    latency: number('latency', v.latency, 0, { min: 0, max: 60_000, integer: false }),
    svg: v.svg,
    json: v.json ?? false,
  };
}
