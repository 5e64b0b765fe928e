/**
 * Test helpers: a virtual clock and a scriptable connector.
 * @module redialer/testing
 */
export { createVirtualClock, type VirtualClock, type VirtualClockOptions } from './virtual-clock.js';
export { createFakeConnector, type FakeAttempt, type FakeConnector } from './fake-connector.js';
