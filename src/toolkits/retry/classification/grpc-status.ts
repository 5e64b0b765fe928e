/**
 * gRPC status codes (grpc/grpc doc/statuscodes.md) as plain numbers, so that the retry toolkit can
 * read a gRPC error without importing a gRPC library.
 * @module
 */

/** The gRPC status codes by name. */
export const GrpcStatus = Object.freeze({
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const);

/** The name of a gRPC status code, e.g. `UNAVAILABLE`. */
export type GrpcStatusName = keyof typeof GrpcStatus;

/** A gRPC status code, 0–16. */
export type GrpcStatusCode = (typeof GrpcStatus)[GrpcStatusName];

const NAMES: readonly GrpcStatusName[] = Object.keys(GrpcStatus) as GrpcStatusName[];

/** The name of `code` (`UNAVAILABLE` for 14), or undefined if it is not a gRPC status code. */
export function grpcStatusName(code: number): GrpcStatusName | undefined {
  return NAMES[code];
}

/** Reads a code given as a number (14) or a name (`UNAVAILABLE`, as gRFC A6 service configs do). */
export function toGrpcStatusCode(value: number | string): GrpcStatusCode | undefined {
  if (typeof value === 'number')
    return Number.isInteger(value) && value >= 0 && value < NAMES.length ? (value as GrpcStatusCode) : undefined;
  return Object.hasOwn(GrpcStatus, value) ? GrpcStatus[value as GrpcStatusName] : undefined;
}
