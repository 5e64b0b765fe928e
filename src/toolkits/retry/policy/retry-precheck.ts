/**
 * The checks that come before any wait, shared by request retries (`decideRetry`) and job retries
 * (`decideJobRetry`), so that both follow the same rules in the same order and say the same words:
 * a permanent failure is never retried; a failure that may have reached the server is not retried
 * for an operation that is not idempotent; a gRPC pushback that says "stop" is obeyed; the attempt
 * limit, the deadline and the retry budget hold. Pure: no clock, no I/O.
 * @module
 */
import type { Classification } from '../classification/classify.js';
import { type Idempotency, maySendAgain } from '../classification/idempotency.js';
import type { GiveUpReason } from '../core/retry-error.js';
import type { GrpcPushback } from '../hints/grpc-pushback.js';

/** A server's hint on a failure, as `serverHint` reads it. */
export type PrecheckHint =
  | { readonly kind: 'pushback'; readonly pushback: GrpcPushback }
  | { readonly kind: 'retry-after'; readonly delay: number };

/** What the pre-check needs to know about the failed attempt and what it repeats. */
export interface PrecheckFacts {
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly idempotency: Idempotency;
  readonly precondition: boolean;
  /** What is retried, as the give-up detail names it. */
  readonly subject: 'operation' | 'job';
  /** Ms left before the deadline (Infinity for none); none left gives up. */
  readonly left: number;
  /** Whether the retry budget would allow a retry now. */
  readonly budgetAllows: boolean;
}

/** A decision to give up on a transient failure, as every retry decision states it. */
export interface GiveUpDecision {
  readonly type: 'give-up';
  readonly reason: GiveUpReason;
  readonly detail: string;
  readonly classification: Classification & { readonly kind: 'transient' };
}

/** Gives up on a transient failure for `reason`; `detail` says why in words. */
export function giveUpOn(
  classification: Classification & { readonly kind: 'transient' },
  reason: GiveUpReason,
  detail: string,
): GiveUpDecision {
  return { type: 'give-up', reason, detail, classification };
}

/** The outcome of {@link precheckRetry}: a final verdict, or leave to go on with the hint it read. */
export type RetryPrecheck =
  | { readonly type: 'permanent'; readonly classification: Classification & { readonly kind: 'permanent' } }
  | GiveUpDecision
  | {
      readonly type: 'go-on';
      readonly classification: Classification & { readonly kind: 'transient' };
      readonly hint: PrecheckHint | undefined;
    };

/**
 * Runs the checks every retry decision starts with, in order: permanent classification, idempotency,
 * a pushback that says "stop", the attempt limit, the deadline, the budget. `readHint` reads the server's hint (undefined when
 * hints are off); it is called only once a failure has passed the idempotency check.
 */
export function precheckRetry(
  classification: Classification,
  facts: PrecheckFacts,
  readHint: () => PrecheckHint | undefined,
): RetryPrecheck {
  if (classification.kind === 'permanent') return { type: 'permanent', classification };
  const giveUp = (reason: GiveUpReason, detail: string): RetryPrecheck => giveUpOn(classification, reason, detail);
  if (!maySendAgain(facts.idempotency, facts.precondition, classification.sent)) {
    const what = facts.idempotency === 'conditional' ? 'conditional but carries no precondition' : 'not idempotent';
    return giveUp(
      'not-idempotent',
      `the failure (${classification.reason}) may have reached the server and the ${facts.subject} is ${what}`,
    );
  }
  const hint = readHint();
  if (hint?.kind === 'pushback' && hint.pushback.kind === 'stop') {
    return giveUp(
      'server-pushback',
      `the server asked not to retry (grpc-retry-pushback-ms: ${JSON.stringify(hint.pushback.value)})`,
    );
  }
  if (facts.attempt >= facts.maxAttempts) {
    return giveUp(
      'attempts',
      `the attempt limit (${String(facts.maxAttempts)}) was reached (${classification.reason})`,
    );
  }
  const deadline = facts.subject === 'job' ? "the job's deadline" : 'the deadline';
  if (facts.left <= 0) return giveUp('deadline', `${deadline} passed (${classification.reason})`);
  if (!facts.budgetAllows) return giveUp('throttled', `the retry budget refused a retry (${classification.reason})`);
  return { type: 'go-on', classification, hint };
}
