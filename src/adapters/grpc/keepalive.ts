/**
 * Client keepalive as gRFC A8 specifies it, shared by {@link http2Connector} and `ManagedChannel`:
 * a keepalive time of at least 10 s, a PING timeout (20 s), no PINGs while no call is open unless the
 * user opts in, and a keepalive time that doubles for the target each time the server answers with
 * GOAWAY ENHANCE_YOUR_CALM "too_many_pings" — so a client converges on what the server accepts instead
 * of reconnecting every few pings.
 * @module
 */
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import { checkNumber, describeValue, optionalBoolean, optionalNumber } from '../../internal/validate.js';
import { formatDuration } from '../../internal/format-duration.js';
import { type GoawayError, isGoawayError } from './goaway-error.js';

/** gRFC A8: "If smaller than ten seconds, ten seconds will be used instead." */
export const MIN_KEEPALIVE_TIME = 10_000;

/** Keepalive options of {@link http2Connector} and `ManagedChannel`. Times are in milliseconds. */
export interface KeepaliveOptions {
  /**
   * Send a keepalive PING after this long without one; at least `minKeepaliveTime` (a smaller value
   * is raised to it, as gRFC A8 specifies); Infinity sends none. Doubled for the rest of the target's
   * life each time the server ends a connection with GOAWAY ENHANCE_YOUR_CALM "too_many_pings".
   * @defaultValue Infinity
   */
  readonly keepaliveTime?: number;
  /** How long a keepalive PING may go unanswered before the connection is ended. @defaultValue 20000 */
  readonly keepaliveTimeout?: number;
  /**
   * Also send keepalive PINGs while no call is open. Servers refuse that by default (C-core, Go and
   * Java allow it only with their permit-without-calls setting) and answer with GOAWAY
   * "too_many_pings". @defaultValue false
   */
  readonly keepaliveWithoutCalls?: boolean;
  /**
   * The floor of `keepaliveTime`. gRFC A8 fixes it at 10 s to protect servers; lower it only against a
   * server you run yourself (in tests) whose ping policy you have lowered too. @defaultValue 10000
   */
  readonly minKeepaliveTime?: number;
  /**
   * Receives a line each time the keepalive time is doubled after a "too_many_pings" GOAWAY (gRFC A8
   * asks clients to log it). @defaultValue a Node process warning (`process.emitWarning`)
   */
  readonly log?: (message: string) => void;
}

/** The names of the {@link KeepaliveOptions}. */
export const KEEPALIVE_OPTIONS = [
  'keepaliveTime',
  'keepaliveTimeout',
  'keepaliveWithoutCalls',
  'minKeepaliveTime',
  'log',
] as const;

/** The {@link KeepaliveOptions} among `options`. */
export function pickKeepalive(options: KeepaliveOptions): KeepaliveOptions {
  return Object.fromEntries(
    KEEPALIVE_OPTIONS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]),
  );
}

/** Whether a GOAWAY is the server's "you ping too often" (ENHANCE_YOUR_CALM, debug data "too_many_pings"). */
export function isTooManyPings(error: unknown): error is GoawayError {
  return isGoawayError(error) && error.errorCode === 0xb && error.debugText === 'too_many_pings';
}

/** The keepalive settings of one target, with the time that grows after each "too_many_pings". */
export class KeepalivePolicy {
  /** The time between PINGs for new connections (Infinity: none). */
  time: number;
  /** How long a PING may stay unanswered. */
  readonly timeout: number;
  /** Whether PINGs are sent while no call is open. */
  readonly withoutCalls: boolean;
  readonly #log: (message: string) => void;

  /** Validates `raw` (the options object holding the {@link KeepaliveOptions}). */
  constructor(raw: Readonly<Record<string, unknown>>) {
    const floor = optionalNumber('minKeepaliveTime', raw['minKeepaliveTime'], MIN_KEEPALIVE_TIME, {
      min: 1,
      max: MAX_DELAY_MS,
    });
    const time = optionalNumber('keepaliveTime', raw['keepaliveTime'], Infinity, {
      min: 1,
      max: MAX_DELAY_MS,
      allowInfinity: true,
    });
    this.time = Math.max(time, floor);
    this.timeout = optionalNumber('keepaliveTimeout', raw['keepaliveTimeout'], 20_000, { min: 1, max: MAX_DELAY_MS });
    this.withoutCalls = optionalBoolean('keepaliveWithoutCalls', raw['keepaliveWithoutCalls'], false);
    const log = raw['log'];
    if (log !== undefined && typeof log !== 'function') {
      throw new TypeError(`redialer: option "log" must be a function, got ${describeValue(log)}`);
    }
    this.#log =
      (log as ((message: string) => void) | undefined) ??
      ((message) => {
        process.emitWarning(message, 'RedialerKeepaliveWarning');
      });
  }

  /**
   * Doubles the keepalive time if `error` is a "too_many_pings" GOAWAY (gRFC A8), and says so.
   * @returns whether it did.
   */
  onConnectionEnded(target: string, error: unknown): boolean {
    if (!isTooManyPings(error) || this.time === Infinity) return false;
    const previous = this.time;
    this.time = Math.min(previous * 2, MAX_DELAY_MS);
    this.#log(
      `redialer: ${target} ended the connection with GOAWAY ENHANCE_YOUR_CALM "too_many_pings"; ` +
        `keepalive time raised from ${formatDuration(previous)} to ${formatDuration(this.time)} for new connections`,
    );
    return true;
  }
}

/** Reads a number from grpc-js channel options (where -1 or a missing key means "not set"). */
export function channelOptionNumber(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  return checkNumber(`channelOptions['${name}']`, value, { min: -1, max: MAX_DELAY_MS });
}
