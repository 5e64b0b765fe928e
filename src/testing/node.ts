/**
 * Node-only test helpers: a fault-injecting TCP proxy to put between a real client and a real server.
 * Kept apart from `redialer/testing`, which runs in browsers.
 * @module redialer/testing/node
 */
export { startFaultProxy, checkFault, FAULT_KINDS, type Fault, type FaultProxy } from './fault-proxy.js';
