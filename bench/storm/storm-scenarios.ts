/** The storm benchmark's scenarios: the outages and server models of the comparison, five seeds each. */
import type { StormScenario } from './storm-bench.js';

/** The policy that reads server hints exactly; hints only matter to redialer clients. */
const HINT_READERS = ['redialer-grpc-exact'];
/** The peers and the two grpcBackoff modes that decide the comparison, at every outage and server model. */
const CORE = ['redialer-grpc', 'grpc-js', 'reconnecting-websocket', 'socket.io'];
/** The full field at 30 s; at 120 s without the episode variants, which match the default on time there too. */
const AT_30 = [
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
  'signalr',
];
const AT_120 = AT_30.filter((name) => name !== 'redialer-grpc-episode-log' && name !== 'redialer-grpc-episode-period');

/**
 * The scenarios of a full run (`quick`: fewer clients and seeds). Ten thousand clients fire millions
 * of timers per run, so the field is narrowed where it would not change a conclusion: every policy of
 * the catalog runs in `redialer simulate`.
 */
export function stormScenarios(quick: boolean): StormScenario[] {
  const clients = quick ? 2000 : 10_000;
  const seeds = quick ? [1, 2] : [1, 2, 3, 4, 5];
  const outages = quick ? [30, 120] : [30, 45, 60, 65, 120];
  // C = 1,000/s (500/s after 120 s), scaled with the clients in quick mode.
  const capacityFor = (outage: number): number => ((outage === 120 ? 500 : 1000) * clients) / 10_000;
  const scenario = (
    outage: number,
    server: StormScenario['server'],
    serverHints: StormScenario['serverHints'],
    policies: readonly string[],
  ): StormScenario => ({
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
    ...outages.map((o) => scenario(o, 'refuse', 'none', o === 30 ? AT_30 : o === 120 ? AT_120 : CORE)),
    ...[30, 120].map((o) => scenario(o, 'stall', 'none', CORE)),
    ...(quick ? [30] : [30, 60, 120]).map((o) => scenario(o, 'refuse', 'announce', HINT_READERS)),
    ...[30, 120].map((o) => scenario(o, 'refuse', 'admission', HINT_READERS)),
  ];
}
