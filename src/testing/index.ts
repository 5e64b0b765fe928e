/**
 * Test helpers: a virtual clock, a scriptable connector and a seeded random source.
 * @module redialer/testing
 */
export { createVirtualClock, type VirtualClock, type VirtualClockOptions } from './virtual-clock.js';
export { createFakeConnector, type FakeAttempt, type FakeConnector } from './fake-connector.js';
export { seededRandom } from './seeded-random.js';
