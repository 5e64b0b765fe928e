/**
 * Admission control: a server that admits at most `capacity` connections per second and answers
 * every other attempt with that client's own slot, for a `ws` server's upgrades and for plain HTTP.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { checkOptionsObject, checkNumber, optionalChoice, optionalFunction } from '../../internal/validate.js';
import { retryHintText } from './drain.js';
import { AdmissionGate, type AdmissionVerdict } from './herd-plan.js';

/** How a refused WebSocket upgrade is answered. */
export type UpgradeRefusal = 'close-1013' | 'status-503';

/** Options of {@link admission}. */
export interface AdmissionOptions {
  /** Connections admitted per one-second window. Required. */
  readonly capacity: number;
  /**
   * How to refuse a WebSocket upgrade. `'close-1013'` completes the handshake and closes at once with
   * 1013 (try again later) and `retry-after=<ms>ms`: every WebSocket client can read it, browsers
   * included. `'status-503'` answers the upgrade with 503 and Retry-After (seconds): cheaper, but a
   * browser's WebSocket cannot read the status. @defaultValue 'close-1013'
   */
  readonly refuseUpgrade?: UpgradeRefusal;
  /** The clock (ms). @defaultValue `Date.now` */
  readonly now?: () => number;
}

/** The part of a `ws` WebSocketServer that an admission gate uses. */
export interface UpgradeServer<S> {
  /** Completes a WebSocket upgrade and hands over the socket. */
  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    callback: (ws: S, request: IncomingMessage) => void,
  ): void;
  /** Emits an admitted socket as a `connection`, as a `ws` server does itself. */
  emit(event: 'connection', ws: S, request: IncomingMessage): boolean;
}

/** A socket a refused upgrade is closed on. */
export interface ClosableSocket {
  /** Closes with a code and a reason. */
  close(code?: number, reason?: string): void;
}

/** What {@link admission} returns. */
export interface Admission {
  /** Connections admitted per second. */
  readonly capacity: number;
  /** Decides one attempt now: admitted, or refused with its slot (ms from now). */
  admit(): AdmissionVerdict;
  /**
   * An `upgrade` listener for a `ws` server created with `noServer: true`: admitted upgrades become
   * `connection` events of `wss`; refused ones are answered with their slot.
   */
  upgrade<S extends ClosableSocket>(
    wss: UpgradeServer<S>,
  ): (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * For a plain HTTP handler: returns true when the request is admitted; otherwise it has answered
   * 503 with Retry-After (whole seconds, rounded up, as HTTP allows) and returns false.
   */
  http(request: IncomingMessage, response: ServerResponse): boolean;
  /** Attempts admitted and refused so far. */
  readonly counts: { readonly admitted: number; readonly refused: number };
}

const REFUSALS: readonly UpgradeRefusal[] = ['close-1013', 'status-503'];

/**
 * Admission control for a recovering server: at most `capacity` connections per second, and each
 * refused client is told its own slot in the coming windows, 1/capacity s apart, so that the refused
 * herd returns at the server's pace. Clients with `serverHints: 'exact'` come back at their slot.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { WebSocketServer } from 'ws';
 * import { admission } from 'redialer/server';
 *
 * const gate = admission({ capacity: 1000 });
 * const wss = new WebSocketServer({ noServer: true });
 * const server = createServer((req, res) => {
 *   if (gate.http(req, res)) res.end('ok');
 * });
 * server.on('upgrade', gate.upgrade(wss));
 * server.listen(8080);
 * ```
 */
export function admission(options: AdmissionOptions): Admission {
  const raw = checkOptionsObject('admission options', options);
  const capacity = checkNumber('capacity', raw['capacity'], { min: 1, max: 1e9, integer: true });
  const refuseUpgrade = optionalChoice('refuseUpgrade', raw['refuseUpgrade'], REFUSALS, 'close-1013');
  const now = optionalFunction('now', raw['now'], Date.now);
  const gate = new AdmissionGate(capacity);
  const counts = { admitted: 0, refused: 0 };
  const admit = (): AdmissionVerdict => {
    const verdict = gate.admit(now());
    if (verdict.admitted) counts.admitted += 1;
    else counts.refused += 1;
    return verdict;
  };
  return {
    capacity,
    admit,
    counts,
    upgrade: (wss) => (request, socket, head) => {
      const verdict = admit();
      if (!verdict.admitted && refuseUpgrade === 'status-503') {
        const seconds = Math.max(1, Math.ceil(verdict.retryAfter / 1000));
        socket.end(
          `HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${String(seconds)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        if (verdict.admitted) wss.emit('connection', ws, request);
        else ws.close(1013, retryHintText(verdict.retryAfter));
      });
    },
    http: (_request, response) => {
      const verdict = admit();
      if (verdict.admitted) return true;
      response.writeHead(503, {
        'Retry-After': String(Math.max(1, Math.ceil(verdict.retryAfter / 1000))),
        'Content-Length': '0',
      });
      response.end();
      return false;
    },
  };
}
