/**
 * Transient or permanent: whether a failure is worth another attempt, and whether it may have reached
 * the server (which decides whether a non-idempotent operation may be repeated). Every verdict carries
 * its reason in words, so that a failure that is not retried says why.
 * @module
 */
import { isPermanentError } from '../../../errors/permanent-error.js';
import { readSafely } from '../../../internal/read-safely.js';
import { describeValue } from '../../../internal/validate.js';
import { describeError } from '../../../internal/describe-error.js';
import { isAttemptTimeoutError } from '../timeouts/attempt-timeout-error.js';
import { isDeadlineExceededError } from '../timeouts/deadline-exceeded-error.js';
import { GrpcStatus, grpcStatusName, toGrpcStatusCode } from './grpc-status.js';
import { isRetriesExhausted } from '../core/retries-exhausted.js';

/**
 * Whether a failed attempt may have reached the server: `no` when the failure proves that nothing
 * was sent (connection refused, DNS failure), `maybe` otherwise (timeout, reset after send, 5xx).
 */
export type SentVerdict = 'no' | 'maybe';

/** The verdict on one failure. */
export type Classification =
  | { readonly kind: 'transient'; readonly reason: string; readonly sent: SentVerdict }
  | { readonly kind: 'permanent'; readonly reason: string };

/** A user rule: a verdict, or undefined to leave the failure to the next rule and the defaults. */
export type ClassifierRule = (error: unknown) => Classification | undefined;

/** Classifies a failure; never throws. */
export type Classifier = (error: unknown) => Classification;

/** A transient verdict. */
export function transient(reason: string, sent: SentVerdict = 'maybe'): Classification {
  return Object.freeze({ kind: 'transient', reason, sent });
}

/** A permanent verdict. */
export function permanentFailure(reason: string): Classification {
  return Object.freeze({ kind: 'permanent', reason });
}

/**
 * The HTTP statuses retried by default: 408, 429 and every 5xx except 501 (Not Implemented), 505
 * (HTTP Version Not Supported) and 511 (Network Authentication Required), which no retry can fix.
 */
export const DEFAULT_RETRYABLE_HTTP_STATUSES: readonly number[] = Object.freeze([
  408,
  429,
  ...Array.from({ length: 100 }, (_, i) => 500 + i).filter((s) => s !== 501 && s !== 505 && s !== 511),
]);

/**
 * The gRPC codes retried by default. UNAVAILABLE means the server did not process the call, so it is
 * retried even for non-idempotent operations; RESOURCE_EXHAUSTED, ABORTED and DEADLINE_EXCEEDED may
 * follow processing, so they are retried only for idempotent ones.
 */
export const DEFAULT_RETRYABLE_GRPC_CODES: readonly number[] = Object.freeze([
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.ABORTED,
  GrpcStatus.DEADLINE_EXCEEDED,
]);

/** HTTP statuses that say the request was not processed: the server refused it before acting. */
const HTTP_NOT_PROCESSED = new Set([408, 429, 503]);

/** Network error codes (Node and undici) that are transient, and whether the request may have been sent. */
export const TRANSIENT_NETWORK_CODES: Readonly<Record<string, { readonly sent: SentVerdict; readonly what: string }>> =
  Object.freeze({
    ECONNREFUSED: { sent: 'no', what: 'connection refused' },
    EAI_AGAIN: { sent: 'no', what: 'DNS lookup failed temporarily' },
    ENETUNREACH: { sent: 'no', what: 'network unreachable' },
    EHOSTUNREACH: { sent: 'no', what: 'host unreachable' },
    UND_ERR_CONNECT_TIMEOUT: { sent: 'no', what: 'connect timeout' },
    ECONNRESET: { sent: 'maybe', what: 'connection reset' },
    ETIMEDOUT: { sent: 'maybe', what: 'timed out' },
    EPIPE: { sent: 'maybe', what: 'broken pipe' },
    UND_ERR_SOCKET: { sent: 'maybe', what: 'socket error' },
    UND_ERR_HEADERS_TIMEOUT: { sent: 'maybe', what: 'response headers timeout' },
    UND_ERR_BODY_TIMEOUT: { sent: 'maybe', what: 'response body timeout' },
  });

/** The messages of fetch's network failures: Chromium, Node (undici), Firefox, Safari, polyfills. */
const FETCH_NETWORK_MESSAGES = new Set([
  'Failed to fetch',
  'fetch failed',
  'NetworkError when attempting to fetch resource.',
  'Load failed',
  'Network request failed',
]);

/** Options of {@link createClassifier}. */
export interface ClassifierOptions {
  /** HTTP statuses treated as transient. @defaultValue {@link DEFAULT_RETRYABLE_HTTP_STATUSES} */
  readonly retryableHttpStatuses?: Iterable<number>;
  /** gRPC codes (numbers or names) treated as transient. @defaultValue {@link DEFAULT_RETRYABLE_GRPC_CODES} */
  readonly retryableGrpcCodes?: Iterable<number | string>;
  /** Rules consulted first, in order; the first verdict wins. @defaultValue [] */
  readonly rules?: readonly ClassifierRule[];
}

const field = readSafely;

function isHttpStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
}

/** The HTTP status of a response-carrying error: fetch-style `status`, Node/got `statusCode`, axios/ky `response`. */
export function httpStatusOf(error: unknown): number | undefined {
  for (const candidate of [error, field(error, 'response')]) {
    for (const key of ['status', 'statusCode']) {
      const value = field(candidate, key);
      if (isHttpStatus(value)) return value;
    }
  }
  return undefined;
}

