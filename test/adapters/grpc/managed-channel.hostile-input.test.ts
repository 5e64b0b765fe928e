/** Hostile ManagedChannel options: each bad value gets a TypeError/RangeError naming the option. */
import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ManagedChannel, type ManagedChannelOptions } from '../../../src/adapters/grpc/index.js';
import { expectNamed, forEachHostileOption } from '../../support/hostile-input.js';

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
] as const satisfies readonly (keyof ManagedChannelOptions)[];

describe('hostile adapter options: each bad value gets a TypeError/RangeError naming the option', () => {
  it('ManagedChannel: one hostile option at a time', () => {
    forEachHostileOption(CHANNEL_OPTIONS, (key, value) => {
      expectNamed(key, () => {
        new ManagedChannel('127.0.0.1:1', credentials.createInsecure(), { [key]: value }).close();
      });
    });
  });

  it('the check can fail: a known bad value of each option is rejected, naming it', () => {
    expect(() => new ManagedChannel('127.0.0.1:1', credentials.createInsecure(), { minConnectTimeout: NaN })).toThrow(
      /minConnectTimeout/,
    );
  });
});
