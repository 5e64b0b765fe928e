/** The trace callback behind the `debug` and `trace` options. */
import { describe, expect, it, vi } from 'vitest';
import type { TraceEntry } from '../../../src/core/connection-options.js';
import { traceOf } from '../../../src/adapters/websocket/debug-trace.js';

const entry: TraceEntry = {
  time: 5,
  event: 'attempt-failed',
  from: 'CONNECTING',
  to: 'TRANSIENT_FAILURE',
  detail: 'refused',
};
/** The line debug writes for `entry`. */
const LINE = 'redialer/websocket CONNECTING -> TRANSIENT_FAILURE (attempt-failed): refused';

describe('traceOf', () => {
  it('without debug, is the trace option itself (or nothing)', () => {
    const trace = vi.fn();
    expect(traceOf({ trace, debug: false, debugLogger: undefined })).toBe(trace);
    expect(traceOf({ trace: undefined, debug: false, debugLogger: () => undefined })).toBeUndefined();
  });

  it('with debug, calls trace first, then writes one line to debugLogger', () => {
    const calls: string[] = [];
    const traced = traceOf({
      trace: (e) => calls.push(`trace ${e.event}`),
      debug: true,
      debugLogger: (line) => calls.push(String(line)),
    });
    traced?.(entry);
    expect(calls).toEqual(['trace attempt-failed', LINE]);
  });

  it('with debug and no debugLogger, writes to console.log', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      traceOf({ trace: undefined, debug: true, debugLogger: undefined })?.(entry);
      expect(log).toHaveBeenCalledWith(LINE);
    } finally {
      log.mockRestore();
    }
  });
});
