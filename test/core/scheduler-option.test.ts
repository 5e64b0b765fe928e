/** Every public constructor that takes a `scheduler` validates it the same way (validate.ts). */
import { NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { http2Connector } from '../../src/adapters/grpc/index.js';
import { ConnectionManager, connectionStatus, happyEyeballs } from '../../src/index.js';
import { RetryMetrics, ratioBudget } from '../../src/toolkits/retry/index.js';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';

const NEEDS_SCHEDULE = /option "scheduler" must be an RxJS SchedulerLike \(with now\(\) and schedule\(\)\), got/;
const NEEDS_NOW = /option "scheduler" must be an RxJS SchedulerLike \(with now\(\)\), got/;

describe('the scheduler option', () => {
  it.each<[string, (scheduler: unknown) => unknown, RegExp]>([
    [
      'ConnectionManager',
      (scheduler) => new ConnectionManager({ connector: () => NEVER, scheduler: scheduler as never }),
      NEEDS_SCHEDULE,
    ],
    ['connectionStatus', (scheduler) => connectionStatus(of(), { scheduler: scheduler as never }), NEEDS_SCHEDULE],
    ['happyEyeballs', (scheduler) => happyEyeballs([() => NEVER], { scheduler: scheduler as never }), NEEDS_SCHEDULE],
    [
      'http2Connector',
      (scheduler) => http2Connector('http://127.0.0.1:1', { scheduler: scheduler as never }),
      NEEDS_SCHEDULE,
    ],
    [
      'ReconnectingWebSocket',
      (scheduler) =>
        new ReconnectingWebSocket('ws://127.0.0.1:1', [], { scheduler: scheduler as never, startClosed: true }),
      NEEDS_SCHEDULE,
    ],
    ['ratioBudget (reads the time only)', (scheduler) => ratioBudget({ scheduler: scheduler as never }), NEEDS_NOW],
    [
      'RetryMetrics (reads the time only)',
      (scheduler) => new RetryMetrics({ scheduler: scheduler as never }),
      NEEDS_NOW,
    ],
  ])('%s rejects a value without the methods it needs, naming the option and the value', (_name, make, message) => {
    expect(() => make({})).toThrow(TypeError);
    expect(() => make({})).toThrow(message);
    expect(() => make(42)).toThrow(/got 42/);
  });
});
