/**
 * The demo's script: which fault the proxies apply, for how long, and the connection settings that
 * make the story fit in about a minute (or about fifteen seconds with `--fast`).
 */
import type { Fault } from '../src/testing/node.js';

/** The connection settings both demo clients use; times in ms. */
export interface DemoSettings {
  readonly initialBackoff: number;
  readonly multiplier: number;
  readonly jitter: number;
  readonly maxBackoff: number;
  readonly minConnectTimeout: number;
  readonly minUptime: number;
}

/** gRPC's defaults (connection-backoff.md) and redialer's default flap guard, for comparison. */
export const GRPC_DEFAULTS: DemoSettings = {
  initialBackoff: 1000,
  multiplier: 1.6,
  jitter: 0.2,
  maxBackoff: 120_000,
  minConnectTimeout: 20_000,
  minUptime: 5000,
};

/** One step of the script. */
export interface Phase {
  /** Short name, shown in the timeline. */
  readonly name: string;
  /** What happens, in one line. */
  readonly explain: string;
  /** What the proxies do to new connections. */
  readonly fault: Fault;
  /** Whether the connections open when the phase starts are reset (the server "crashes"). */
  readonly dropOpen: boolean;
  /** How long the phase lasts (ms); the last phase lasts until every client is back, at most this. */
  readonly duration: number;
  /** Whether the server is reachable again from this phase on (recovery is timed from here). */
  readonly recovery: boolean;
}

/** A named script with its settings. */
export interface Scenario {
  readonly name: 'full' | 'fast';
  readonly settings: DemoSettings;
  readonly phases: readonly Phase[];
}

function phases(unit: number): Phase[] {
  return [
    {
      name: 'up',
      explain: 'both servers are up; the clients connect',
      fault: { kind: 'pass' },
      dropOpen: false,
      duration: 4 * unit,
      recovery: false,
    },
    {
      name: 'server down',
      explain: 'the servers crash: connections reset, the port refuses (ECONNREFUSED)',
      fault: { kind: 'refuse' },
      dropOpen: true,
      duration: 10 * unit,
      recovery: false,
    },
    {
      name: 'server back',
      explain: 'the servers are back: each client reconnects at its next attempt, not before',
      fault: { kind: 'pass' },
      dropOpen: false,
      duration: 8 * unit,
      recovery: true,
    },
    {
      name: 'black hole',
      explain: 'connections reset; the port accepts TCP and never answers: attempts are cut at min connect timeout',
      fault: { kind: 'blackhole' },
      dropOpen: true,
      duration: 9 * unit,
      recovery: false,
    },
    {
      name: 'accept and close',
      explain: 'the port accepts and closes at once: no handshake, so each attempt fails and the backoff grows',
      fault: { kind: 'close-after', ms: 0 },
      dropOpen: false,
      duration: 9 * unit,
      recovery: false,
    },
    {
      name: 'recovery',
      explain: 'the servers answer again; the demo ends once every client has been READY for minUptime',
      fault: { kind: 'pass' },
      dropOpen: false,
      duration: 15 * unit,
      recovery: true,
    },
  ];
}

/** The story `npm start` tells: about a minute. */
export const FULL_SCENARIO: Scenario = {
  name: 'full',
  settings: {
    initialBackoff: 500,
    multiplier: 1.6,
    jitter: 0.2,
    maxBackoff: 5000,
    minConnectTimeout: 2500,
    minUptime: 2000,
  },
  phases: phases(1000),
};

/** The same story in about fifteen seconds (`--fast`, used by the tests). */
export const FAST_SCENARIO: Scenario = {
  name: 'fast',
  settings: {
    initialBackoff: 250,
    multiplier: 1.6,
    jitter: 0.2,
    maxBackoff: 2000,
    minConnectTimeout: 1000,
    minUptime: 1000,
  },
  phases: phases(350),
};

const LABELS: Record<keyof DemoSettings, string> = {
  initialBackoff: 'initial backoff',
  multiplier: 'multiplier',
  jitter: 'jitter',
  maxBackoff: 'max backoff',
  minConnectTimeout: 'min connect timeout',
  minUptime: 'minUptime (flap guard)',
};

const seconds = (ms: number): string => `${String(ms / 1000)} s`;

function format(key: keyof DemoSettings, value: number): string {
  if (key === 'multiplier') return `×${String(value)}`;
  if (key === 'jitter') return `±${String(Math.round(value * 100))} %`;
  return seconds(value);
}

/** The settings that differ from gRPC's defaults, e.g. `initial backoff 0.5 s (gRPC: 1 s)`. */
export function differencesFromGrpc(settings: DemoSettings): string[] {
  return (Object.keys(LABELS) as (keyof DemoSettings)[])
    .filter((key) => settings[key] !== GRPC_DEFAULTS[key])
    .map(
      (key) =>
        `${LABELS[key]} ${format(key, settings[key])} (${key === 'minUptime' ? "redialer's default" : 'gRPC'}: ${format(key, GRPC_DEFAULTS[key])})`,
    );
}
