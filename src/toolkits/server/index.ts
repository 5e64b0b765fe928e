/**
 * Server-side herd control for Node servers: announce a downtime so that clients come back at the
 * pace the server can take (`drain`, `drainHttp2`), and admit a recovering herd at that pace, telling
 * each refused client its own slot (`admission`). The plans behind them are pure (`drainHint`,
 * `AdmissionGate`) and are what `redialer/simulator` runs with `serverHints`.
 * @module redialer/server
 */
export {
  drain,
  drainHttp2,
  retryHintText,
  type DrainOptions,
  type DrainReport,
  type DrainableServer,
  type DrainableSocket,
  type GoawaySession,
} from './drain.js';
export {
  admission,
  type Admission,
  type AdmissionOptions,
  type ClosableSocket,
  type UpgradeRefusal,
  type UpgradeServer,
} from './admission.js';
export { AdmissionGate, drainHint, type AdmissionVerdict } from './herd-plan.js';