/**
 * The gRPC status code of an error shaped like a gRPC status (`@grpc/grpc-js`'s ServiceError, Connect's
 * ConnectError): a numeric `code` in 0–16 next to `details` or `metadata`. A DOMException's legacy
 * numeric `code` does not count.
 */
export function grpcCodeOf(error: unknown): number | undefined {
  const code = field(error, 'code');
  if (typeof code !== 'number' || grpcStatusName(code) === undefined) return undefined;
  if (field(error, 'name') === 'DOMException' || isDomException(error)) {
    return undefined;
  }
  return field(error, 'details') !== undefined || field(error, 'metadata') !== undefined ? code : undefined;
}

/** The errors linked to `error` through `cause` and `AggregateError.errors`, breadth first, itself first. */
function causeChain(error: unknown): unknown[] {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  const out: unknown[] = [];
  while (queue.length > 0 && out.length < 16) {
    const next = queue.shift();
    if (next === undefined || next === null || seen.has(next)) continue;
    seen.add(next);
    out.push(next);
    queue.push(field(next, 'cause'));
    const errors = field(next, 'errors');
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]).slice(0, 8));
  }
  return out;
}

function isDomException(error: unknown): boolean {
  try {
    return typeof DOMException !== 'undefined' && error instanceof DOMException;
  } catch {
    // A revoked Proxy throws on instanceof.
    return false;
  }
}

/**
 * Creates a classifier. The verdicts, in order: an error a retry layer has already given up on:
 * permanent; the user's `rules`; a core `PermanentError`: permanent; a whole call's reached deadline
 * (`DeadlineExceededError`): permanent, since no time is left to try again; our own per-attempt timeout: transient; an
 * HTTP status: transient if listed; a gRPC code: transient if listed; a transient network code on the
 * error or its causes: transient; fetch's network TypeError: transient; anything else: permanent.
 *
 * @example Treat 409 Conflict as transient and never retry validation errors:
 * ```ts
 * const classify = createClassifier({
 *   retryableHttpStatuses: [...DEFAULT_RETRYABLE_HTTP_STATUSES, 409],
 *   rules: [(e) => (e instanceof ValidationError ? permanentFailure('invalid input') : undefined)],
 * });
 * ```
 */
export function createClassifier(options: ClassifierOptions = {}): Classifier {
  const httpStatuses = new Set(options.retryableHttpStatuses ?? DEFAULT_RETRYABLE_HTTP_STATUSES);
  for (const status of httpStatuses) {
    if (!isHttpStatus(status)) {
      throw new RangeError(
        `redialer: option "retryableHttpStatuses" must hold HTTP statuses 100–599, got ${describeValue(status)}`,
      );
    }
  }
  const grpcCodes = new Set<number>();
  for (const code of options.retryableGrpcCodes ?? DEFAULT_RETRYABLE_GRPC_CODES) {
    const resolved = toGrpcStatusCode(code);
    if (resolved === undefined) {
      throw new RangeError(
        `redialer: option "retryableGrpcCodes" must hold gRPC status codes, got ${describeValue(code)}`,
      );
    }
    grpcCodes.add(resolved);
  }
  const rawRules: unknown = options.rules ?? [];
  if (!Array.isArray(rawRules) || rawRules.some((r: unknown) => typeof r !== 'function')) {
    throw new TypeError('redialer: option "rules" must be an array of functions');
  }
  const rules = rawRules as readonly ClassifierRule[];

  return (error) => {
    // Checked before the user's rules, so that no rule can re-open retries across layers.
    if (isRetriesExhausted(error)) return permanentFailure('a retry layer has already given up on this failure');
    for (const rule of rules) {
      const verdict = rule(error);
      if (verdict !== undefined) return verdict;
    }
    if (isPermanentError(error)) return permanentFailure(`marked permanent: ${describeError(error)}`);
    if (isDeadlineExceededError(error)) return permanentFailure("the call's deadline was reached");
    if (isAttemptTimeoutError(error)) return transient('the per-attempt timeout cut the attempt', 'maybe');

    const status = httpStatusOf(error);
    if (status !== undefined) {
      if (!httpStatuses.has(status)) return permanentFailure(`HTTP ${String(status)} is not a retryable status`);
      return transient(`HTTP ${String(status)}`, HTTP_NOT_PROCESSED.has(status) ? 'no' : 'maybe');
    }

    const grpcCode = grpcCodeOf(error);
    if (grpcCode !== undefined) {
      const name = grpcStatusName(grpcCode) ?? String(grpcCode);
      if (!grpcCodes.has(grpcCode)) return permanentFailure(`gRPC ${name} is not a retryable status`);
      return transient(`gRPC ${name}`, grpcCode === GrpcStatus.UNAVAILABLE ? 'no' : 'maybe');
    }

    for (const link of causeChain(error)) {
      const code = field(link, 'code');
      if (typeof code === 'string' && Object.hasOwn(TRANSIENT_NETWORK_CODES, code)) {
        const known = TRANSIENT_NETWORK_CODES[code];
        if (known !== undefined) return transient(`${code}: ${known.what}`, known.sent);
      }
    }

    if (field(error, 'name') === 'TypeError' && FETCH_NETWORK_MESSAGES.has(String(field(error, 'message')))) {
      return transient('fetch failed at the network level', 'maybe');
    }

    return permanentFailure(`not a recognised transient failure (${describeError(error)})`);
  };
}

/** The default classifier: {@link createClassifier} with its defaults. */
export const classify: Classifier = createClassifier();
