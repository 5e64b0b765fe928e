/**
 * redialer: gRPC's connection-backoff protocol as an observable connection state machine.
 *
 * This entry is what an application uses: the manager, the backoff constructors, the UI status and
 * the errors (with their guards) that an application catches or throws, and the defaults its options
 * start from. The backoff's constants and building blocks (the transition table, jitter kinds, the
 * delay ceiling, attempt spacing, address interleaving) are in `redialer/machine`.
 * @module redialer
 */
export { ConnectivityState } from './core/connectivity-state.js';
export type {
  ConnectionSnapshot,
  IdleSnapshot,
  ConnectingSnapshot,
  ReadySnapshot,
  TransientFailureSnapshot,
  ShutdownSnapshot,
  ShutdownReason,
} from './core/connection-snapshot.js';
export type { Connector, AttemptContext } from './core/connector.js';
export {
  ConnectionManager,
  createConnectionManager,
  type PauseOptions,
  type WaitForStateChangeOptions,
  type WakeOptions,
} from './core/connection-manager.js';
export {
  connectionStatus,
  connectionEvents,
  DEFAULT_GRACE_MS,
  type ConnectionPhase,
  type ConnectionStatus,
  type ConnectionStatusOptions,
  type ConnectionEvent,
  type StatusSnapshot,
} from './core/connection-status.js';
export { CONNECTION_DEFAULTS, type ConnectionManagerOptions, type TraceEntry } from './core/connection-options.js';
export type { Backoff, BackoffPolicy, RandomSource } from './backoff/backoff.js';
export { grpcBackoff, type GrpcBackoffOptions, type GrpcJitterMode } from './backoff/grpc-backoff.js';
export { exponentialBackoff, type JitterKind, type ExponentialBackoffOptions } from './backoff/exponential-backoff.js';
export { constantBackoff } from './backoff/constant-backoff.js';
export type { AttemptSpacing } from './backoff/attempt-spacing.js';
export { unrefScheduler } from './internal/unref-scheduler.js';
export { ConnectTimeoutError, isConnectTimeoutError } from './errors/connect-timeout-error.js';
export { PermanentError, isPermanentError, permanent } from './errors/permanent-error.js';
export { BackoffPolicyError, isBackoffPolicyError } from './errors/backoff-policy-error.js';
export { isGracefulEnd, markGracefulEnd } from './errors/graceful-end.js';
export { ShutdownError, isShutdownError } from './errors/shutdown-error.js';
export { ConnectionClosedError, isConnectionClosedError } from './errors/connection-closed-error.js';
export { type CannotResumeError, isCannotResumeError } from './errors/cannot-resume-error.js';
export { ResumeCursor, type ResumeCursorOptions } from './core/resume-cursor.js';
export { type NotServingError, type NotServingErrorOptions, isNotServingError } from './errors/not-serving-error.js';
export { RetryAfterError, isRetryAfterError, retryAfter, retryAfterDelayOf } from './errors/retry-after-error.js';
export { type UnhandledErrorHandler } from './internal/report-unhandled-error.js';
export { ConnectorBackoffError, isConnectorBackoffError } from './errors/connector-backoff-error.js';
export {
  happyEyeballs,
  ATTEMPT_DELAY,
  type AddressEntry,
  type AddressSnapshot,
  type HappyEyeballsConnector,
  type HappyEyeballsOptions,
} from './connectors/happy-eyeballs.js';
export {
  AllAddressesFailedError,
  isAllAddressesFailedError,
  type AddressFailure,
} from './connectors/all-addresses-failed-error.js';
