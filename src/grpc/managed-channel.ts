/**
 * A grpc-js Channel whose connection lifecycle redialer governs, for existing client code.
 *
 * Design: each connection attempt of a {@link ConnectionManager} creates a fresh grpc-js channel (its
 * own subchannel pool, so nothing is shared with other attempts) and asks it to connect once. grpc-js
 * reports READY only after the server's HTTP/2 SETTINGS frame (its transport resolves the session on
 * `remoteSettings`), so READY here means the same. The attempt fails as soon as that channel reports
 * TRANSIENT_FAILURE, and is cut by the manager at max(backoff deadline, minConnectTimeout) — grpc-js
 * by itself would wait for SETTINGS forever (grpc/grpc-node#2785). Closing a grpc-js channel does not
 * close a socket still waiting for SETTINGS, so the attempt tracks the sockets it opens (see
 * `socket-tracker.ts`) and resets them when it is cut. grpc-js's own reconnect loop never runs: a
 * channel that leaves READY is closed and the manager opens the next one with gRPC's backoff. The
 * backoff resets once a connection has stayed READY for `minUptime` (the manager's default, 5 s);
 * `minUptime: 0` resets it at the SETTINGS frame itself, as gRPC specifies.
 * Calls go through grpc-js's normal call stack (framing, metadata, deadlines, compression,
 * interceptors), so generated clients and `makeGenericClientConstructor` clients work unchanged when
 * given this channel via the client option `channelOverride` (or {@link managedChannelFactory} via
 * `channelFactoryOverride`).
 *
 * Calls while there is no READY connection: in IDLE the call starts a connection and waits; in
 * CONNECTING it waits; in TRANSIENT_FAILURE a call without waitForReady fails at once with UNAVAILABLE
 * and a waitForReady call keeps waiting (until READY, its deadline, cancellation or `close()`), as
 * gRPC's wait-for-ready semantics specify. Calls waiting when an attempt fails are treated the same way.
 *
 * In-flight calls when a connection is replaced: a call is bound to the connection it started on and is
 * never moved. When that connection is lost (socket closed, error, keepalive failure), its calls end
 * with UNAVAILABLE and the caller decides whether to retry. When the server sends GOAWAY, calls it
 * already accepted keep running on the old connection until they finish, while new calls wait for the
 * next connection. When the manager replaces the connection itself (`idle()`, `close()`), the old
 * connection is closed gracefully: calls on it finish, new calls cannot start on it.
 * @module
 */
import {
  Channel as GrpcChannel,
  ChannelCredentials,
  type ChannelInterface,
  type ChannelOptions,
  type Deadline,
  status as Status,
  type connectivityState as GrpcState,
} from '@grpc/grpc-js';
import { Observable, type Subscription } from 'rxjs';
import { ConnectionManager } from '../connection-manager.js';
import type { ConnectionManagerOptions } from '../connection-options.js';
import type { ConnectionSnapshot } from '../connection-snapshot.js';
import type { Connector } from '../connector.js';
import { ConnectionClosedError } from '../errors/connection-closed-error.js';
import { permanent } from '../errors/permanent-error.js';
import { checkOptionsObject, describeValue, optionalBoolean } from '../validate.js';
import { channelState } from './channel-state.js';
import { ConnectionFailedError } from './connection-failed-error.js';
import { toGrpcState } from './grpc-connectivity.js';
import { trackSockets } from './socket-tracker.js';
import { without } from './without.js';
import { type CallHost, ManagedCall } from './managed-call.js';

/** Options of {@link ManagedChannel}: the manager's options (except the connector) and the channel's. */
export interface ManagedChannelOptions extends Omit<ConnectionManagerOptions<GrpcChannel>, 'connector'> {
  /** grpc-js channel options for each connection's channel (keepalive, message sizes, TLS name override…). */
  readonly channelOptions?: ChannelOptions;
  /** Whether calls whose metadata does not say so wait for READY through TRANSIENT_FAILURE. @defaultValue false */
  readonly waitForReady?: boolean;
}

type ChannelRef = ReturnType<ChannelInterface['getChannelzRef']>;

/** The longest timer Node accepts; grpc-js's idle timer is pushed out to it. */
const MAX_TIMER = 2 ** 31 - 1;

