/**
 * The `debug` and `trace` options as one trace callback for the connection manager.
 * @module
 */
import type { TraceEntry } from '../../core/connection-options.js';

/** The options {@link traceOf} reads. */
export interface TraceOptions {
  readonly trace: ((entry: TraceEntry) => void) | undefined;
  readonly debug: boolean;
  readonly debugLogger: ((...args: unknown[]) => void) | undefined;
}

/**
 * What the manager traces to: the application's `trace` and the `debug` log, or nothing when neither is
 * asked for, so that a client without them never has a transition's detail written (the machine writes
 * it only when read).
 */
export function traceOf(options: TraceOptions): ((entry: TraceEntry) => void) | undefined {
  const { trace, debug, debugLogger } = options;
  if (!debug) return trace;
  const log = debugLogger ?? console.log.bind(console);
  return (entry) => {
    trace?.(entry);
    log(`redialer/websocket ${entry.from} -> ${entry.to} (${entry.event}): ${entry.detail}`);
  };
}
