/**
 * A fault-injecting TCP proxy on 127.0.0.1 for integration tests and demos: it sits between a real client and a
 * real server and applies one fault to each new connection. Faults: pass-through, refuse (the port
 * stops listening: ECONNREFUSED), black hole (accept, never forward), added latency, reset mid-stream
 * (RST after N bytes from the server), accept then close after N ms without forwarding, stall after
 * the handshake (forward until the server's first bytes reach the client, then nothing more in either
 * direction).
 * @module
 */
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { Subscription, asyncScheduler } from 'rxjs';
import { MAX_DELAY_MS } from '../backoff/backoff.js';
import { scheduleTimer } from '../internal/schedule-timer.js';
import { checkNumber, checkOptionsObject, checkText, optionalChoice } from '../internal/validate.js';

/**
 * What the proxy does to a new connection:
 * - `pass`: forwards both ways;
 * - `refuse`: the port stops listening (ECONNREFUSED; connections already open carry on);
 * - `blackhole`: accepts and forwards nothing, ever;
 * - `latency`: forwards both ways, each chunk `ms` late, in order;
 * - `reset-after-bytes`: forwards the client's bytes, and the server's first `bytes`, then resets (RST);
 * - `close-after`: accepts and forwards nothing (the server is never dialled), then ends the
 *   connection (FIN) after `ms` — a port that accepts and hangs up, so no handshake ever completes.
 *   For a connection that works and is then cut, use `pass` and {@link FaultProxy.resetAll};
 * - `stall-after-handshake`: forwards until the server's first bytes reach the client, then nothing.
 */
export type Fault =
  | { readonly kind: 'pass' }
  | { readonly kind: 'refuse' }
  | { readonly kind: 'blackhole' }
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'reset-after-bytes'; readonly bytes: number }
  | { readonly kind: 'close-after'; readonly ms: number }
  | { readonly kind: 'stall-after-handshake' };

/** The fault kinds, for validation and iteration. */
export const FAULT_KINDS: readonly Fault['kind'][] = Object.freeze([
  'pass',
  'refuse',
  'blackhole',
  'latency',
  'reset-after-bytes',
  'close-after',
  'stall-after-handshake',
]);

/**
 * Validates a fault like every other option: an unknown kind, or a parameter that is NaN, negative,
 * fractional where a count is needed, or too large, throws a TypeError/RangeError naming it.
 * `latency.ms` is within [0, 2^31 - 1]; `close-after.ms` is any duration >= 0 (Infinity: never), waited
 * in full even past 2^31 - 1 ms; `reset-after-bytes.bytes` is a whole number >= 0 (0: reset at the
 * server's first byte).
 */
export function checkFault(value: unknown, name = 'fault'): Fault {
  const raw = checkOptionsObject(`option "${name}"`, value);
  if (raw['kind'] === undefined) {
    const kinds = FAULT_KINDS.map((k) => JSON.stringify(k)).join(', ');
    throw new TypeError(`redialer: option "${name}.kind" is required: one of ${kinds}`);
  }
  const kind = optionalChoice(`${name}.kind`, raw['kind'], FAULT_KINDS, 'pass');
  switch (kind) {
    case 'latency':
      return { kind, ms: checkNumber(`${name}.ms`, raw['ms'], { min: 0, max: MAX_DELAY_MS }) };
    case 'close-after':
      return { kind, ms: checkNumber(`${name}.ms`, raw['ms'], { min: 0, allowInfinity: true }) };
    case 'reset-after-bytes':
      return {
        kind,
        bytes: checkNumber(`${name}.bytes`, raw['bytes'], { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true }),
      };
    default:
      return { kind };
  }
}

function checkTarget(value: unknown): { host: string; port: number } {
  const raw = checkOptionsObject('startFaultProxy target', value);
  const port = checkNumber('port', raw['port'], { min: 1, max: 65_535, integer: true });
  const host = checkText('host', raw['host'] ?? '127.0.0.1');
  return { host, port };
}