/** The connector behind a ManagedChannel: one grpc-js channel per attempt, established on READY. */
export function grpcChannelConnector(target: string, credentials: ChannelCredentials, channelOptions: ChannelOptions = {}): Connector<GrpcChannel> {
  const options: ChannelOptions = {
    ...channelOptions,
    // Nothing shared with other attempts: a fresh subchannel, with no backoff state of its own.
    'grpc.use_local_subchannel_pool': 1,
    // The manager decides when a connection ends; grpc-js must not idle it away underneath.
    'grpc.client_idle_timeout_ms': MAX_TIMER,
  };
  return () =>
    new Observable<GrpcChannel>((subscriber) => {
      let channel: GrpcChannel;
      try {
        channel = new GrpcChannel(target, credentials, options);
      } catch (error) {
        // A bad target or bad credentials will not get better by retrying.
        subscriber.error(permanent(error));
        return undefined;
      }
      let phase: 'connecting' | 'ready' = 'connecting';
      // Connect inside a tracking context: grpc-js would leave a socket that never got SETTINGS open.
      const tracking = trackSockets(() => {
        channel.getConnectivityState(true);
      });
      const watch = channelState(channel).subscribe((state) => {
        if (state === 'READY') {
          phase = 'ready';
          subscriber.next(channel);
        } else if (phase === 'ready') {
          subscriber.error(new ConnectionClosedError(`the connection to ${target} was lost (${state})`));
        } else if (state === 'TRANSIENT_FAILURE' || state === 'SHUTDOWN') {
          subscriber.error(new ConnectionFailedError(target, state));
        }
      });
      return () => {
        watch.unsubscribe();
        channel.close();
        // An established connection closes gracefully with the channel; an attempt must be cut.
        if (phase === 'connecting') tracking.destroyAll();
        tracking.release();
      };
    });
}

/**
 * A grpc-js `Channel` whose connection is kept by a {@link ConnectionManager} with gRPC's
 * connection-backoff protocol; see the module notes for the design and for in-flight calls.
 *
 * @example
 * ```ts
 * const channel = new ManagedChannel('127.0.0.1:50051', credentials.createInsecure());
 * channel.state$.subscribe((s) => console.log(s.state));
 * const client = new GreeterClient('127.0.0.1:50051', credentials.createInsecure(), { channelOverride: channel });
 * client.sayHello({ name: 'x' }, (error, reply) => { ... });
 * ```
 */
export class ManagedChannel implements ChannelInterface {
  /** The manager that owns the connection: `connect()`, `resetBackoff()`, `idle()`, `waitForStateChange()`. */
  readonly manager: ConnectionManager<GrpcChannel>;
  /** The connection's snapshots (READY carries the connection's grpc-js channel). */
  readonly state$: Observable<ConnectionSnapshot<GrpcChannel>>;
  readonly #target: string;
  readonly #waitForReady: boolean;
  readonly #pending = new Set<ManagedCall>();
  readonly #watch: Subscription;
  readonly #host: CallHost;

