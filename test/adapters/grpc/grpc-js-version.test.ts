/**
 * Which grpc-js the code under test really loads. CI runs the gRPC suites a second time with
 * REDIALER_GRPC_JS=grpc-js-1-10 (vitest.config.ts) and EXPECT_GRPC_JS_VERSION=1.10: this test proves that
 * the alias reached src/ (ManagedChannel accepts only that copy's credentials) and that it is that version.
 */
import { ChannelCredentials } from '@grpc/grpc-js';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ManagedChannel } from '../../../src/adapters/grpc/index.js';

const require = createRequire(import.meta.url);
const expectedPackage = process.env['REDIALER_GRPC_JS'] ?? '@grpc/grpc-js';
const otherPackage = expectedPackage === '@grpc/grpc-js' ? 'grpc-js-1-10' : '@grpc/grpc-js';

interface GrpcJs {
  readonly credentials: { createInsecure(): ChannelCredentials };
  readonly ChannelCredentials: unknown;
}

describe('the grpc-js under test', () => {
  it(`is ${expectedPackage}${process.env['EXPECT_GRPC_JS_VERSION'] === undefined ? '' : ` ${process.env['EXPECT_GRPC_JS_VERSION']}`}, in the tests and in src/`, () => {
    const expected = require(expectedPackage) as GrpcJs;
    const other = require(otherPackage) as GrpcJs;
    const { version } = require(`${expectedPackage}/package.json`) as { version: string };
    const wanted = process.env['EXPECT_GRPC_JS_VERSION'];
    if (wanted !== undefined) expect(version.startsWith(`${wanted}.`), `loaded ${version}`).toBe(true);
    // The tests' own import is that copy…
    expect(ChannelCredentials).toBe(expected.ChannelCredentials);
    // …and so is src/'s: ManagedChannel checks credentials with instanceof against the grpc-js it imports.
    new ManagedChannel('127.0.0.1:1', expected.credentials.createInsecure()).close();
    expect(() => new ManagedChannel('127.0.0.1:1', other.credentials.createInsecure())).toThrow(/ChannelCredentials/);
  });
});
