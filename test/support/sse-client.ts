/**
 * What the ReconnectingEventSource tests against a real server share: options fast enough for a
 * test (100 ms first backoff, no minUptime, jitter at its midpoint), and the MessageEvent of a
 * dispatched event.
 */
import { grpcBackoff } from '../../src/index.js';
import type { ReconnectingEventSourceOptions } from '../../src/adapters/sse/index.js';

/** Backoff from 100 ms up to 1 s, every stream established at once, a 2 s connect timeout, no jitter. */
export const FAST_SSE = {
  backoff: grpcBackoff({ initialBackoff: 100, maxBackoff: 1000 }),
  minUptime: 0,
  minConnectTimeout: 2000,
  random: () => 0.5,
} satisfies ReconnectingEventSourceOptions;

/** The MessageEvent of a 'message' or named event (the source dispatches MessageEvents with string data). */
export function messageEventOf(event: Event): MessageEvent<string> {
  if (!(event instanceof MessageEvent)) throw new Error(`expected a MessageEvent, got ${event.constructor.name}`);
  return event as MessageEvent<string>;
}
