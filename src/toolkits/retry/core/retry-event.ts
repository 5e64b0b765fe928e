/**
 * What a retry loop reports as it goes: the events that metrics count and logs print.
 * @module
 */
import { type UnhandledErrorHandler, runGuarded } from '../../../internal/report-unhandled-error.js';
import type { GiveUpReason } from './retry-error.js';

/** Where a retry's wait came from: the backoff policy, `Retry-After`, or gRPC pushback. */
export type DelaySource = 'backoff' | 'retry-after' | 'pushback';

/** One event of a retry loop. `attempt` is 1-based. */
export type RetryEvent =
  /** An attempt is starting. */
  | { readonly type: 'attempt'; readonly attempt: number }
  /** An attempt succeeded; the call is done. */
  | { readonly type: 'success'; readonly attempt: number }
  /** An attempt failed transiently; the next starts after `delay` ms. */
  | {
      readonly type: 'retry';
      readonly attempt: number;
      readonly delay: number;
      readonly source: DelaySource;
      readonly reason: string;
      readonly error: unknown;
    }
  /** The loop gave up on a transient failure (`reason` `throttled`: the budget refused a retry). */
  | { readonly type: 'give-up'; readonly attempt: number; readonly reason: GiveUpReason; readonly error: unknown }
  /** An attempt failed permanently; `reason` says why it is not retried. */
  | { readonly type: 'permanent'; readonly attempt: number; readonly reason: string; readonly error: unknown };

/** Receives a retry loop's events; {@link RetryMetrics} is one. */
export interface RetryEventSink {
  /** Called synchronously for each event; an exception is reported asynchronously, never to the caller. */
  record(event: RetryEvent): void;
}

/**
 * Hands `event` to `sink`; a throwing sink cannot break the call, and its error is not lost: it goes
 * to `onUnhandledError` (see {@link reportUnhandledError}).
 */
export function emit(
  sink: RetryEventSink | undefined,
  event: RetryEvent,
  onUnhandledError?: UnhandledErrorHandler,
): void {
  if (sink === undefined) return;
  runGuarded(() => {
    sink.record(event);
  }, onUnhandledError);
}
