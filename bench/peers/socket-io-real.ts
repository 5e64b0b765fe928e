/** socket.io-client 4.8's own Manager backoff (backo2), driven with a seeded Math.random. */
import { Manager } from 'socket.io-client';
import type { StormPolicy } from '../../src/tools/simulator/storm-policy.js';
import { SOCKET_IO_RULES, socketIoPolicy } from '../../src/tools/simulator/policies/socket-io-policy.js';
import { stepBackoff } from './step-backoff.js';
import { withFakeGlobals } from './with-fake-globals.js';

interface Backo {
  duration(): number;
  reset(): void;
}

/**
 * A Manager per client (autoConnect off). As in the Manager: `onclose()` resets the backoff
 * (`backoff.reset()`), and `reconnect()` waits `duration()` before each attempt, the first included.
 */
export const socketIoReal: StormPolicy = {
  name: socketIoPolicy.name,
  description: `${socketIoPolicy.description} (real Manager backoff)`,
  forClient: () => {
    const manager = new Manager('http://storm.invalid', { autoConnect: false });
    const backoff = (manager as unknown as { backoff: Backo }).backoff;
    return {
      rules: SOCKET_IO_RULES,
      backoff: stepBackoff(
        () => {
          backoff.reset();
        },
        (r) => withFakeGlobals(r, () => backoff.duration()).value,
      ),
    };
  },
};
