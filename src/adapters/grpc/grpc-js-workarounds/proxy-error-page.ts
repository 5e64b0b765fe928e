/**
 * How older grpc-js (1.10) reports a proxy's own HTTP error (nginx's 502 page for a backend that is
 * down): it reads the HTML page as a gRPC message frame, whose "length" is the page's first bytes,
 * and ends the call with RESOURCE_EXHAUSTED "Received message larger than max (… vs …)". Newer
 * grpc-js maps the HTTP status to UNAVAILABLE, as grpc/grpc's http-grpc-status-mapping says.
 * @module
 */

const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

/** The status a call end means: UNAVAILABLE for grpc-js 1.10's reading of a proxy's error page, else `code`. */
export function callEndCode(code: number, details: string): number {
  return code === RESOURCE_EXHAUSTED && details.startsWith('Received message larger than max') ? UNAVAILABLE : code;
}
