/**
 * What `send()` accepts, checked as the WebSocket API checks it: binary data (Blob, ArrayBuffer,
 * SharedArrayBuffer, a typed array or DataView) goes as is, anything else is converted to a string
 * (WebIDL's USVString: `send(12345)` sends `'12345'`, `send(null)` sends `'null'`), so that the queue
 * counts real bytes and every runtime puts the same frame on the wire.
 * @module
 */
import type { Message } from './websocket-types.js';

const BINARY_TAGS = new Set(['[object ArrayBuffer]', '[object SharedArrayBuffer]', '[object Blob]', '[object File]']);

/** Whether `data` is sent as a binary frame (also for values from another realm). */
function isBinary(data: object): boolean {
  if (ArrayBuffer.isView(data)) return true;
  if (typeof Blob !== 'undefined' && data instanceof Blob) return true;
  return BINARY_TAGS.has(Object.prototype.toString.call(data));
}

/**
 * The message that `send(data)` puts on the wire: `data` itself when it is a string or binary,
 * otherwise `String(data)`, as the WebSocket API does.
 *
 * @throws TypeError for a symbol, which has no string form (the WebSocket API throws too).
 */
export function toMessage(data: unknown): Message {
  if (typeof data === 'string') return data;
  if (typeof data === 'symbol') {
    throw new TypeError(`redialer: send() needs a string or binary data, got ${String(data)}`);
  }
  if (typeof data === 'object' && data !== null && isBinary(data)) return data as Message;
  return String(data);
}
