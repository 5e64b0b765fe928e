/**
 * The storm contestants by name, for the command line and the benchmark.
 * @module
 */
import type { StormPolicy } from '../storm-policy.js';
import { grpcJsPolicy } from './grpc-js-policy.js';
import {
  partysocketPolicy,
  reconnectingWebSocketPolicy,
  reconnectingWebSocketProcessPolicy,
} from './reconnecting-websocket-policy.js';
import {
  decorrelatedJitterPolicy,
  equalJitterPolicy,
  fullJitterPolicy,
  noJitterPolicy,
  redialerGrpcEpisodeLogPolicy,
  redialerGrpcEpisodePeriodPolicy,
  redialerGrpcIndependentPolicy,
  redialerGrpcPolicy,
  redialerGrpcSpreadPolicy,
  redialerGrpcExactPolicy,
} from './redialer-policies.js';
import { signalrPolicy } from './signalr-policy.js';
import { socketIoPolicy } from './socket-io-policy.js';

/** Every built-in storm policy, redialer's first, then the peers' formula models. */
export const STORM_POLICIES: readonly StormPolicy[] = Object.freeze([
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
  grpcJsPolicy,
  reconnectingWebSocketPolicy,
  reconnectingWebSocketProcessPolicy,
  partysocketPolicy,
  socketIoPolicy,
  signalrPolicy,
]);

/** The names of {@link STORM_POLICIES}. */
export const STORM_POLICY_NAMES: readonly string[] = Object.freeze(STORM_POLICIES.map((p) => p.name));

/** Looks a built-in policy up by name; throws a RangeError listing the names when there is none. */
export function stormPolicy(name: string): StormPolicy {
  const policy = STORM_POLICIES.find((p) => p.name === name);
  if (policy === undefined) {
    throw new RangeError(
      `redialer: unknown policy ${JSON.stringify(name)}; choose one of ${STORM_POLICY_NAMES.join(', ')}`,
    );
  }
  return policy;
}
