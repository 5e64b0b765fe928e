/**
 * The connection state machine itself, for tools that drive or inspect it directly (model checkers,
 * visualisers, custom runners): the pure transition function, its state with the bookkeeping behind
 * the public snapshot, its events, rules and effects.
 *
 * **Advanced and exempt from semver**: these types follow the implementation and may change in any
 * release, minor or patch. Applications use `ConnectionManager` from `redialer` and its
 * `ConnectionSnapshot`s, which are stable.
 * @module redialer/machine
 */
export {
  transition,
  initialState,
  type MachineState,
  type MachineEvent,
  type MachineRules,
  type MachineEnv,
  type Effect,
  type Transition,
} from './connection-machine.js';
export { stepBackoff, type BackoffStep } from '../backoff/backoff-step.js';
export {
  boundHint,
  defaultHintCeiling,
  hintedDelay,
  HINT_JITTER,
  MIN_HINT_CEILING,
  type BoundedHint,
} from '../backoff/server-hint.js';
