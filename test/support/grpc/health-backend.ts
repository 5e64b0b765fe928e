/**
 * The grpc-js backend with health checking (`grpc-health-check`), for the behind-a-proxy tests. It
 * lives in `health-grpc-server.ts`: a server file's name ends in `grpc-server.ts`, so that the server
 * keeps the newest grpc-js in the runs against grpc-js 1.10 (vitest.config.ts).
 */
export { type HealthBackend, type ServingStatus, startHealthBackend } from './health-grpc-server.js';
