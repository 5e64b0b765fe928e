/**
 * What a ManagedChannel needs from a grpc-js channel that grpc-js does not expose: the HTTP/2 sessions
 * under it, to hear the server's GOAWAY (code and debug data), which grpc-js handles without telling
 * its user; and its subchannels' reconnect timers, to stop them once an attempt has ended.
 *
 * This reads grpc-js internals, the same in 1.10 through 1.14: `channel.internalChannel
 * .subchannelPool.pool[target][i].subchannel`, its `transport.session` and its `backoffTimeout`. With
 * `grpc.use_local_subchannel_pool` (as every channel of a ManagedChannel has), the pool holds only this
 * channel's subchannels. Any missing link yields nothing: a GOAWAY then goes unseen, and a reconnect
 * that grpc-js starts by itself is refused by the attempt's socket tracking (`socket-tracker.ts`)
 * instead of never being started. CI runs the gRPC suites against the oldest and newest supported
 * grpc-js so that a change of these internals shows.
 * @module
 */
import type { Channel } from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';

type Bag = Readonly<Record<string, unknown>> | undefined;

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Bag)?.[name] : undefined;
}

/** The subchannels in the channel's subchannel pool. */
function subchannels(channel: Channel): unknown[] {
  const pool = field(field(field(channel, 'internalChannel'), 'subchannelPool'), 'pool');
  if (typeof pool !== 'object' || pool === null) return [];
  const found: unknown[] = [];
  for (const entries of Object.values(pool as Record<string, unknown>)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      const subchannel = field(entry, 'subchannel');
      if (subchannel !== undefined) found.push(subchannel);
    }
  }
  return found;
}

/**
 * The live HTTP/2 sessions (READY subchannels' transports) of `channel`, or of the grpc-js subchannels
 * given (a gate knows its channel's: no walk through the channel's pool).
 */
export function grpcJsSessions(channel: Channel, known?: readonly unknown[]): EventEmitter[] {
  const sessions: EventEmitter[] = [];
  for (const subchannel of known ?? subchannels(channel)) {
    const session: unknown = field(field(subchannel, 'transport'), 'session');
    if (session instanceof EventEmitter) sessions.push(session as EventEmitter);
  }
  // Kept by the attempt while its connection lasts: a copy of its size, where an array grown by push
  // keeps room for seventeen.
  return sessions.slice();
}

/**
 * Stops the reconnect timers of the channel's subchannels. A grpc-js subchannel that failed keeps its
 * backoff timer after its channel is closed, and when pick_first had asked it to go on connecting, it
 * dials again when the timer fires, for nobody. Stopped, the timer never fires and the subchannel is
 * left to the garbage collector with its channel.
 */
export function stopGrpcJsReconnects(channel: Channel): void {
  for (const subchannel of subchannels(channel)) {
    const timer = field(subchannel, 'backoffTimeout');
    const stop = field(timer, 'stop');
    if (typeof stop === 'function') (stop as (this: unknown) => void).call(timer);
  }
}
