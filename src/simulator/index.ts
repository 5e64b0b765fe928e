/**
 * The reconnect-storm simulator: run the real connection manager for thousands of clients on a
 * virtual clock against a server that goes down, and see the herd before you ship.
 * @module redialer/simulator
 */
export { simulateStorm, type StormOptions, type StormProgress } from './simulate-storm.js';
export { type StormResult, type ReconnectTimes, summarizeStorm, timeToShare, type StormSummaryInput } from './storm-result.js';
export { StormServer, type Admission, type StormServerOptions } from './storm-server.js';
export { StormRecorder } from './storm-recorder.js';
export type { StormPolicy, ClientReconnect } from './storm-policy.js';
export { STORM_POLICIES, STORM_POLICY_NAMES, stormPolicy } from './policies/policy-catalog.js';
export {
  redialerGrpcPolicy,
  fullJitterPolicy,
  equalJitterPolicy,
  decorrelatedJitterPolicy,
  noJitterPolicy,
} from './policies/redialer-policies.js';
export { grpcJsPolicy, GRPC_JS_DEFAULTS } from './policies/grpc-js-policy.js';
export { reconnectingWebSocketPolicy, partysocketPolicy } from './policies/reconnecting-websocket-policy.js';
export { socketIoPolicy, socketIoDuration } from './policies/socket-io-policy.js';
export { signalrPolicy, SIGNALR_DEFAULT_DELAYS } from './policies/signalr-policy.js';
export { unfoldBackoff } from './policies/unfold-backoff.js';
export { seededRandom } from './seeded-random.js';
export { stormTable, stormRows, STORM_COLUMNS } from './storm-table.js';
export { stormSvg } from './storm-svg.js';
export { lineChartSvg, type ChartSeries, type LineChartOptions } from './line-chart-svg.js';
export { smallMultiplesSvg, type SmallMultiplesOptions } from './small-multiples-svg.js';
