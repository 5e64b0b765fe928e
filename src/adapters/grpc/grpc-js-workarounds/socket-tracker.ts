/**
 * Finds the client sockets that one connection attempt opens, so that every one of them belongs to
 * that attempt: cut when the attempt is cut, and never opened once it has ended.
 *
 * grpc-js never closes a connection attempt that is waiting for the server's SETTINGS frame: closing
 * the channel leaves that socket open until the peer closes it (grpc/grpc-node#2785). And a closed
 * grpc-js channel whose subchannel is in TRANSIENT_FAILURE still has its own reconnect timer pending
 * (`subchannel.unref()` only moves CONNECTING and READY to IDLE): about a second later it dials again,
 * outside any attempt the manager scheduled. Node's `net.client.socket` diagnostics channel reports
 * every client socket as it is created; two ways tie it to an attempt:
 *
 * - a claim ({@link claimNextSocket}): grpc-js hands a subchannel's address object to `net.connect()`,
 *   and Node passes those options to the `net.Socket` constructor, which reads them before it reports
 *   the socket. An address whose `signal` getter claims the socket for an attempt (see
 *   `attempt-gate.ts`) ties the socket to it in the same synchronous step, at no cost to anything else
 *   in the process;
 * - a context ({@link trackSockets}): the attempt asks its channel to connect inside an
 *   AsyncLocalStorage context, which follows the promise and timer continuations grpc-js connects
 *   from. It needs no cooperation from grpc-js, but on Node 20 and 22 it turns on async hooks for the
 *   whole process, a cost every promise pays from then on; it serves channels without the gate.
 *
 * While the attempt runs, each socket is recorded (with its error, the reason an attempt failed that
 * grpc-js does not expose); after the attempt has ended, a socket created for it is never connected:
 * it is destroyed before its first packet.
 *
 * The diagnostics subscription, once made, stays for the life of the process (a timer of an ended
 * attempt may still fire long after its channel was closed); it costs one lookup per client socket.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const CHANNEL = 'net.client.socket';

/** Why a socket opened by an ended attempt was never connected. */
function refusedError(): Error {
  return Object.assign(new Error('redialer: this connection attempt has ended; no new connection is opened for it'), {
    code: 'ERR_REDIALER_ATTEMPT_ENDED',
  });
}

/**
 * Never dials `socket`. Node 20 publishes the socket from net.connect() before it calls
 * socket.connect(): that call is replaced on this one socket. Node 22 and later publish from inside
 * socket.connect(), which then returns at once when `_parent.connecting` says a parent socket is
 * already dialling. Either way no SYN is sent, and the socket fails as a refused connection would.
 */
function refuse(socket: Socket): void {
  const blocked = socket as Socket & { _parent?: unknown };
  blocked.connect = function (this: Socket): Socket {
    return this;
  };
  blocked._parent = { connecting: true };
  process.nextTick(() => {
    blocked._parent = null;
    socket.destroy(refusedError());
  });
}

/** The sockets opened for one connection attempt. */
export interface SocketTracking {
  /** The sockets seen while the attempt ran. */
  readonly sockets: ReadonlySet<Socket>;
  /** The errors those sockets reported, in order (ECONNREFUSED, ETIMEDOUT, ECONNRESET…). */
  readonly errors: readonly Error[];
  /**
   * Resets and destroys every socket seen. A reset rather than a FIN: the peer of a cut attempt may
   * not be reading at all, and a reset frees both ends at once.
   */
  destroyAll(): void;
  /**
   * Ends the attempt: from now on, a socket created for it is destroyed before it connects. Sockets
   * already open are left to their owner (an established connection closes gracefully).
   */
  end(): void;
}

/** One attempt's sockets: recorded while it runs, refused once it has ended. */
export class AttemptSockets implements SocketTracking {
  readonly sockets = new Set<Socket>();
  readonly errors: Error[] = [];
  #ended = false;
  /** Records a socket's error: one listener for all of the attempt's sockets (a socket stays theirs). */
  readonly #onError = (error: Error): void => {
    this.errors.push(error);
  };

  /** Takes a socket created for this attempt. */
  take(socket: Socket): void {
    if (this.#ended) {
      refuse(socket);
      return;
    }
    this.sockets.add(socket);
    socket.on('error', this.#onError);
  }

  destroyAll(): void {
    for (const socket of this.sockets) {
      if (!socket.destroyed) socket.resetAndDestroy();
    }
  }

  end(): void {
    this.#ended = true;
  }
}

const context = new AsyncLocalStorage<AttemptSockets>();
let subscribed = false;
/** The attempt that claimed the socket being created now, if any (see {@link claimNextSocket}). */
let claim: AttemptSockets | undefined;
let clearing = false;

function clearClaim(): void {
  claim = undefined;
  clearing = false;
}

function onSocket(message: unknown): void {
  const socket = (message as { socket?: Socket } | null)?.socket;
  const tracking = claim ?? context.getStore();
  claim = undefined;
  if (tracking !== undefined && socket !== undefined) tracking.take(socket);
}

function subscribeOnce(): void {
  if (subscribed) return;
  subscribe(CHANNEL, onSocket);
  subscribed = true;
}

/**
 * Gives the client socket reported next to `tracking`. Call it while Node builds the socket (from
 * an options getter that `net.connect()` reads); a claim that no socket takes in the same synchronous
 * step lapses at the next microtask, so it can never reach a socket created later for someone else.
 */
export function claimNextSocket(tracking: AttemptSockets): void {
  subscribeOnce();
  claim = tracking;
  if (!clearing) {
    clearing = true;
    void Promise.resolve().then(clearClaim);
  }
}

/**
 * Runs `work` and tracks every client socket created by it, synchronously or in its async
 * continuations, in `tracking` (a new one unless given: one that also takes claimed sockets).
 */
export function trackSockets(work: () => void, tracking = new AttemptSockets()): SocketTracking {
  subscribeOnce();
  try {
    context.run(tracking, work);
  } catch (error) {
    tracking.end();
    throw error;
  }
  return tracking;
}
