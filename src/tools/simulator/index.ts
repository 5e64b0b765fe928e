/**
 * The reconnect-storm simulator: run the real connection manager for thousands of clients on a
 * virtual clock against a server that goes down, and see the herd before you ship.
 * @module redialer/simulator
 */
export {
  simulateStorm,
  type StormOptions,
  type StormProgress,
  type StormServerModel,
  type StormServerHints,
  STORM_SERVER_MODELS,
  STORM_SERVER_HINTS,
} from './simulate-storm.js';
export {
  summarizeSeeds,
  stormSeedsTable,
  stormSeedsRows,
  STORM_SEEDS_COLUMNS,
  type StormSeedsSummary,
  type SeedRange,
} from './storm-seeds.js';
export {
  type StormResult,
  type ReconnectTimes,
  summarizeStorm,
  timeToShare,
  type StormSummaryInput,
} from './storm-result.js';
export { StormServer, type StormAttemptOutcome, type StormServerOptions, type StormDecision } from './storm-server.js';
export { StormRecorder } from './storm-recorder.js';
export type { StormPolicy, ClientReconnect, PeerRules } from './storm-policy.js';
export { STORM_POLICIES, STORM_POLICY_NAMES, stormPolicy } from './policies/policy-catalog.js';
export {
  redialerGrpcPolicy,
  redialerGrpcIndependentPolicy,
  redialerGrpcEpisodeLogPolicy,
  redialerGrpcEpisodePeriodPolicy,
  redialerGrpcSpreadPolicy,
  redialerGrpcExactPolicy,
  fullJitterPolicy,
  equalJitterPolicy,
  decorrelatedJitterPolicy,
  noJitterPolicy,
} from './policies/redialer-policies.js';
export { grpcJsPolicy, GRPC_JS_DEFAULTS, GRPC_JS_RULES } from './policies/grpc-js-policy.js';
export {
  reconnectingWebSocketPolicy,
  reconnectingWebSocketProcessPolicy,
  partysocketPolicy,
  reconnectingWebSocketMinDelay,
  RECONNECTING_WEBSOCKET_RULES,
} from './policies/reconnecting-websocket-policy.js';
export { socketIoPolicy, socketIoDuration, SOCKET_IO_RULES } from './policies/socket-io-policy.js';
export { signalrPolicy, SIGNALR_DEFAULT_DELAYS, SIGNALR_RULES } from './policies/signalr-policy.js';
export { unfoldBackoff } from './policies/unfold-backoff.js';
export { seededRandom } from './seeded-random.js';
export { stormTable, stormRows, STORM_COLUMNS, renderTable } from './storm-table.js';
export { stormSvg, type StormSvgOptions } from './storm-svg.js';
