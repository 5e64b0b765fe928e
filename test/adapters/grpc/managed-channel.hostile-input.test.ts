/** Hostile ManagedChannel options: each bad value gets a TypeError/RangeError naming the option. */
import { credentials } from '@grpc/grpc-js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManagedChannel } from '../../../src/adapters/grpc/index.js';
import { anything, expectNamed } from '../../support/hostile-input.js';

const CHANNEL_OPTIONS = [
  'minConnectTimeout',
  'minUptime',
  'autoReconnect',
  'random',
  'trace',
  'unref',
  'backoff',
  'scheduler',
  'waitForReady',
  'channelOptions',
] as const;

describe('hostile adapter options: each bad value gets a TypeError/RangeError naming the option', () => {
  it('ManagedChannel: one hostile option at a time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHANNEL_OPTIONS), anything, (key, value) => {
        expectNamed(key, () => {
          new ManagedChannel('127.0.0.1:1', credentials.createInsecure(), { [key]: value }).close();
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('the check can fail: a known bad value of each option is rejected, naming it', () => {
    expect(() => new ManagedChannel('127.0.0.1:1', credentials.createInsecure(), { minConnectTimeout: NaN })).toThrow(
      /minConnectTimeout/,
    );
  });
});
