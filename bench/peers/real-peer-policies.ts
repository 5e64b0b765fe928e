/** The storm contestants with the peers driven through their own code. */
import { STORM_POLICIES } from '../../src/tools/simulator/policies/policy-catalog.js';
import type { StormPolicy } from '../../src/tools/simulator/storm-policy.js';
import { grpcJsReal } from './grpc-js-real.js';
import {
  partysocketReal,
  reconnectingWebSocketProcessReal,
  reconnectingWebSocketReal,
} from './reconnecting-websocket-real.js';
import { signalrReal } from './signalr-real.js';
import { socketIoReal } from './socket-io-real.js';

/** Each peer's real code, under the name of its formula model in the shipped catalog. */
export const REAL_PEERS: readonly StormPolicy[] = [
  grpcJsReal,
  reconnectingWebSocketReal,
  reconnectingWebSocketProcessReal,
  partysocketReal,
  socketIoReal,
  signalrReal,
];

/** The shipped catalog, in its order, with every peer's formula model replaced by its real code. */
export const BENCH_POLICIES: readonly StormPolicy[] = STORM_POLICIES.map(
  (policy) => REAL_PEERS.find((real) => real.name === policy.name) ?? policy,
);
