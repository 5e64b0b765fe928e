/**
 * The schedule invariant (test/support/connection-schedule.ts) on real sockets, for the components
 * that cannot run on virtual time — ManagedChannel (grpc-js owns its sockets and timers) — and, as
 * the same check of the virtual suite, http2Connector: a node:http2 server on 127.0.0.1 does with
 * each connection what a generated script says (destroy the socket at once; close it without a byte
 * of HTTP/2; SETTINGS then `session.destroy()`, which is GOAWAY NO_ERROR, at once or after a while
 * below or above minUptime; SETTINGS then GOAWAY ENHANCE_YOUR_CALM), and the attempts are counted
 * where they arrive: the `connection` event of the net server under it.
 *
 * Times are the server's, so the checker is given 25 ms of tolerance for the loopback's latency
 * (the tightest rule a too-fast schedule breaks here is 128 ms against 100 ms, and more from there).
 * Each case runs for 1.2 s with a 50-100 ms initial backoff, then closes the client, and checks that
 * every connection was closed and that the server saw no connection the manager did not start.
 *
 * Cases per run: 1 (issue 29's server) + 4 generated, for each of the two components = 10, about 15 s.
 */
import { credentials } from '@grpc/grpc-js';
import fc from 'fast-check';
import type { Observable } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConnectionManager, type ConnectionSnapshot, grpcBackoff } from '../../src/index.js';
import { ManagedChannel, http2Connector } from '../../src/adapters/grpc/index.js';
import { countClientSockets } from '../support/grpc/client-sockets.js';
import { record } from '../support/grpc/record.js';
import { type ScheduleRules, scheduleViolations } from '../support/connection-schedule.js';
import { type ScriptedBehaviour, startScriptedServer } from './support/scripted-h2-server.js';
import { cleanupAfterEach } from '../support/cleanup.js';

const RUN_MS = 1200;
const TOLERANCE_MS = 25;

/**
 * The first connection a process makes through grpc-js or node:http2 takes tens of ms longer to reach
 * the server (code loaded and compiled on first use), which the server would read as a shorter first
 * wait: one attempt each, before the properties, pays that cost.
 */
beforeAll(async () => {
  const server = await startScriptedServer([{ kind: 'refuse' }]);
  const manager = new ConnectionManager({ connector: http2Connector(`http://127.0.0.1:${String(server.port)}`) });
  const channel = new ManagedChannel(`127.0.0.1:${String(server.port)}`, credentials.createInsecure());
  manager.connect();
  channel.manager.connect();
  for (let i = 0; i < 100 && server.accepted() < 2; i++) await sleep(10);
  manager.shutdown();
  channel.close();
  await server.close();
});

const cleanup = cleanupAfterEach();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Case {
  readonly script: readonly ScriptedBehaviour[];
  readonly initialBackoff: number;
  readonly maxBackoff: number;
  readonly jitter: number;
  readonly minUptime: number;
}

/** Up-times far from minUptime on either side, so that the server's and the client's clocks agree on which side. */
const caseOf: fc.Arbitrary<Case> = fc
  .record({ minUptime: fc.integer({ min: 200, max: 400 }), initialBackoff: fc.integer({ min: 50, max: 100 }) })
  .chain(({ minUptime, initialBackoff }) =>
    fc.record({
      script: fc.array(
        fc.oneof(
          fc.constant<ScriptedBehaviour>({ kind: 'refuse' }),
          fc.integer({ min: 5, max: 30 }).map((after): ScriptedBehaviour => ({ kind: 'accept-close', after })),
          fc.constant<ScriptedBehaviour>({ kind: 'settings-goaway', uptime: 0 }),
          fc
            .oneof(
              fc.integer({ min: 0, max: Math.floor(minUptime / 4) }),
              fc.integer({ min: Math.ceil(minUptime * 1.5), max: minUptime * 2 }),
            )
            .map((uptime): ScriptedBehaviour => ({ kind: 'settings-goaway', uptime })),
          fc.constant<ScriptedBehaviour>({ kind: 'enhance-your-calm' }),
        ),
        { minLength: 1, maxLength: 4 },
      ),
      initialBackoff: fc.constant(initialBackoff),
      maxBackoff: fc.integer({ min: initialBackoff, max: 1000 }),
      jitter: fc.oneof(fc.constant(0.2), fc.double({ min: 0, max: 0.5, noNaN: true })),
      minUptime: fc.constant(minUptime),
    }),
  );

