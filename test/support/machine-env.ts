/** The inputs of a transition with gRPC's defaults, at `now`, with some replaced. */
import { grpcBackoff } from '../../src/index.js';
import type { MachineEnv } from '../../src/core/index.js';

export const machineEnv = (now: number, over: Partial<MachineEnv> = {}): MachineEnv => ({
  now,
  random: () => 0.5,
  backoff: grpcBackoff(),
  minConnectTimeout: 20_000,
  minUptime: 5000,
  autoReconnect: true,
  ...over,
});
