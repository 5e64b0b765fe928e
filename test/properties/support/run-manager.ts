/**
 * The run every manager-driven schedule property makes: a ConnectionManager with the component's
 * connector and the generated policy, options and random source, on a virtual clock, connected, run
 * until the component has recorded enough or nothing is due for longer than the schedule allows, and
 * shut down.
 */
import { type BackoffPolicy, ConnectionManager, type Connector } from '../../../src/index.js';
import type { VirtualClock } from '../../../src/testing/index.js';
import { type ScheduleRules, longestAllowedWait } from '../../support/connection-schedule.js';
import { type ManagerSpec, type RandomSpec, randomOf, runUntilQuiet } from './generated.js';

/** One managed run: the component's connector, and what the property generated for the manager. */
export interface ManagedRun {
  readonly clock: VirtualClock;
  readonly connector: Connector<unknown>;
  readonly backoff: BackoffPolicy;
  readonly options: ManagerSpec;
  readonly random: RandomSpec;
  /** True once the component has recorded enough: the run stops before the clock is quiet. */
  readonly done: () => boolean;
  /** Called before shutdown(), so that the trace can tell the ends shutdown() makes from a cut. */
  readonly stopping: () => void;
}

/** Runs the manager `run` describes on its clock; the rules its schedule is to keep. */
export function runManager(run: ManagedRun): ScheduleRules {
  const { clock, backoff, options } = run;
  const rules: ScheduleRules = { backoff, ...options };
  const { attemptSpacing, ...rest } = options;
  const manager = new ConnectionManager({
    connector: run.connector,
    backoff,
    scheduler: clock.scheduler,
    random: randomOf(run.random),
    ...rest,
    ...(attemptSpacing === undefined ? {} : { attemptSpacing }),
  });
  try {
    manager.connect();
    runUntilQuiet(clock, longestAllowedWait(rules) + 1000, run.done);
  } finally {
    run.stopping();
    manager.shutdown();
  }
  return rules;
}
