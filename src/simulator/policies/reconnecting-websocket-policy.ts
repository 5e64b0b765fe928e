/**
 * The reconnect behaviour of reconnecting-websocket 4.4 and of its fork partysocket 1.3, as formulas.
 *
 * Source: pladaria/reconnecting-websocket 4.4.0, `dist/reconnecting-websocket-mjs.js`: defaults on
 * lines 111–116 (`minReconnectionDelay: 1000 + Math.random() * 4000`, drawn once per module load;
 * ×1.3; 10 s cap), `_getNextDelay()` on lines 457–468 (`min × 1.3^(retryCount − 1)`, capped),
 * `_acceptOpen()` on lines 544–547 (retry count back to 0 after minUptime). A lost connection therefore
 * waits `minReconnectionDelay` before its first attempt. The wait runs from the failure of one attempt
 * to the start of the next. partysocket 1.3 (`dist/ws.js` lines 56–60 and 292–305) is the same code with
 * a constant `minReconnectionDelay` of 3 s, so its clients reconnect in lockstep.
 * @module
 */
import { unfoldBackoff } from './unfold-backoff.js';
import type { ClientReconnect, StormPolicy } from '../storm-policy.js';

function growing(min: number): ClientReconnect {
  return {
    firstAttemptDelay: min,
    // The first wait after a failed attempt is retry 2: min × 1.3.
    backoff: unfoldBackoff(
      () => 2,
      (retry) => retry + 1,
      (retry) => Math.min(min * 1.3 ** (retry - 1), 10_000),
    ),
  };
}

/** reconnecting-websocket 4.4 with its defaults; each client is a separate page load. */
export const reconnectingWebSocketPolicy: StormPolicy = {
  name: 'reconnecting-websocket',
  description: 'reconnecting-websocket 4.4: first wait 1–5 s drawn once per page load, ×1.3, 10 s cap, no per-attempt jitter',
  forClient: (random) => growing(1000 + random() * 4000),
};

/** partysocket 1.3 with its defaults. */
export const partysocketPolicy: StormPolicy = {
  name: 'partysocket',
  description: 'partysocket 1.3: first wait 3 s for every client, ×1.3, 10 s cap, no jitter',
  forClient: () => growing(3000),
};
