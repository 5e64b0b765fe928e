/**
 * Finds the client sockets that one connection attempt opens, so that every one of them belongs to
 * that attempt: cut when the attempt is cut, and never opened once it has ended.
 *
 * grpc-js never closes a connection attempt that is waiting for the server's SETTINGS frame: closing
 * the channel leaves that socket open until the peer closes it (grpc/grpc-node#2785). And a closed
 * grpc-js channel whose subchannel is in TRANSIENT_FAILURE still has its own reconnect timer pending
 * (`subchannel.unref()` only moves CONNECTING and READY to IDLE): about a second later it dials again,
 * outside any attempt the manager scheduled. So the attempt asks its channel to connect inside an
 * AsyncLocalStorage context, and Node's `net.client.socket` diagnostics channel reports every client
 * socket created within that context, including in the promise and timer continuations grpc-js
 * connects from. While the attempt runs, each socket is recorded (with its error, the reason an attempt
 * failed that grpc-js does not expose); after the attempt has ended, a socket created in its context is
 * never connected: it is destroyed before its first packet.
 *
 * The diagnostics subscription, once made, stays for the life of the process (a timer of an ended
 * attempt may still fire long after its channel was closed); it costs one context lookup per client
 * socket.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const CHANNEL = 'net.client.socket';

interface Tracking {
  readonly sockets: Set<Socket>;
  readonly errors: Error[];
  ended: boolean;
  blocked: number;
}

const context = new AsyncLocalStorage<Tracking>();
let subscribed = false;

/** Why a socket opened by an ended attempt was never connected. */
function refusedError(): Error {
  return Object.assign(new Error('redialer: this connection attempt has ended; no new connection is opened for it'), {
    code: 'ERR_REDIALER_ATTEMPT_ENDED',
  });
}

function onSocket(message: unknown): void {
  const tracking = context.getStore();
  const socket = (message as { socket?: Socket } | null)?.socket;
  if (tracking === undefined || socket === undefined) return;
  if (tracking.ended) {
    // Never dial for an ended attempt. Node 20 publishes the socket from net.connect() before it calls
    // socket.connect(): that call is replaced on this one socket. Node 22 and later publish from inside
    // socket.connect(), which then returns at once when `_parent.connecting` says a parent socket is
    // already dialling. Either way no SYN is sent, and the socket fails as a refused connection would.
    tracking.blocked += 1;
    const blocked = socket as Socket & { _parent?: unknown };
    blocked.connect = function (this: Socket): Socket {
      return this;
    };
    blocked._parent = { connecting: true };
    process.nextTick(() => {
      blocked._parent = null;
      socket.destroy(refusedError());
    });
    return;
  }
  tracking.sockets.add(socket);
  socket.once('error', (error) => tracking.errors.push(error));
}

/** The sockets opened by the work passed to {@link trackSockets}. */
export interface SocketTracking {
  /** The sockets seen while the attempt ran. */
  readonly sockets: ReadonlySet<Socket>;
  /** The errors those sockets reported, in order (ECONNREFUSED, ETIMEDOUT, ECONNRESET…). */
  readonly errors: readonly Error[];
  /** How many sockets were opened in the attempt's context after it ended, and never connected. */
  readonly blocked: () => number;
  /**
   * Resets and destroys every socket seen. A reset rather than a FIN: the peer of a cut attempt may
   * not be reading at all, and a reset frees both ends at once.
   */
  destroyAll(): void;
  /**
   * Ends the attempt: from now on, a socket created in its context is destroyed before it connects.
   * Sockets already open are left to their owner (an established connection closes gracefully).
   */
  end(): void;
}

/** Runs `work` and tracks every client socket created by it, synchronously or in its async continuations. */
export function trackSockets(work: () => void): SocketTracking {
  if (!subscribed) {
    subscribe(CHANNEL, onSocket);
    subscribed = true;
  }
  const tracking: Tracking = { sockets: new Set(), errors: [], ended: false, blocked: 0 };
  const end = (): void => {
    tracking.ended = true;
  };
  try {
    context.run(tracking, work);
  } catch (error) {
    end();
    throw error;
  }
  return {
    sockets: tracking.sockets,
    errors: tracking.errors,
    blocked: () => tracking.blocked,
    destroyAll: () => {
      for (const socket of tracking.sockets) {
        if (!socket.destroyed) socket.resetAndDestroy();
      }
    },
    end,
  };
}
