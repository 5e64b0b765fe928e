/**
 * Builds an error without capturing a stack trace, for errors made in a transport's callback: their
 * frames would name only the event loop and the library's internals, never the caller, and capturing
 * them is a large share of the cost of a failed connection attempt. The error's `cause` keeps its
 * own stack. Where `Error.stackTraceLimit` cannot be written (a frozen realm), the trace is captured
 * as usual.
 * @module
 */

/** Returns `make()`, with stack trace capture turned off while it runs. */
export function withoutStackTrace<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 0;
  } catch {
    return make();
  }
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
