/** @microsoft/signalr's default reconnect policy, as `withAutomaticReconnect()` configures it. */
import { HubConnectionBuilder, type IRetryPolicy } from '@microsoft/signalr';
import type { StormPolicy } from '../../src/simulator/storm-policy.js';
import { signalrPolicy } from '../../src/simulator/policies/signalr-policy.js';
import { stepBackoff } from './step-backoff.js';

const policy = (new HubConnectionBuilder().withUrl('http://storm.invalid').withAutomaticReconnect() as unknown as { reconnectPolicy: IRetryPolicy })
  .reconnectPolicy;

function delay(previousRetryCount: number): number {
  return policy.nextRetryDelayInMilliseconds({ previousRetryCount, elapsedMilliseconds: 0, retryReason: new Error('storm') }) ?? Infinity;
}

/** The real default policy; `null` (give up) becomes a wait that never ends. */
export const signalrReal: StormPolicy = {
  name: 'signalr',
  description: `${signalrPolicy.description} (real DefaultReconnectPolicy)`,
  forClient: () => {
    let retries = 1;
    return {
      firstAttemptDelay: delay(0),
      backoff: stepBackoff(
        () => {
          retries = 1;
        },
        () => delay(retries++),
      ),
    };
  },
};
