/**
 * The reconnect behaviour of socket.io-client 4.8, as a formula.
 *
 * Source: socketio/socket.io-client 4.8.4, `build/esm/manager.js` lines 23–29 (1 s, 5 s cap,
 * randomizationFactor 0.5), `onclose()` on line 306 (the backoff resets on every close) and
 * `reconnect()` on lines 318–330 (waits `duration()` before each attempt, measured from the failure);
 * `build/esm/contrib/backo2.js` lines 26–34: `ms = min × 2^attempts`, then ± floor(rand × 0.5 × ms)
 * (minus when floor(rand × 10) is even), then `min(ms, max) | 0`. The jitter comes before the cap,
 * so once `min × 2^n × 0.5` exceeds the cap every client waits exactly 5 s. An attempt is given up
 * after the Manager's `timeout`, 20 s by default (line 31).
 * @module
 */
import type { RandomSource } from '../../../backoff/backoff.js';
import { unfoldBackoff } from './unfold-backoff.js';
import type { PeerRules, StormPolicy } from '../storm-policy.js';

/** socket.io-client's backo2 `duration()` for attempt count `attempts` (0-based). */
export function socketIoDuration(attempts: number, random: RandomSource, min = 1000, max = 5000, jitter = 0.5): number {
  let ms = min * 2 ** attempts;
  const rand = random();
  const deviation = Math.floor(rand * jitter * ms);
  ms = (Math.floor(rand * 10) & 1) === 0 ? ms - deviation : ms + deviation;
  return Math.min(ms, max) | 0;
}

/** How socket.io-client reconnects: each wait after the failure, 20 s per attempt. */
export const SOCKET_IO_RULES: PeerRules = Object.freeze({ measuredFrom: 'failure', connectTimeout: 20_000 });

/** socket.io-client 4.8 with its defaults. */
export const socketIoPolicy: StormPolicy = {
  name: 'socket.io',
  description:
    'socket.io-client 4.8: 1 s, ×2, ±50 % applied before the 5 s cap (collapses to exactly 5 s), waits after each failure, before the first attempt too; 20 s per attempt',
  forClient: () => ({
    rules: SOCKET_IO_RULES,
    backoff: unfoldBackoff(
      (r) => ({ attempts: 0, delay: socketIoDuration(0, r) }),
      (s, r) => ({ attempts: s.attempts + 1, delay: socketIoDuration(s.attempts + 1, r) }),
      (s) => s.delay,
    ),
  }),
};
