/**
 * The connection state machine itself, for tools that drive or inspect it directly (model checkers,
 * visualisers, custom runners): the pure transition function, its state with the bookkeeping behind
 * the public snapshot, its events, rules and effects; and the building blocks and constants behind
 * `redialer`'s backoff (the transition table, the backoff defaults, jitter kinds, the delay ceiling,
 * attempt spacing and address interleaving). Like the machine, this entry imports no package.
 *
 * **The machine types are advanced and exempt from semver**: they follow the implementation and may change in any
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
export { TRANSITIONS, isAllowedTransition } from './connectivity-state.js';
export { MAX_DELAY_MS } from '../backoff/backoff.js';
export { GRPC_BACKOFF_DEFAULTS, GRPC_JITTER_MODES } from '../backoff/grpc-backoff.js';
export { JITTER_KINDS } from '../backoff/exponential-backoff.js';
export { DEFAULT_ATTEMPT_SPACING, maxStartsIn, type StartCredit } from '../backoff/attempt-spacing.js';
export { interleaveFamilies, type FamilyAddress } from '../connectors/interleave-families.js';
