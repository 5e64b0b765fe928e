/** @microsoft/signalr's default reconnect policy, as `withAutomaticReconnect()` configures it. */
import { HubConnectionBuilder, type IRetryPolicy } from '@microsoft/signalr';
import type { StormPolicy } from '../../src/tools/simulator/storm-policy.js';
import { SIGNALR_RULES, signalrPolicy } from '../../src/tools/simulator/policies/signalr-policy.js';
import { stepBackoff } from './step-backoff.js';

const policy = (
  new HubConnectionBuilder().withUrl('http://storm.invalid').withAutomaticReconnect() as unknown as {
    reconnectPolicy: IRetryPolicy;
  }
).reconnectPolicy;

function delay(previousRetryCount: number): number {
  return (
    policy.nextRetryDelayInMilliseconds({
      previousRetryCount,
      elapsedMilliseconds: 0,
      retryReason: new Error('storm'),
    }) ?? Infinity
  );
}

/** The real default policy, asked with the retry count the HubConnection passes; `null` (give up) becomes a wait that never ends. */
export const signalrReal: StormPolicy = {
  name: signalrPolicy.name,
  description: `${signalrPolicy.description} (real DefaultReconnectPolicy)`,
  forClient: () => {
    let retries = 0;
    return {
      rules: SIGNALR_RULES,
      backoff: stepBackoff(
        () => {
          retries = 0;
        },
        () => delay(retries++),
      ),
    };
  },
};
