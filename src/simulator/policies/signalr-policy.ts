/**
 * The reconnect behaviour of @microsoft/signalr's default automatic-reconnect policy, as a list.
 *
 * Source: dotnet/aspnetcore `src/SignalR/clients/ts/signalr/src/DefaultReconnectPolicy.ts`, published
 * as @microsoft/signalr 10.0.11 `dist/esm/DefaultReconnectPolicy.js` line 4: waits of 0, 2, 10 and
 * 30 s before retries 1–4, then `null` (give up). Each wait runs from the failure of the previous
 * attempt; the first retry is immediate.
 * @module
 */
import { unfoldBackoff } from './unfold-backoff.js';
import type { StormPolicy } from '../storm-policy.js';

/** SignalR's default retry delays; after the last one the client gives up. */
export const SIGNALR_DEFAULT_DELAYS: readonly number[] = Object.freeze([0, 2000, 10_000, 30_000]);

/** @microsoft/signalr's default `withAutomaticReconnect()` policy; a client that gives up waits forever. */
export const signalrPolicy: StormPolicy = {
  name: 'signalr',
  description: '@microsoft/signalr default: retries after 0, 2, 10, 30 s, then gives up',
  forClient: () => ({
    firstAttemptDelay: 0,
    backoff: unfoldBackoff(
      () => 1,
      (retry) => retry + 1,
      (retry) => SIGNALR_DEFAULT_DELAYS[retry] ?? Infinity,
    ),
  }),
};
