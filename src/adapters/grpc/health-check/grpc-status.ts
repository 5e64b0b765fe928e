/**
 * gRPC status codes as the health check needs them, without loading @grpc/grpc-js (the HTTP/2
 * connector does not need it): their names, and the code of an HTTP response that is not gRPC
 * (grpc/grpc doc/http-grpc-status-mapping.md), which is what a proxy answers for a backend it cannot reach.
 * @module
 */

/** Status names by code (0–16). */
const NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

export const CANCELLED = 1;
export const UNKNOWN = 2;
export const INTERNAL = 13;
export const UNIMPLEMENTED = 12;
export const UNAVAILABLE = 14;

/** The name of a status code (`UNAVAILABLE`), or `status 42` for one this version does not know. */
export function grpcStatusName(code: number): string {
  return NAMES[code] ?? `status ${String(code)}`;
}

/** The gRPC status of an HTTP response that carries none, by its HTTP status. */
export function grpcStatusOfHttp(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
      return INTERNAL;
    case 401:
      return 16;
    case 403:
      return 7;
    case 404:
      return UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return UNAVAILABLE;
    default:
      return UNKNOWN;
  }
}
