/**
 * redialer/grpc: gRPC's connection-backoff protocol for @grpc/grpc-js and node:http2 — channel state
 * as an Observable, a SETTINGS-aware HTTP/2 connector, a managed grpc-js channel for existing clients,
 * and resumable streams.
 * @module redialer/grpc
 */
export { channelState, type ChannelStateOptions, type WatchableChannel } from './channel-state-observable.js';
export { fromGrpcState, toGrpcState } from './connectivity-state-names.js';
export { http2Connector, type Http2ConnectorOptions } from './http2-connector.js';
export type { HealthCheckOptions } from './health-check/health-checked.js';
export { ManagedChannel, managedChannelFactory, type ManagedChannelOptions } from './managed-channel.js';
export { grpcChannelConnector } from './grpc-js-workarounds/grpc-channel-connector.js';
export { ManagedCall, type GrpcCall } from './managed-call.js';
export {
  ResilientStream,
  type ResilientStreamOptions,
  type ResponseStream,
  type StreamChannel,
  type StreamOpenContext,
} from './resilient-stream.js';
export { GoawayError, isGoawayError } from './goaway-error.js';
export { isTooManyPings, type KeepaliveOptions, MIN_KEEPALIVE_TIME } from './keepalive.js';
export { KeepaliveTimeoutError, isKeepaliveTimeoutError } from './keepalive-timeout-error.js';
export { ConnectionFailedError, isConnectionFailedError } from './connection-failed-error.js';
export { StreamStatusError, isStreamStatusError } from './stream-status-error.js';
export { lookupAddresses, hostPort, type LookupAddressesOptions } from './lookup-addresses.js';