/** A running proxy: its port, its counters, and the switch for the fault. */
export interface FaultProxy {
  /** The port clients connect to (stable across `refuse`). */
  readonly port: number;
  /** Connections accepted so far, whatever their fault. */
  readonly accepted: number;
  /** Connections open now (client side). */
  readonly open: number;
  /** Applies `fault` to connections made from now on; a bad fault throws (see {@link checkFault}). */
  setFault(fault: Fault): Promise<void>;
  /** Resets (RST) every open connection at once. */
  resetAll(): void;
  /** Closes every connection and the listener; leaves no handle. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 (a free port) that forwards to `target` and applies `initial` to new
 * connections until {@link FaultProxy.setFault} changes it. A fault applies to connections made after
 * it is set; {@link FaultProxy.resetAll} ends the ones already open.
 *
 * @example
 * ```ts
 * const proxy = await startFaultProxy({ port: server.port });
 * // connect the client to proxy.port, then:
 * await proxy.setFault({ kind: 'blackhole' });
 * proxy.resetAll();
 * ```
 */
export async function startFaultProxy(
  target: { host?: string; port: number },
  initial: Fault = { kind: 'pass' },
): Promise<FaultProxy> {
  const { host, port: targetPort } = checkTarget(target);
  let fault: Fault = checkFault(initial, 'initial');
  const sockets = new Set<Socket>();
  // Timers go through scheduleTimer: a close-after of 3e9 ms closes after 3e9 ms, not after 1 ms.
  const timers = new Subscription();
  let accepted = 0;
  let port = 0;
  let server: Server | undefined;

  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {
      // Faults cause resets and refusals on purpose; each side sees them through 'close'.
    });
  };
  const later = (ms: number, fn: () => void): void => {
    const timer = scheduleTimer(asyncScheduler, ms, () => {
      timers.remove(timer);
      fn();
    });
    timers.add(timer);
  };

  const onConnection = (client: Socket): void => {
    accepted += 1;
    track(client);
    const current = fault;
    if (current.kind === 'blackhole') return;
    if (current.kind === 'close-after') {
      later(current.ms, () => client.end());
      return;
    }
    const upstream = connect(targetPort, host);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const forward = (from: Socket, to: Socket, delay: number): void => {
      // Delayed chunks leave in the order they came: each timer sends the oldest chunk waiting. A timer per
      // chunk could fire out of order (a timer that fires a millisecond early by the wall clock is re-armed),
      // and reordered bytes break the protocol on top (HTTP/2 answers with PROTOCOL_ERROR). Every chunk still
      // waits at least `delay`: the k-th timer to fire is at least as late as the k-th chunk's own.
      const waiting: Buffer[] = [];
      from.on('data', (chunk: Buffer) => {
        if (delay <= 0) {
          to.write(chunk);
          return;
        }
        waiting.push(chunk);
        later(delay, () => {
          const next = waiting.shift();
          if (next !== undefined) to.write(next);
        });
      });
    };
    switch (current.kind) {
      case 'pass':
      case 'refuse':
        forward(client, upstream, 0);
        forward(upstream, client, 0);
        return;
      case 'latency':
        forward(client, upstream, current.ms);
        forward(upstream, client, current.ms);
        return;
      case 'reset-after-bytes': {
        forward(client, upstream, 0);
        let seen = 0;
        upstream.on('data', (chunk: Buffer) => {
          if (current.bytes === 0 && seen === 0) {
            seen = 1;
            client.resetAndDestroy();
            return;
          }
          if (seen >= current.bytes) return;
          const room = current.bytes - seen;
          seen += chunk.length;
          if (seen < current.bytes) {
            client.write(chunk);
            return;
          }
          // Deliver the last allowed bytes, then RST the client.
          // The RST must wait until the write has left the socket: reset with a write still in
          // flight degrades to a plain FIN. The upstream goes with the client's 'close'.
          client.write(chunk.subarray(0, room));
          later(20, () => client.resetAndDestroy());
        });
        return;
      }
      case 'stall-after-handshake': {
        let stalled = false;
        client.on('data', (chunk: Buffer) => {
          if (!stalled) upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
          if (stalled) return;
          client.write(chunk);
          stalled = true;
        });
        return;
      }
    }
  };

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer(onConnection);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  /**
   * Stops listening. `server.close()` calls back only once every connection has ended, so when
   * connections stay open (a `refuse` that leaves them be) it resolves as soon as the listening
   * socket is closed instead.
   */
  const unlisten = (waitForConnections: boolean): Promise<void> =>
    new Promise((resolve) => {
      const s = server;
      server = undefined;
      if (s === undefined) resolve();
      else if (waitForConnections)
        s.close(() => {
          resolve();
        });
      else {
        s.close();
        setImmediate(resolve);
      }
    });

  if (fault.kind === 'refuse') {
    // Reserve a port, then stop listening on it.
    await listen();
    await unlisten(true);
  } else {
    await listen();
  }

  return {
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return [...sockets].filter((s) => s.remotePort !== targetPort).length;
    },
    async setFault(next) {
      const checked = checkFault(next);
      const wasRefusing = fault.kind === 'refuse';
      fault = checked;
      if (checked.kind === 'refuse' && !wasRefusing) await unlisten(false);
      if (checked.kind !== 'refuse' && wasRefusing) await listen();
    },
    resetAll() {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    async close() {
      timers.unsubscribe();
      for (const socket of sockets) socket.destroy();
      await unlisten(true);
    },
  };
}
