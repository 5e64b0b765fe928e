/**
 * Counts, from the client side, the TCP connections this process dials to one port: every socket
 * reported by Node's `net.client.socket` diagnostics channel that then connects to the port or fails
 * to (ECONNREFUSED names the port). A socket that is never dialled (destroyed before its SYN) is not
 * counted as a dial; {@link ClientSockets.refused} counts those of ended attempts.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

export interface ClientSockets {
  /** Dials to the port so far (connected or refused). */
  dialled(): number;
  /** Sockets to the port that are open now. */
  open(): number;
  /**
   * Sockets created for an attempt that had already ended, which redialer's socket tracking destroyed
   * before their SYN (ERR_REDIALER_ATTEMPT_ENDED): dials grpc-js started by itself, for nobody.
   */
  refused(): number;
  stop(): void;
}

export function countClientSockets(port: number): ClientSockets {
  let dialled = 0;
  let refused = 0;
  const open = new Set<Socket>();
  const onSocket = (message: unknown): void => {
    const socket = (message as { socket: Socket }).socket;
    socket.once('connect', () => {
      if (socket.remotePort !== port) return;
      dialled += 1;
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    });
    socket.once('error', (error: NodeJS.ErrnoException & { port?: number }) => {
      if (error.code === 'ECONNREFUSED' && error.port === port) dialled += 1;
      if (error.code === 'ERR_REDIALER_ATTEMPT_ENDED') refused += 1;
    });
  };
  subscribe('net.client.socket', onSocket);
  return {
    dialled: () => dialled,
    open: () => open.size,
    refused: () => refused,
    stop: () => {
      unsubscribe('net.client.socket', onSocket);
    },
  };
}
