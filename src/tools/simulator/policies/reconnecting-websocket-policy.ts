/**
 * The reconnect behaviour of reconnecting-websocket 4.4 and of its fork partysocket 1.3, as formulas.
 *
 * Source: pladaria/reconnecting-websocket 4.4.0, `dist/reconnecting-websocket-mjs.js`: defaults on
 * lines 111–116 (`minReconnectionDelay: 1000 + Math.random() * 4000`, drawn once per module load;
 * ×1.3; 10 s cap; `connectionTimeout: 4000`), `_getNextDelay()` on lines 457–468
 * (`min × 1.3^(retryCount − 1)`, capped), `_connect()` on lines 497–522 (waits, then opens and arms the
 * connect timeout), `_acceptOpen()` on lines 544–547 (retry count back to 0 after minUptime). A lost
 * connection therefore waits `minReconnectionDelay` before its first attempt. The wait runs from the
 * failure of one attempt to the start of the next. partysocket 1.3 (`dist/ws.js` lines 56–60 and
 * 292–305) is the same code with a constant `minReconnectionDelay` of 3 s, so its clients reconnect in
 * lockstep.
 *
 * Because the default first delay is drawn once per module load, 10,000 browser tabs each draw their
 * own (`reconnecting-websocket`, its best case), while 10,000 sockets in one Node process share one
 * draw and move in lockstep (`reconnecting-websocket-process`).
 * @module
 */
import type { RandomSource } from '../../../backoff/backoff.js';
import { unfoldBackoff } from './unfold-backoff.js';
import type { ClientReconnect, PeerRules, StormPolicy } from '../storm-policy.js';

/** How reconnecting-websocket and partysocket reconnect: each wait after the failure, 4 s per attempt. */
export const RECONNECTING_WEBSOCKET_RULES: PeerRules = Object.freeze({ measuredFrom: 'failure', connectTimeout: 4000 });

/** reconnecting-websocket's default first delay, `1000 + Math.random() * 4000`, from one draw. */
export function reconnectingWebSocketMinDelay(random: RandomSource): number {
  return 1000 + random() * 4000;
}

function growing(min: number): ClientReconnect {
  return {
    rules: RECONNECTING_WEBSOCKET_RULES,
    // The wait before retry n is min × 1.3^(n − 1): min before the first attempt after the loss.
    backoff: unfoldBackoff(
      () => 1,
      (retry) => retry + 1,
      (retry) => Math.min(min * 1.3 ** (retry - 1), 10_000),
    ),
  };
}

/** reconnecting-websocket 4.4 with its defaults; each client is a separate page load. */
export const reconnectingWebSocketPolicy: StormPolicy = {
  name: 'reconnecting-websocket',
  description:
    'reconnecting-websocket 4.4, one page per client: first wait 1–5 s drawn once per page load, ×1.3, 10 s cap, no per-attempt jitter; waits after each failure; 4 s per attempt',
  forClient: (random) => growing(reconnectingWebSocketMinDelay(random)),
};

/** reconnecting-websocket 4.4 with its defaults, every client in one process: one shared first delay. */
export const reconnectingWebSocketProcessPolicy: StormPolicy = {
  name: 'reconnecting-websocket-process',
  description:
    'reconnecting-websocket 4.4, all clients in one process: the module-load draw of the first wait (1–5 s) is shared, so they move in lockstep',
  forClient: (random) => growing(reconnectingWebSocketMinDelay(random)),
  forRun: (random) => {
    const min = reconnectingWebSocketMinDelay(random);
    return () => growing(min);
  },
};

/** partysocket 1.3 with its defaults. */
export const partysocketPolicy: StormPolicy = {
  name: 'partysocket',
  description:
    'partysocket 1.3: first wait 3 s for every client, ×1.3, 10 s cap, no jitter; waits after each failure; 4 s per attempt',
  forClient: () => growing(3000),
};
