/**
 * What a close event means for reconnecting: a pure decision on the close code, the reason and the
 * caller's hook. The server's delay hint in a close reason is read by the core's
 * `parseCloseReasonDelay` (backoff/server-hint.ts), which gRPC's GOAWAY debug data shares.
 * @module
 */
import { parseCloseReasonDelay } from '../../backoff/server-hint.js';
import type { CloseEventLike } from './websocket-types.js';

export { parseCloseReasonDelay };

/** The close codes that stop reconnecting by default: 1008 (policy violation), 4401, 4403 (auth). */
export const DEFAULT_PERMANENT_CLOSE_CODES: readonly number[] = Object.freeze([1008, 4401, 4403]);

/** The close codes by which a server directs the client's backoff: 1012 (service restart), 1013 (try again later). */
export const SERVER_BACKOFF_CLOSE_CODES: readonly number[] = Object.freeze([1012, 1013]);

/** The outcome of {@link decideClose}. */
export type CloseDecision =
  /** Reconnect on the normal backoff. */
  | { readonly action: 'reconnect' }
  /** Do not reconnect; `why` names the rule. */
  | { readonly action: 'stop'; readonly why: 'permanent-code' | 'should-reconnect' }
  /** Wait as the server asked (`hintMs` if the reason carried one), then reconnect. */
  | { readonly action: 'server-backoff'; readonly hintMs: number | undefined };

/** The rules {@link decideClose} applies. */
export interface ClosePolicy {
  readonly permanentCloseCodes: readonly number[];
  /** Decides, for a close code that is neither permanent nor a 1012/1013 hint, whether to reconnect. */
  readonly shouldReconnect: ((event: CloseEventLike) => boolean) | undefined;
}

/**
 * Decides what a close means, in this order: a permanent code stops; 1012/1013 wait as the server
 * directs; otherwise `shouldReconnect` (if given) decides, and by default the client reconnects.
 */
export function decideClose(event: CloseEventLike, policy: ClosePolicy): CloseDecision {
  if (policy.permanentCloseCodes.includes(event.code)) return { action: 'stop', why: 'permanent-code' };
  if (SERVER_BACKOFF_CLOSE_CODES.includes(event.code)) {
    return { action: 'server-backoff', hintMs: parseCloseReasonDelay(event.reason) };
  }
  if (policy.shouldReconnect !== undefined && !policy.shouldReconnect(event)) {
    return { action: 'stop', why: 'should-reconnect' };
  }
  return { action: 'reconnect' };
}
