/**
 * The reconnect-storm comparison: redialer's policies and the peers' own code, same scenarios, five
 * seeds each, run on worker threads.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { StormServerHints, StormServerModel } from '../../src/tools/simulator/simulate-storm.js';
import type { StormResult } from '../../src/tools/simulator/storm-result.js';
import { type StormSeedsSummary, summarizeSeeds } from '../../src/tools/simulator/storm-seeds.js';
import { stormSvg } from '../../src/tools/simulator/storm-svg.js';
import type { StormJob } from './storm-worker.js';

export interface StormScenario {
  readonly id: string;
  readonly clients: number;
  /** ms */
  readonly outage: number;
  /** handshakes per second */
  readonly capacity: number;
  readonly server: StormServerModel;
  readonly serverHints: StormServerHints;
  readonly seeds: readonly number[];
  readonly policies: readonly string[];
}

export interface StormBenchResult {
  readonly scenario: StormScenario;
  /** One per policy, over the seeds. */
  readonly summaries: readonly StormSeedsSummary[];
  /** Attempts per second of the first seed, one panel per policy. */
  readonly svg: string;
}

/** Runs every scenario's policies and seeds on a pool of worker threads. */
export async function runStormScenarios(
  scenarios: readonly StormScenario[],
  onProgress?: (done: number, total: number) => void,
): Promise<StormBenchResult[]> {
  const jobs: (StormJob & { readonly scenario: number })[] = [];
  scenarios.forEach((s, scenario) => {
    for (const policy of s.policies) {
      for (const seed of s.seeds) {
        jobs.push({
          id: jobs.length,
          scenario,
          policy,
          keepSeries: seed === s.seeds[0],
          options: {
            clients: s.clients,
            outage: s.outage,
            capacity: s.capacity,
            seed,
            server: s.server,
            serverHints: s.serverHints,
          },
        });
      }
    }
  });
  const results = new Array<StormResult | undefined>(jobs.length);
  const size = Math.max(1, Math.min(availableParallelism() + 1, 4, jobs.length));
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      const worker = new Worker(new URL('./storm-worker.js', import.meta.url));
      try {
        for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
          const message: StormJob = {
            id: job.id,
            policy: job.policy,
            options: job.options,
            keepSeries: job.keepSeries,
          };
          results[job.id] = await new Promise<StormResult>((resolve, reject) => {
            const onMessage = (reply: { id: number; result: StormResult }): void => {
              worker.off('error', reject);
              resolve(reply.result);
            };
            worker.once('message', onMessage);
            worker.once('error', reject);
            worker.postMessage(message);
          });
          onProgress?.(++done, jobs.length);
        }
      } finally {
        await worker.terminate();
      }
    }),
  );
  return scenarios.map((scenario, index) => {
    const mine = jobs.filter((j) => j.scenario === index);
    const summaries = scenario.policies.map((policy) =>
      summarizeSeeds(
        mine
          .filter((j) => j.policy === policy)
          .map((j) => results[j.id])
          .filter((r) => r !== undefined),
      ),
    );
    const firstSeed = mine
      .filter((j) => j.keepSeries)
      .map((j) => results[j.id])
      .filter((r) => r !== undefined);
    return { scenario, summaries, svg: stormSvg(firstSeed) };
  });
}
