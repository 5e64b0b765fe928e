/**
 * How grpc-js tells a stream the server reset (RST_STREAM with CANCEL: a grpc-js server's
 * `forceShutdown()` resets every open stream so) from one the client cancelled: both end with status
 * CANCELLED, and only the details differ. grpc-js says "Call cancelled" for a reset (and, from 1.11
 * on, UNAVAILABLE "Connection dropped" when Node makes the reset up for a connection that dropped),
 * while the client's own ends say "Cancelled on client", "Cancelled by parent call" or "Discarded in
 * favor of other hedged attempt". Checked against grpc-js 1.10 and the newest release by the gRPC
 * suites, as the other workarounds are.
 * @module
 */

const CANCELLED = 1;
const RESET_DETAILS = 'Call cancelled';

/** Whether a call ended because the server (or the connection under it) reset the stream, not because the client cancelled it. */
export function isStreamReset(status: { readonly code: number; readonly details: string }): boolean {
  return status.code === CANCELLED && status.details === RESET_DETAILS;
}
