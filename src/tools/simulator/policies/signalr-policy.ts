/**
 * The reconnect behaviour of @microsoft/signalr's default automatic-reconnect policy, as a list.
 *
 * Source: dotnet/aspnetcore `src/SignalR/clients/ts/signalr/src/DefaultReconnectPolicy.ts`, published
 * as @microsoft/signalr 10.0.11 `dist/esm/DefaultReconnectPolicy.js` line 4: waits of 0, 2, 10 and
 * 30 s before retries 1–4, then `null` (give up). Each wait runs from the failure of the previous
 * attempt; the first retry is immediate. An attempt starts with the negotiate request, whose timeout
 * is 100 s by default (`dist/esm/HttpConnection.js` line 30).
 * @module
 */
import { unfoldBackoff } from './unfold-backoff.js';
import type { PeerRules, StormPolicy } from '../storm-policy.js';

/** SignalR's default retry delays; after the last one the client gives up. */
export const SIGNALR_DEFAULT_DELAYS: readonly number[] = Object.freeze([0, 2000, 10_000, 30_000]);

/** How SignalR reconnects: each wait after the failure, the first retry at once, 100 s per attempt. */
export const SIGNALR_RULES: PeerRules = Object.freeze({ measuredFrom: 'failure', connectTimeout: 100_000 });

/** @microsoft/signalr's default `withAutomaticReconnect()` policy; a client that gives up waits forever. */
export const signalrPolicy: StormPolicy = {
  name: 'signalr',
  description:
    '@microsoft/signalr default: retries after 0, 2, 10, 30 s from each failure, then gives up; 100 s per attempt',
  forClient: () => ({
    rules: SIGNALR_RULES,
    backoff: unfoldBackoff(
      () => 0,
      (retry) => retry + 1,
      (retry) => SIGNALR_DEFAULT_DELAYS[retry] ?? Infinity,
    ),
  }),
};
