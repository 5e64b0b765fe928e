/** socket.io-client 4.8's own Manager backoff (backo2), driven with a seeded Math.random. */
import { Manager } from 'socket.io-client';
import type { StormPolicy } from '../../src/simulator/storm-policy.js';
import { socketIoPolicy } from '../../src/simulator/policies/socket-io-policy.js';
import { stepBackoff } from './step-backoff.js';
import { withFakeGlobals } from './with-fake-globals.js';

interface Backo {
  duration(): number;
  reset(): void;
}

/** A Manager per client (autoConnect off); `onclose()` resets the backoff, `reconnect()` waits `duration()` before each attempt. */
export const socketIoReal: StormPolicy = {
  name: 'socket.io',
  description: `${socketIoPolicy.description} (real Manager backoff)`,
  forClient: (random) => {
    const manager = new Manager('http://storm.invalid', { autoConnect: false });
    const backoff = (manager as unknown as { backoff: Backo }).backoff;
    backoff.reset();
    const firstAttemptDelay = withFakeGlobals(random, () => backoff.duration()).value;
    return {
      firstAttemptDelay,
      backoff: stepBackoff(
        () => undefined,
        (r) => withFakeGlobals(r, () => backoff.duration()).value,
      ),
    };
  },
};
