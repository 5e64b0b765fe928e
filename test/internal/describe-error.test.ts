import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/internal/describe-error.js';
import { AttemptTimeoutError } from '../../src/toolkits/retry/timeouts/attempt-timeout-error.js';

describe('describeError(): one line per thrown value', () => {
  it.each([
    ['a plain Error: its message', new Error('refused'), 'refused'],
    ['a subclass: Name: message', new RangeError('bad'), 'RangeError: bad'],
    [
      'a code the message lacks: appended',
      Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
      'refused (ECONNREFUSED)',
    ],
    [
      'a code the message says: once',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'connect ECONNREFUSED',
    ],
    ['an error-like object', { name: 'Busy', message: 'later' }, 'Busy: later'],
    [
      "one of redialer's own: its message, which names what happened",
      new AttemptTimeoutError(3, 500),
      'attempt 3 did not complete within 500 ms',
    ],
    ['a string: quoted', 'stop', '"stop"'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
  ])('%s', (_, error, expected) => {
    expect(describeError(error)).toBe(expected);
  });

  it('never throws, even for a Proxy whose every trap throws', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(() => describeError(hostile)).not.toThrow();
  });
});
