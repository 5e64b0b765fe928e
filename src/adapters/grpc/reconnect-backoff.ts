/**
 * grpc-js's own backoff options, `grpc.initial_reconnect_backoff_ms` and `grpc.max_reconnect_backoff_ms`,
 * read as the backoff of a `ManagedChannel`.
 *
 * A managed channel's subchannels never run grpc-js's reconnect loop (the manager starts every attempt),
 * so these options, when they came in `channelOptions` or from a client's options through
 * `managedChannelFactory` (gRPC's interop client sets the cap), would otherwise change nothing while
 * looking as if they did. They are gRPC's two parameters of the same schedule, so they become
 * `grpcBackoff({ initialBackoff, maxBackoff })` (gRPC's multiplier and jitter). Given beside a `backoff`
 * option, they are a contradiction, rejected rather than silently ranked.
 * @module
 */
import type { ChannelOptions } from '@grpc/grpc-js';
import { type BackoffPolicy, MAX_DELAY_MS } from '../../backoff/backoff.js';
import { GRPC_BACKOFF_DEFAULTS, grpcBackoff } from '../../backoff/grpc-backoff.js';
import { checkNumber } from '../../internal/validate.js';

const INITIAL = 'grpc.initial_reconnect_backoff_ms';
const MAX = 'grpc.max_reconnect_backoff_ms';

/** One of the two channel options, checked: a wait in [1, 2^31 - 1] ms, or undefined when not given. */
function reconnectOption(channelOptions: ChannelOptions, key: string): number | undefined {
  const value: unknown = channelOptions[key];
  if (value === undefined) return undefined;
  return checkNumber(`channelOptions['${key}']`, value, { min: 1, max: MAX_DELAY_MS });
}

/**
 * The backoff of a managed channel: `backoff` when given, else the policy the reconnect backoff channel
 * options describe, else undefined (the manager's default, gRPC's).
 *
 * A cap given alone also caps the first wait (the initial backoff is the smaller of gRPC's 1 s and the
 * cap); an initial backoff given alone keeps gRPC's 120 s cap (or its own value, if larger).
 *
 * @throws RangeError when a channel option is not a wait in [1, 2^31 - 1] ms, or the cap is below the
 *   initial backoff; TypeError when one is not a number, or when `backoff` is given too.
 */
export function reconnectBackoff(
  backoff: BackoffPolicy | undefined,
  channelOptions: ChannelOptions,
): BackoffPolicy | undefined {
  const initial = reconnectOption(channelOptions, INITIAL);
  const max = reconnectOption(channelOptions, MAX);
  if (initial === undefined && max === undefined) return backoff;
  if (initial !== undefined && max !== undefined && max < initial) {
    throw new RangeError(
      `redialer: option "channelOptions['${MAX}']" must be >= channelOptions['${INITIAL}'] (${String(initial)}), got ${String(max)}`,
    );
  }
  const initialBackoff = initial ?? Math.min(GRPC_BACKOFF_DEFAULTS.initialBackoff, max ?? Infinity);
  if (backoff !== undefined) {
    const given = [
      ...(initial === undefined ? [] : [`channelOptions['${INITIAL}'] (${String(initial)})`]),
      ...(max === undefined ? [] : [`channelOptions['${MAX}'] (${String(max)})`]),
    ].join(' and ');
    const cap = max === undefined ? '' : `, maxBackoff: ${String(max)}`;
    throw new TypeError(
      `redialer: ManagedChannel got option "backoff" and also ${given}: both set the backoff; ` +
        `give it once: "backoff" alone (for these values, grpcBackoff({ initialBackoff: ${String(initialBackoff)}${cap} })), ` +
        'or the channel options alone',
    );
  }
  return grpcBackoff(max === undefined ? { initialBackoff } : { initialBackoff, maxBackoff: max });
}
