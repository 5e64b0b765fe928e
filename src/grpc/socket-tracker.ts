/**
 * Finds the client sockets that a piece of work opens, so that they can be destroyed.
 *
 * grpc-js never closes a connection attempt that is waiting for the server's SETTINGS frame: closing
 * the channel leaves that socket open until the peer closes it (grpc/grpc-node#2785). To cut such an
 * attempt for real, the attempt asks its channel to connect inside an AsyncLocalStorage context, and
 * Node's `net.client.socket` diagnostics channel reports every client socket created within that
 * context, including in the promise and timer continuations that grpc-js connects from.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const CHANNEL = 'net.client.socket';

interface Tracking {
  readonly sockets: Set<Socket>;
  open: boolean;
}

const context = new AsyncLocalStorage<Tracking>();
let users = 0;

function onSocket(message: unknown): void {
  const tracking = context.getStore();
  const socket = (message as { socket?: Socket } | null)?.socket;
  if (tracking?.open === true && socket !== undefined) tracking.sockets.add(socket);
}

/** The sockets opened by the work passed to {@link trackSockets}. */
export interface SocketTracking {
  /** The sockets seen so far. */
  readonly sockets: ReadonlySet<Socket>;
  /**
   * Resets and destroys every socket seen. A reset rather than a FIN: the peer of a cut attempt may
   * not be reading at all, and a reset frees both ends at once.
   */
  destroyAll(): void;
  /** Stops tracking and forgets the sockets; the diagnostics subscription ends with the last user. */
  release(): void;
}

/** Runs `work` and tracks every client socket created by it, synchronously or in its async continuations. */
export function trackSockets(work: () => void): SocketTracking {
  const tracking: Tracking = { sockets: new Set(), open: true };
  if (users === 0) subscribe(CHANNEL, onSocket);
  users += 1;
  try {
    context.run(tracking, work);
  } catch (error) {
    release();
    throw error;
  }
  function release(): void {
    if (!tracking.open) return;
    tracking.open = false;
    tracking.sockets.clear();
    users -= 1;
    if (users === 0) unsubscribe(CHANNEL, onSocket);
  }
  return {
    sockets: tracking.sockets,
    destroyAll: () => {
      for (const socket of tracking.sockets) {
        if (!socket.destroyed) socket.resetAndDestroy();
      }
    },
    release,
  };
}
