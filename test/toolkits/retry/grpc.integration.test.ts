/**
 * retry() around a real @grpc/grpc-js unary call against a real server on 127.0.0.1: status codes,
 * trailing-metadata pushback and cancellation as grpc-js really delivers them.
 */
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { callWithRetry } from '../../../examples/retry-grpc-unary.js';
import {
  grpcRetryPolicy,
  isRetryError,
  retry,
  type RetryAttemptContext,
  type RetryOptions,
} from '../../../src/toolkits/retry/index.js';

const echo = {
  path: '/test.Echo/Echo',
  requestStream: false,
  responseStream: false,
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
} as const;
const EchoClient = grpc.makeGenericClientConstructor({ echo }, 'Echo');

type Handler = (n: number, call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => void;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(handler: Handler): Promise<{ client: grpc.Client; calls: () => number }> {
  let n = 0;
  const server = new grpc.Server();
  server.addService(
    { echo },
    {
      echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        handler(++n, call, cb);
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => {
      if (e) reject(e);
      else resolve(p);
    });
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          resolve();
        });
      }),
  );
  cleanups.push(() => {
    server.forceShutdown();
  });
  const client = new EchoClient(`127.0.0.1:${String(port)}`, grpc.credentials.createInsecure());
  cleanups.push(() => {
    client.close();
  });
  return { client, calls: () => n };
}

/** The unary call as a promise that honours the attempt's signal (the gRPC unary example of docs/retry.md). */
function unary(client: grpc.Client, request: Buffer, { signal }: RetryAttemptContext): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const call = (client as unknown as Record<string, (...a: unknown[]) => grpc.ClientUnaryCall>)['echo']!(
      request,
      { deadline: Date.now() + 2000 },
      (error: grpc.ServiceError | null, response: Buffer) => {
        if (error) reject(error);
        else resolve(response);
      },
    );
    signal.addEventListener(
      'abort',
      () => {
        call.cancel();
      },
      { once: true },
    );
  });
}

function unavailable(pushback?: string): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (pushback !== undefined) metadata.set('grpc-retry-pushback-ms', pushback);
  return { code: grpc.status.UNAVAILABLE, details: 'busy', metadata };
}

const policy: RetryOptions = grpcRetryPolicy({
  maxAttempts: 4,
  initialBackoff: 10,
  maxBackoff: 50,
  backoffMultiplier: 2,
  retryableStatusCodes: ['UNAVAILABLE'],
});

describe('retry() with a real grpc-js unary call', () => {
  it('UNAVAILABLE with server pushback is retried after the pushback, then succeeds', async () => {
    const server = await start((n, call, cb) => {
      if (n < 3) cb(unavailable('20'));
      else cb(null, Buffer.from(`echo:${call.request.toString()}`));
    });
    const reply = await retry((ctx) => unary(server.client, Buffer.from('hi'), ctx), policy);
    expect(reply.toString()).toBe('echo:hi');
    expect(server.calls()).toBe(3);
  });

  it('a negative pushback in trailing metadata stops retries at once', async () => {
    const server = await start((_n, _call, cb) => {
      cb(unavailable('-1'));
    });
    const error = await retry((ctx) => unary(server.client, Buffer.from('hi'), ctx), policy).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'server-pushback', attempts: 1 });
    expect((error as { cause: { code: number } }).cause.code).toBe(grpc.status.UNAVAILABLE);
    expect(server.calls()).toBe(1);
  });

  it('a code the policy does not list is permanent: the ServiceError itself, one call', async () => {
    const server = await start((_n, _call, cb) => {
      cb({ code: grpc.status.PERMISSION_DENIED, details: 'no' });
    });
    const error = await retry((ctx) => unary(server.client, Buffer.from('hi'), ctx), policy).catch((e: unknown) => e);
    expect(isRetryError(error)).toBe(false);
    expect(error).toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    expect(server.calls()).toBe(1);
  });

  it('aborting the signal cancels the call in flight and rejects with the reason', async () => {
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const server = await start(() => {
      arrived();
    }); // never answers
    const controller = new AbortController();
    const pending = retry((ctx) => unary(server.client, Buffer.from('hi'), ctx), {
      ...policy,
      signal: controller.signal,
    });
    await reached;
    controller.abort(new Error('user navigated away'));
    await expect(pending).rejects.toThrow('user navigated away');
  });

  it('the example of docs/retry.md works as written', async () => {
    const server = await start((n, call, cb) => {
      if (n === 1) cb(unavailable());
      else cb(null, Buffer.from(`echo:${call.request.toString()}`));
    });
    const method = (server.client as unknown as Record<string, Parameters<typeof callWithRetry<Buffer, Buffer>>[0]>)[
      'echo'
    ]!.bind(server.client);
    const reply = await callWithRetry(method, Buffer.from('doc'), new AbortController().signal);
    expect(reply.toString()).toBe('echo:doc');
    expect(server.calls()).toBe(2);
  });
});
