/**
 * The five strategies of the AWS post, as redialer policy objects with the post's numbers (base 5 ms,
 * cap 2 s). The post counts attempts from n = 1, so its first un-jittered wait is base × 2^1 = 10 ms:
 * that is `initialDelay` here. Decorrelated jitter starts from sleep = base, as redialer's does.
 */
import type { BackoffPolicy } from '../../src/backoff/backoff.js';
import { constantBackoff } from '../../src/backoff/constant-backoff.js';
import { exponentialBackoff } from '../../src/backoff/exponential-backoff.js';

export interface AwsStrategy {
  readonly name: string;
  readonly policy: BackoffPolicy;
}

const BASE = 5;
const CAP = 2000;

export const AWS_STRATEGIES: readonly AwsStrategy[] = [
  { name: 'no backoff', policy: constantBackoff(0) },
  {
    name: 'exponential',
    policy: exponentialBackoff({ initialDelay: 2 * BASE, multiplier: 2, maxDelay: CAP, jitter: 'none' }),
  },
  {
    name: 'full jitter',
    policy: exponentialBackoff({ initialDelay: 2 * BASE, multiplier: 2, maxDelay: CAP, jitter: 'full' }),
  },
  {
    name: 'equal jitter',
    policy: exponentialBackoff({ initialDelay: 2 * BASE, multiplier: 2, maxDelay: CAP, jitter: 'equal' }),
  },
  {
    name: 'decorrelated jitter',
    policy: exponentialBackoff({ initialDelay: BASE, maxDelay: CAP, jitter: 'decorrelated' }),
  },
];
