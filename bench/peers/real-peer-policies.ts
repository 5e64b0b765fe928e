/** The storm contestants with the peers driven through their own code. */
import type { StormPolicy } from '../../src/simulator/storm-policy.js';
import {
  decorrelatedJitterPolicy,
  equalJitterPolicy,
  fullJitterPolicy,
  noJitterPolicy,
  redialerGrpcPolicy,
} from '../../src/simulator/policies/redialer-policies.js';
import { grpcJsReal } from './grpc-js-real.js';
import { partysocketReal, reconnectingWebSocketReal } from './reconnecting-websocket-real.js';
import { signalrReal } from './signalr-real.js';
import { socketIoReal } from './socket-io-real.js';

/** redialer's policies, then the peers' real code. */
export const BENCH_POLICIES: readonly StormPolicy[] = [
  redialerGrpcPolicy,
  fullJitterPolicy,
  equalJitterPolicy,
  decorrelatedJitterPolicy,
  noJitterPolicy,
  grpcJsReal,
  reconnectingWebSocketReal,
  partysocketReal,
  socketIoReal,
  signalrReal,
];
