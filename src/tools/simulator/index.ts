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
/** The built-in policies (redialer's and the peers' formula models) by name: {@link stormPolicy}. */
export { STORM_POLICIES, STORM_POLICY_NAMES, stormPolicy } from './policies/policy-catalog.js';
export { stormTable, stormRows, STORM_COLUMNS, renderTable } from './storm-table.js';
export { stormSvg, type StormSvgOptions } from './storm-svg.js';
