/**
 * Wraps a stateful peer object as redialer's immutable backoff value: each step asks the peer once
 * and remembers the answer, so calling `next()` twice on a step gives the same step.
 */
import { type Backoff, type BackoffPolicy, type RandomSource, clampDelay } from '../../src/backoff/backoff.js';

class PeerStep implements Backoff {
  #next: Backoff | undefined;

  readonly delay: number;

  constructor(
    delay: number,
    private readonly ask: (random: RandomSource) => number,
  ) {
    // Like redialer's own policies: "never" (Infinity) becomes the longest timer.
    this.delay = clampDelay(delay);
  }

  next(random: RandomSource): Backoff {
    this.#next ??= new PeerStep(this.ask(random), this.ask);
    return this.#next;
  }
}

/** A policy whose every wait comes from `ask`; `reset` runs before the first step of each cycle. */
export function stepBackoff(reset: () => void, ask: (random: RandomSource) => number): BackoffPolicy {
  return {
    first(random) {
      reset();
      return new PeerStep(ask(random), ask);
    },
  };
}
