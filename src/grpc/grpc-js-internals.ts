/**
 * The HTTP/2 sessions under a grpc-js channel, to hear the server's GOAWAY (code and debug data),
 * which grpc-js handles without telling its user.
 *
 * This reads grpc-js internals, the same in 1.10 through 1.14: `channel.internalChannel
 * .subchannelPool.pool[target][i].subchannel.transport.session`. With `grpc.use_local_subchannel_pool`
 * (as every attempt of a ManagedChannel has), the pool holds only this channel's subchannels. Any
 * missing link yields no session (the GOAWAY then goes unseen; nothing else changes); CI runs the gRPC
 * suites against the oldest and newest supported grpc-js so that a change of these internals shows.
 * @module
 */
import type { Channel } from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';

type Bag = Readonly<Record<string, unknown>> | undefined;

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Bag)?.[name] : undefined;
}

/** The channel's live HTTP/2 sessions (READY subchannels' transports). */
export function grpcJsSessions(channel: Channel): EventEmitter[] {
  const pool = field(field(field(channel, 'internalChannel'), 'subchannelPool'), 'pool');
  if (typeof pool !== 'object' || pool === null) return [];
  const sessions: EventEmitter[] = [];
  for (const entries of Object.values(pool as Record<string, unknown>)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      const session: unknown = field(field(field(entry, 'subchannel'), 'transport'), 'session');
      if (session instanceof EventEmitter) sessions.push(session as EventEmitter);
    }
  }
  return sessions;
}
