/**
 * The two spellings of a connectivity state: grpc-js's numeric enum and redialer's words.
 * @module
 */
import { connectivityState as GrpcState } from '@grpc/grpc-js';
import type { ConnectivityState } from '../../core/connectivity-state.js';

const NAMES: Readonly<Record<GrpcState, ConnectivityState>> = Object.freeze({
  [GrpcState.IDLE]: 'IDLE',
  [GrpcState.CONNECTING]: 'CONNECTING',
  [GrpcState.READY]: 'READY',
  [GrpcState.TRANSIENT_FAILURE]: 'TRANSIENT_FAILURE',
  [GrpcState.SHUTDOWN]: 'SHUTDOWN',
});

const NUMBERS: Readonly<Record<ConnectivityState, GrpcState>> = Object.freeze({
  IDLE: GrpcState.IDLE,
  CONNECTING: GrpcState.CONNECTING,
  READY: GrpcState.READY,
  TRANSIENT_FAILURE: GrpcState.TRANSIENT_FAILURE,
  SHUTDOWN: GrpcState.SHUTDOWN,
});

/** The redialer name of a grpc-js connectivity state; throws a RangeError on a value grpc-js does not define. */
export function fromGrpcState(state: GrpcState): ConnectivityState {
  const name = (NAMES as Partial<Record<number, ConnectivityState>>)[state];
  if (name === undefined) throw new RangeError(`redialer: unknown grpc-js connectivity state ${String(state)}`);
  return name;
}

/** The grpc-js connectivity state for a redialer state name. */
export function toGrpcState(state: ConnectivityState): GrpcState {
  return NUMBERS[state];
}
