/** The reconnect-storm comparison: redialer's policies and the peers' own code, same scenario, same seed. */
import { simulateStorm } from '../../src/simulator/simulate-storm.js';
import type { StormResult } from '../../src/simulator/storm-result.js';
import { stormSvg } from '../../src/simulator/storm-svg.js';
import { BENCH_POLICIES } from '../peers/real-peer-policies.js';

export interface StormScenario {
  readonly id: string;
  readonly clients: number;
  /** ms */
  readonly outage: number;
  /** handshakes per second */
  readonly capacity: number;
  readonly seed: number;
}

export interface StormBenchResult {
  readonly scenario: StormScenario;
  readonly results: readonly StormResult[];
  readonly svg: string;
}

export function runStormScenario(scenario: StormScenario, onProgress?: (policy: string) => void): StormBenchResult {
  const results = BENCH_POLICIES.map((policy) => {
    onProgress?.(policy.name);
    return simulateStorm({ policy, clients: scenario.clients, outage: scenario.outage, capacity: scenario.capacity, seed: scenario.seed });
  });
  return { scenario, results, svg: stormSvg(results) };
}
