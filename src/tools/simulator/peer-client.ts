/**
 * A simulated client of a peer library, driven by that library's own rules: where its waits run
 * from, its connect timeout, its wait before the first attempt. Small on purpose: it only reconnects.
 * @module
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Backoff, BackoffPolicy, RandomSource } from '../../backoff/backoff.js';
import type { PeerRules } from './storm-policy.js';

/** Starts one attempt; the answer comes later or never. Returns a function that forgets it. */
export type PeerDial = (answer: (outcome: 'accepted' | Error) => void) => () => void;

/** One peer client: connected until {@link PeerClient.lost}, then reconnecting by its rules. */
export class PeerClient {
  #step: Backoff | undefined;
  #timer: Subscription | undefined;
  #forget: (() => void) | undefined;
  #stopped = false;

  constructor(
    private readonly rules: PeerRules,
    private readonly backoff: BackoffPolicy,
    private readonly scheduler: SchedulerLike,
    private readonly random: RandomSource,
    private readonly dial: PeerDial,
  ) {}

  /** The connection was lost: redial at once (gRPC) or after the backoff's first wait (the others). */
  lost(): void {
    this.#step = undefined;
    if (this.rules.measuredFrom === 'attempt-start') {
      this.#attempt();
      return;
    }
    this.#step = this.backoff.first(this.random);
    this.#arm(this.#step.delay, () => {
      this.#attempt();
    });
  }

  /** Ends the simulation for this client: no timer and no attempt left behind. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.unsubscribe();
    this.#forget?.();
  }

  #arm(delay: number, work: () => void): void {
    this.#timer?.unsubscribe();
    this.#timer = this.scheduler.schedule(work, Math.max(0, delay));
  }

  #attempt(): void {
    if (this.#stopped) return;
    const startedAt = this.scheduler.now();
    const attempt = { settled: false };
    const fail = (): void => {
      if (attempt.settled) return;
      attempt.settled = true;
      this.#forget?.();
      this.#forget = undefined;
      this.#failed(startedAt);
    };
    this.#forget = this.dial((outcome) => {
      if (attempt.settled) return;
      if (outcome === 'accepted') {
        attempt.settled = true;
        this.#timer?.unsubscribe();
        this.#forget = undefined;
        return;
      }
      fail();
    });
    if (!attempt.settled) this.#arm(this.rules.connectTimeout, fail);
  }

  #failed(startedAt: number): void {
    if (this.#stopped) return;
    this.#step = this.#step === undefined ? this.backoff.first(this.random) : this.#step.next(this.random);
    const now = this.scheduler.now();
    const at =
      this.rules.measuredFrom === 'failure' ? now + this.#step.delay : Math.max(now, startedAt + this.#step.delay);
    this.#arm(at - now, () => {
      this.#attempt();
    });
  }
}