/** Issue 29's server: SETTINGS then GOAWAY NO_ERROR at once, on every connection, with the default minUptime. */
const ISSUE: Case = {
  script: [{ kind: 'settings-goaway', uptime: 0 }],
  initialBackoff: 100,
  maxBackoff: 120_000,
  jitter: 0.2,
  minUptime: 5000,
};

/** A component under test, not yet connected: the manager it runs on, and how the app closes it. */
interface Client {
  readonly manager: { readonly state$: Observable<ConnectionSnapshot>; connect(): void };
  close(): void;
}

/** Builds the component for case `c` against the scripted server on `port`. */
type ClientOf = (port: number, c: Case, rules: ScheduleRules) => Client;

/** Runs the client `clientOf` builds against a scripted server for RUN_MS; every broken rule. */
async function check(c: Case, clientOf: ClientOf): Promise<string[]> {
  const server = await startScriptedServer(c.script);
  cleanup.push(() => server.close());
  const dials = countClientSockets(server.port);
  cleanup.push(() => {
    dials.stop();
  });
  const rules: ScheduleRules = {
    backoff: grpcBackoff({ initialBackoff: c.initialBackoff, maxBackoff: c.maxBackoff, jitter: c.jitter }),
    minUptime: c.minUptime,
    tolerance: TOLERANCE_MS,
  };
  const client = clientOf(server.port, c, rules);
  const log = record(client.manager.state$);
  client.manager.connect();
  cleanup.push(() => {
    client.close();
  });
  await sleep(RUN_MS);
  server.stopping();
  client.close();
  const end = server.now();
  // Every connection closes soon after close() (bounded: a loaded machine may take a while).
  for (let i = 0; i < 100 && (server.open() > 0 || dials.open() > 0); i++) await sleep(20);
  const problems = scheduleViolations({ attempts: server.attempts(), end }, rules);
  const starts = log.snapshots.filter((s) => s.state === 'CONNECTING').length;
  if (server.accepted() > starts)
    problems.push(`the server accepted ${String(server.accepted())} connections for ${String(starts)} attempts`);
  if (server.mostOpen() > 1) problems.push(`${String(server.mostOpen())} connections were open at once`);
  if (server.open() > 0) problems.push(`${String(server.open())} connections open at the server after close`);
  if (dials.open() > 0) problems.push(`${String(dials.open())} client sockets open after close`);
  return problems;
}

/**
 * Few runs of a property over real sockets (numRuns counts the example: issue 29's server, then 4
 * generated cases); the first failure is reported as it is, without shrinking.
 */
const REAL = { numRuns: 5, endOnFailure: true, examples: [[ISSUE]] as [Case][] };

/** The two components, by the names of their properties. */
const CLIENTS: readonly (readonly [string, ClientOf])[] = [
  [
    'ConnectionManager + http2Connector',
    (port, c, rules) => {
      const manager = new ConnectionManager({
        connector: http2Connector(`http://127.0.0.1:${String(port)}`),
        backoff: rules.backoff,
        minUptime: c.minUptime,
      });
      const close = () => {
        manager.shutdown();
      };
      return { manager, close };
    },
  ],
  [
    'ManagedChannel',
    (port, c, rules) => {
      const channel = new ManagedChannel(`127.0.0.1:${String(port)}`, credentials.createInsecure(), {
        backoff: rules.backoff,
        minUptime: c.minUptime,
      });
      // channel.state$ is its manager's state$.
      return {
        manager: channel.manager,
        close: () => {
          channel.close();
        },
      };
    },
  ],
];

describe('real sockets on 127.0.0.1: the schedule invariant, counted at the server', { timeout: 60_000 }, () => {
  it.each(CLIENTS)('%s', async (_name, clientOf) => {
    await fc.assert(
      fc.asyncProperty(caseOf, async (c) => {
        expect(await check(c, clientOf)).toEqual([]);
      }),
      REAL,
    );
  });
});