  constructor(target: string, credentials: ChannelCredentials, options: ManagedChannelOptions = {}) {
    if (typeof target !== 'string') throw new TypeError(`redialer: ManagedChannel needs a target string, got ${describeValue(target)}`);
    // The same check grpc-js makes when it builds each connection's channel, made here so it fails now.
    if (!(credentials instanceof ChannelCredentials)) {
      throw new TypeError(`redialer: ManagedChannel needs grpc-js ChannelCredentials (credentials.createInsecure(), createSsl()…), got ${describeValue(credentials)}`);
    }
    const raw = checkOptionsObject('ManagedChannel options', options);
    this.#waitForReady = optionalBoolean('waitForReady', raw['waitForReady'], false);
    const channelOptions = raw['channelOptions'] ?? {};
    checkOptionsObject('channelOptions', channelOptions);
    const managerOptions = without(options, 'channelOptions', 'waitForReady');
    this.#target = target;
    this.manager = new ConnectionManager<GrpcChannel>({
      ...managerOptions,
      connector: grpcChannelConnector(target, credentials, channelOptions),
    });
    this.state$ = this.manager.state$;
    this.#host = {
      target,
      admit: (call) => {
        this.#admit(call);
      },
      release: (call) => this.#pending.delete(call),
    };
    this.#watch = this.manager.state$.subscribe((snapshot) => {
      this.#onState(snapshot);
    });
  }

  #admit(call: ManagedCall): void {
    const snapshot = this.manager.snapshot;
    switch (snapshot.state) {
      case 'READY':
        call.attach(snapshot.connection);
        return;
      case 'SHUTDOWN':
        call.fail(Status.UNAVAILABLE, shutdownDetails(snapshot.lastError));
        return;
      case 'TRANSIENT_FAILURE':
        if (!call.waitForReady) {
          call.fail(Status.UNAVAILABLE, `No connection: ${describeError(snapshot.lastError)}`);
          return;
        }
        break;
      case 'IDLE':
      case 'CONNECTING':
        break;
    }
    this.#pending.add(call);
    if (snapshot.state === 'IDLE') this.manager.connect();
  }

  #onState(snapshot: ConnectionSnapshot<GrpcChannel>): void {
    if (this.#pending.size === 0) return;
    const calls = [...this.#pending];
    switch (snapshot.state) {
      case 'READY':
        this.#pending.clear();
        for (const call of calls) call.attach(snapshot.connection);
        return;
      case 'TRANSIENT_FAILURE':
        for (const call of calls) {
          if (!call.waitForReady) call.fail(Status.UNAVAILABLE, `No connection: ${describeError(snapshot.lastError)}`);
        }
        return;
      case 'SHUTDOWN':
        for (const call of calls) call.fail(Status.UNAVAILABLE, shutdownDetails(snapshot.lastError));
        return;
      case 'IDLE':
        // Calls are waiting, so the channel must not stay idle.
        this.manager.connect();
        return;
      case 'CONNECTING':
        return;
    }
  }

  /** Shuts the manager down: waiting calls fail with UNAVAILABLE, calls in flight finish on their connection. */
  close(): void {
    this.manager.shutdown();
    this.#watch.unsubscribe();
  }

  /** The target this channel connects to. */
  getTarget(): string {
    return this.#target;
  }

  /** The manager's state in grpc-js's enum; with `tryToConnect`, an IDLE channel starts connecting. */
  getConnectivityState(tryToConnect: boolean): GrpcState {
    return toGrpcState(this.manager.getState(tryToConnect));
  }

  /**
   * Calls `callback()` once the state differs from `currentState` — at once (on the next tick) if it
   * already does, unlike grpc-js — or `callback(error)` at the deadline. Throws after shutdown, like grpc-js.
   */
  watchConnectivityState(currentState: GrpcState, deadline: Date | number, callback: (error?: Error) => void): void {
    if (this.manager.snapshot.state === 'SHUTDOWN') throw new Error('Channel has been shut down');
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    // Always called on a later tick, after `subscription` below is assigned.
    const settle = (error?: Error): void => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      subscription.unsubscribe();
      if (error === undefined) callback();
      else callback(error);
    };
    const at = deadline instanceof Date ? deadline.getTime() : deadline;
    if (at !== Infinity) {
      const wait = at - Date.now();
      if (wait <= 0) {
        process.nextTick(() => {
          settle(new Error('Deadline passed without connectivity state change'));
        });
        return;
      }
      timer = setTimeout(() => {
        settle(new Error('Deadline passed without connectivity state change'));
      }, Math.min(MAX_TIMER, wait));
    }
    const subscription: Subscription = this.manager.state$.subscribe((snapshot) => {
      if (toGrpcState(snapshot.state) !== currentState) {
        // Never call back synchronously from inside the registration.
        process.nextTick(() => {
          settle();
        });
      }
    });
  }

  /** The channelz reference of the current connection's channel (a placeholder when there is none). */
  getChannelzRef(): ChannelRef {
    const snapshot = this.manager.snapshot;
    if (snapshot.state === 'READY') return snapshot.connection.getChannelzRef();
    return { kind: 'channel', id: -1, name: this.#target } as unknown as ChannelRef;
  }

  /** Creates a call that runs on the READY connection, waiting for one or failing fast as described above. */
  createCall(method: string, deadline: Deadline, host: string | null | undefined, parentCall: Parameters<ChannelInterface['createCall']>[3], propagateFlags: number | null | undefined): ManagedCall {
    if (typeof method !== 'string') throw new TypeError('Channel#createCall: method must be a string');
    if (!(typeof deadline === 'number' || deadline instanceof Date)) throw new TypeError('Channel#createCall: deadline must be a number or Date');
    if (this.manager.snapshot.state === 'SHUTDOWN') throw new Error('Channel has been shut down');
    return new ManagedCall(this.#host, method, deadline, host, parentCall, propagateFlags, this.#waitForReady);
  }
}

function shutdownDetails(error: unknown): string {
  return error === undefined ? 'Channel has been shut down' : `Channel has been shut down: ${describeError(error)}`;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? 'not connected' : describeValue(error);
}

/**
 * A `channelFactoryOverride` for grpc-js clients: each client constructed with it gets its own
 * {@link ManagedChannel}, configured with `options` and the client's channel options.
 *
 * @example
 * ```ts
 * const client = new GreeterClient(address, credentials.createInsecure(), {
 *   channelFactoryOverride: managedChannelFactory({ minConnectTimeout: 5000 }),
 * });
 * ```
 */
export function managedChannelFactory(options: ManagedChannelOptions = {}): (target: string, credentials: ChannelCredentials, channelOptions: ChannelOptions) => ManagedChannel {
  checkOptionsObject('managedChannelFactory options', options);
  return (target, credentials, channelOptions) =>
    new ManagedChannel(target, credentials, { ...options, channelOptions: { ...channelOptions, ...options.channelOptions } });
}
