/**
 * Retrying a gRPC unary call made with @grpc/grpc-js, with gRPC's retry policy (gRFC A6):
 * docs/retry.md, "gRPC unary call".
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcRetryPolicy, retry, tokenBucketBudget, type RetryAttemptContext } from 'redialer/retry';

// As a service config would say it: {"retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s",
// "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}} and
// {"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}.
const policy = grpcRetryPolicy({
  maxAttempts: 4,
  initialBackoff: 100,
  maxBackoff: 1000,
  backoffMultiplier: 2,
  retryableStatusCodes: ['UNAVAILABLE'],
});
const throttle = tokenBucketBudget({ maxTokens: 10, tokenRatio: 0.1 });

/** A grpc-js unary method in callback style, e.g. `client.getUser.bind(client)`. */
type UnaryMethod<Req, Res> = (
  request: Req,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response?: Res) => void,
) => grpc.ClientUnaryCall;

/** One attempt: the call's deadline is the retry loop's, and the attempt's signal cancels it. */
function attempt<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  { signal, deadline }: RetryAttemptContext,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const call = method(request, Number.isFinite(deadline) ? { deadline } : {}, (error, response) => {
      signal.removeEventListener('abort', cancel);
      if (error) reject(error);
      else resolve(response as Res);
    });
    const cancel = (): void => {
      call.cancel();
    };
    signal.addEventListener('abort', cancel, { once: true });
  });
}

/** Calls `method` with retries: UNAVAILABLE is retried, server pushback is honoured, 5 s in all. */
export function callWithRetry<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  signal: AbortSignal,
): Promise<Res> {
  return retry((context) => attempt(method, request, context), {
    ...policy,
    budget: throttle,
    totalTimeout: 5000,
    signal,
  });
}
