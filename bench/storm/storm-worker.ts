/** A worker thread of the storm benchmark: runs the simulations it is sent, one at a time. */
import { parentPort } from 'node:worker_threads';
import { type StormOptions, simulateStorm } from '../../src/tools/simulator/simulate-storm.js';
import { BENCH_POLICIES } from '../peers/real-peer-policies.js';

/** One simulation to run: a bench policy by name and the options besides the policy. */
export interface StormJob {
  readonly id: number;
  readonly policy: string;
  readonly options: Omit<StormOptions, 'policy' | 'onProgress'>;
  /** Keep the attempts-per-second series (for the plot). */
  readonly keepSeries: boolean;
}

parentPort?.on('message', (job: StormJob) => {
  const policy = BENCH_POLICIES.find((p) => p.name === job.policy);
  if (policy === undefined) throw new Error(`no bench policy named ${job.policy}`);
  const result = simulateStorm({ ...job.options, policy });
  parentPort?.postMessage({ id: job.id, result: job.keepSeries ? result : { ...result, perSecond: [] } });
});
