/** @grpc/grpc-js's own BackoffTimeout, driven under fake timers: one per client, as in a subchannel. */
import { experimental } from '@grpc/grpc-js';
import type { StormPolicy } from '../../src/tools/simulator/storm-policy.js';
import { GRPC_JS_RULES, grpcJsPolicy } from '../../src/tools/simulator/policies/grpc-js-policy.js';
import { stepBackoff } from './step-backoff.js';
import { withFakeGlobals } from './with-fake-globals.js';

/** The real BackoffTimeout: `runOnce()` at the start of each attempt arms the wait before the next; `reset()` on READY. */
export const grpcJsReal: StormPolicy = {
  name: grpcJsPolicy.name,
  description: `${grpcJsPolicy.description} (real BackoffTimeout)`,
  forClient: () => {
    const timer = new experimental.BackoffTimeout(() => undefined);
    timer.unref();
    return {
      rules: GRPC_JS_RULES,
      backoff: stepBackoff(
        () => {
          timer.reset();
        },
        (random) => {
          const { timers } = withFakeGlobals(random, () => {
            timer.runOnce();
          });
          timer.stop();
          const delay = timers.at(-1);
          if (delay === undefined) throw new Error('BackoffTimeout.runOnce() armed no timer');
          return delay;
        },
      ),
    };
  },
};
