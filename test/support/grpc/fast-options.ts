/**
 * Options the gRPC adapter tests on real sockets share: insecure credentials, and a fast backoff with
 * random pinned at 0.5, so that every wait is exactly nominal (100, 160, 256, 409.6 … ms).
 */
import { credentials } from '@grpc/grpc-js';
import { grpcBackoff } from '../../../src/index.js';

export const insecure = credentials.createInsecure();

export const FAST = {
  backoff: grpcBackoff({ initialBackoff: 100, maxBackoff: 1000 }),
  minConnectTimeout: 300,
  minUptime: 0,
  random: () => 0.5,
};
