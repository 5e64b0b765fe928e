/** The storm benchmark's scenarios: the outages and server models of the comparison, five seeds each. */
import { STORM_POLICY_NAMES } from '../../src/simulator/policies/policy-catalog.js';
import type { StormScenario } from './storm-bench.js';

/** Policies that read server hints; the others are compared without them. */
const HINT_READERS = ['redialer-grpc', 'redialer-grpc-exact'];
/** The contestants of the stalling-server runs: redialer's default and the peers. */
const STALL_POLICIES = ['redialer-grpc', 'grpc-js', 'reconnecting-websocket', 'reconnecting-websocket-process', 'socket.io', 'signalr'];
/**
 * The contestants at the outages between 30 and 120 s (the full catalog runs at 30 and 120 s): the
 * default and its variants, grpc-js, and the peers that are close on time. Keeps a full run in budget.
 */
const MIDDLE_POLICIES = [
  'redialer-grpc',
  'redialer-grpc-independent',
  'redialer-grpc-episode-log',
  'redialer-grpc-episode-period',
  'redialer-grpc-spread',
  'full-jitter',
  'grpc-js',
  'reconnecting-websocket',
  'reconnecting-websocket-process',
  'socket.io',
];

/** The scenarios of a full run (`quick`: fewer clients, outages and seeds). */
export function stormScenarios(quick: boolean): StormScenario[] {
  const clients = quick ? 2000 : 10_000;
  const seeds = quick ? [1, 2] : [1, 2, 3, 4, 5];
  const outages = quick ? [30, 120] : [30, 45, 60, 65, 120];
  // C = 1,000/s (500/s after 120 s), scaled with the clients in quick mode.
  const capacityFor = (outage: number): number => ((outage === 120 ? 500 : 1000) * clients) / 10_000;
  const noHints = STORM_POLICY_NAMES.filter((name) => name !== 'redialer-grpc-exact');
  const scenario = (outage: number, server: StormScenario['server'], serverHints: StormScenario['serverHints'], policies: readonly string[]): StormScenario => ({
    id: `${String(clients / 1000)}k-${String(outage)}s-${server}${serverHints === 'none' ? '' : `-${serverHints}`}`,
    clients,
    outage: outage * 1000,
    capacity: capacityFor(outage),
    server,
    serverHints,
    seeds,
    policies,
  });
  return [
    ...outages.map((o) => scenario(o, 'refuse', 'none', o === 30 || o === 120 ? noHints : MIDDLE_POLICIES)),
    ...[30, 120].map((o) => scenario(o, 'stall', 'none', STALL_POLICIES)),
    ...(quick ? [30] : [30, 60, 120]).flatMap((o) => [scenario(o, 'refuse', 'announce', HINT_READERS), scenario(o, 'refuse', 'admission', HINT_READERS)]),
  ];
}
