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
} from '../connection-machine.js';
