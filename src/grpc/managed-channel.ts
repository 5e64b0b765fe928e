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
import type { EventEmitter } from 'node:events';
import { isIPv4, isIPv6 } from 'node:net';
import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { ConnectionManager } from '../connection-manager.js';
import type { ConnectionManagerOptions } from '../connection-options.js';
import type { ConnectionSnapshot } from '../connection-snapshot.js';
import type { Connector } from '../connector.js';
import { MAX_DELAY_MS } from '../backoff/backoff.js';
import { ConnectionClosedError } from '../errors/connection-closed-error.js';
import { permanent } from '../errors/permanent-error.js';
import { happyEyeballs } from '../failover/happy-eyeballs.js';
import { scheduleTimerAt } from '../timing/schedule-timer.js';
import { unrefScheduler } from '../unref-scheduler.js';
import { checkOptionsObject, describeValue, optionalBoolean } from '../validate.js';
import { channelState } from './channel-state.js';
import { ConnectionFailedError } from './connection-failed-error.js';
import { GoawayError } from './goaway-error.js';
import { grpcJsSessions, stopGrpcJsReconnects } from './grpc-js-internals.js';
import { toGrpcState } from './grpc-connectivity.js';
import {
  channelOptionNumber,
  KEEPALIVE_OPTIONS,
  KeepalivePolicy,
  type KeepaliveOptions,
  pickKeepalive,
} from './keepalive.js';
import { type SocketTracking, trackSockets } from './socket-tracker.js';
import { without } from './without.js';
import { type CallHost, ManagedCall } from './managed-call.js';

/**
 * Options of {@link ManagedChannel}: the manager's options (except the connector), keepalive as gRFC A8
 * specifies it (mapped onto grpc-js's `grpc.keepalive_*` options of each connection), and the channel's.
 */
export interface ManagedChannelOptions
  extends Omit<ConnectionManagerOptions<GrpcChannel>, 'connector' | 'unref'>, KeepaliveOptions {
  /**
   * grpc-js channel options for each connection's channel (message sizes, TLS name override…).
   * `grpc.keepalive_time_ms`, `grpc.keepalive_timeout_ms` and `grpc.keepalive_permit_without_calls` are
   * read as `keepaliveTime`, `keepaliveTimeout` and `keepaliveWithoutCalls` when those are not given.
   * `grpc.enable_channelz` defaults to 0 here: every attempt has a channel of its own, which would
   * register in channelz and leave it when the attempt ends.
   */
  readonly channelOptions?: ChannelOptions;
  /** Whether calls whose metadata does not say so wait for READY through TRANSIENT_FAILURE. @defaultValue false */
  readonly waitForReady?: boolean;
  /**
   * Unref the channel's timers so that it never holds a Node process open by itself, like grpc-js's
   * own channels. Applies to the default scheduler. @defaultValue true
   */
  readonly unref?: boolean;
  /**
   * With several targets: how long (ms) an attempt on one has before the next starts beside it, as
   * `happyEyeballs()` races them (clamped to [100, 2000]). @defaultValue 250
   */
  readonly attemptDelay?: number;
}

type ChannelRef = ReturnType<ChannelInterface['getChannelzRef']>;

/** Bytes read so far on an HTTP/2 session's socket (undefined when Node does not say). */
function bytesRead(session: EventEmitter): number | undefined {
  const socket = (session as { socket?: { bytesRead?: unknown } }).socket;
  return typeof socket?.bytesRead === 'number' ? socket.bytesRead : undefined;
}

/** What ended an attempt's connection, from what its sockets and HTTP/2 session reported. */
function causeOf(tracking: SocketTracking, goaway: GoawayError | undefined): Error | undefined {
  return goaway ?? tracking.errors[0];
}

/**
 * `target` with grpc-js's `ipv4:`/`ipv6:` scheme when it is a bare IP address and port, else `target`
 * itself. grpc-js resolves such a target the same way under either scheme (no lookup, the same
 * authority), but its default `dns:` resolver builds a DNS client for every channel, which for a
 * channel per attempt is a large share of the attempt's cost.
 */
export function ipLiteralTarget(target: string): string {
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(target);
  if (v4 !== null && isIPv4(v4[1] ?? '')) return `ipv4:${target}`;
  const v6 = /^\[([0-9A-Fa-f:.]+)\]:\d{1,5}$/.exec(target);
  if (v6 !== null && isIPv6(v6[1] ?? '')) return `ipv6:${target}`;
  return target;
}

/** grpc-js channel options for one connection with the keepalive time in force now. */
function connectionOptions(channelOptions: ChannelOptions, keepalive: KeepalivePolicy): ChannelOptions {
  const options: ChannelOptions = {
    // A channel per attempt would register in channelz and leave it again; the user may still ask.
    'grpc.enable_channelz': 0,
    ...channelOptions,
    // Nothing shared with other attempts: a fresh subchannel, with no backoff state of its own.
    'grpc.use_local_subchannel_pool': 1,
    // The manager decides when a connection ends; grpc-js must not idle it away underneath.
    'grpc.client_idle_timeout_ms': MAX_DELAY_MS,
    'grpc.keepalive_timeout_ms': keepalive.timeout,
    'grpc.keepalive_permit_without_calls': keepalive.withoutCalls ? 1 : 0,
  };
  if (keepalive.time === Infinity) delete options['grpc.keepalive_time_ms'];
  else options['grpc.keepalive_time_ms'] = keepalive.time;
  return options;
}

/** The keepalive options, taken from grpc-js's channel options where the redialer ones are not given. */
function keepaliveFrom(raw: Readonly<Record<string, unknown>>, channelOptions: ChannelOptions): KeepalivePolicy {
  const time = channelOptionNumber(channelOptions['grpc.keepalive_time_ms'], 'grpc.keepalive_time_ms');
  const timeout = channelOptionNumber(channelOptions['grpc.keepalive_timeout_ms'], 'grpc.keepalive_timeout_ms');
  const permit = channelOptions['grpc.keepalive_permit_without_calls'] as unknown;
  return new KeepalivePolicy({
    ...raw,
    keepaliveTime: raw['keepaliveTime'] ?? (time === undefined || time <= 0 ? undefined : time),
    keepaliveTimeout: raw['keepaliveTimeout'] ?? (timeout === undefined || timeout <= 0 ? undefined : timeout),
    keepaliveWithoutCalls:
      raw['keepaliveWithoutCalls'] ?? (permit === undefined ? undefined : permit === 1 || permit === true),
  });
}

/**
 * The connector behind a ManagedChannel: one grpc-js channel per attempt, established on READY. Every
 * TCP connection it opens belongs to the attempt that opened it: a connection still waiting for
 * SETTINGS is reset when the attempt is cut, and grpc-js's own reconnect timers never dial again once
 * the attempt has ended. Keepalive follows gRFC A8 ({@link KeepaliveOptions}, or grpc-js's
 * `grpc.keepalive_*` channel options when those are not given): a "too_many_pings" GOAWAY doubles the
 * keepalive time of every later connection of this connector.
 */
export function grpcChannelConnector(
  target: string,
  credentials: ChannelCredentials,
  channelOptions: ChannelOptions = {},
  keepaliveOptions: KeepaliveOptions = {},
): Connector<GrpcChannel> {
  const keepalive = keepaliveFrom(checkOptionsObject('keepalive options', keepaliveOptions), channelOptions);
  const resolverTarget = ipLiteralTarget(target);
  return () =>
    new Observable<GrpcChannel>((subscriber) => {
      let channel: GrpcChannel;
      try {
        channel = new GrpcChannel(resolverTarget, credentials, connectionOptions(channelOptions, keepalive));
      } catch (error) {
        // A bad target or bad credentials will not get better by retrying.
        subscriber.error(permanent(error));
        return undefined;
      }
      // 'settings': grpc-js says READY but the server's SETTINGS frame has not been read yet (grpc-js
      // 1.10 reports READY at TCP/TLS connect); the attempt is not established until it has been.
      let phase: 'connecting' | 'settings' | 'ready' = 'connecting';
      let goaway: GoawayError | undefined;
      const onGoaway = (errorCode: number, lastStreamId?: number, opaqueData?: Buffer): void => {
        goaway ??= new GoawayError(errorCode, lastStreamId, opaqueData);
      };
      const sessions: EventEmitter[] = [];
      const established = (): void => {
        if (subscriber.closed || phase !== 'settings') return;
        phase = 'ready';
        subscriber.next(channel);
      };
      // Connect inside a tracking context: every socket grpc-js opens for this attempt is known.
      const tracking = trackSockets(() => {
        channel.getConnectivityState(true);
      });
      const end = (error: Error): void => {
        keepalive.onConnectionEnded(target, error);
        subscriber.error(error);
      };
      const watch = channelState(channel).subscribe((state) => {
        if (state === 'READY') {
          phase = 'settings';
          // grpc-js reports READY just before it stores the connection's transport: look once that is done.
          queueMicrotask(() => {
            if (subscriber.closed) return;
            for (const session of grpcJsSessions(channel)) {
              // Hear the server's GOAWAY (code and debug data) before grpc-js reacts to it.
              session.prependListener('goaway', onGoaway);
              sessions.push(session);
            }
            // Nothing read from the server yet: its SETTINGS frame is still to come. grpc-js has removed
            // the session's listeners, which turns Node's 'remoteSettings' event off; the server's ACK of
            // our SETTINGS ('localSettings') follows its own SETTINGS frame and still arrives.
            const waiting = sessions.find((session) => bytesRead(session) === 0);
            if (waiting === undefined) established();
            else {
              waiting.once('remoteSettings', established);
              waiting.once('localSettings', established);
            }
          });
        } else if (phase === 'ready') {
          const cause = causeOf(tracking, goaway);
          end(
            cause instanceof GoawayError
              ? cause
              : new ConnectionClosedError(
                  cause === undefined
                    ? `the connection to ${target} was lost`
                    : `the connection to ${target} was lost: ${cause.message}`,
                  { cause },
                ),
          );
        } else if (phase === 'settings' || state === 'TRANSIENT_FAILURE' || state === 'SHUTDOWN') {
          end(new ConnectionFailedError(target, state, causeOf(tracking, goaway), tracking.sockets.size > 0));
        }
      });
      return () => {
        watch.unsubscribe();
        for (const session of sessions) {
          session.off('goaway', onGoaway);
          session.off('remoteSettings', established);
          session.off('localSettings', established);
        }
        // grpc-js must not dial again for an attempt (closing the channel empties its subchannel pool).
        if (phase !== 'ready') stopGrpcJsReconnects(channel);
        channel.close();
        // An established connection closes gracefully with the channel; an attempt must be cut.
        if (phase !== 'ready') tracking.destroyAll();
        tracking.end();
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
  readonly #scheduler: SchedulerLike;
  /** Holds the process open while calls wait for a connection, as grpc-js does for its queued calls. */
  #hold: ReturnType<typeof setInterval> | undefined;

  /**
   * `target` is one address, or several addresses of the same service: those are raced as gRFC A61's
   * pick_first does (see `happyEyeballs()`: a 250 ms stagger, first connection wins, a backoff per
   * address); `getTarget()` then returns the first.
   */
  constructor(
    target: string | readonly string[],
    credentials: ChannelCredentials,
    options: ManagedChannelOptions = {},
  ) {
    const targets: readonly unknown[] = Array.isArray(target) ? target : [target];
    if (!Array.isArray(target) && typeof target !== 'string')
      throw new TypeError(`redialer: ManagedChannel needs a target string, got ${describeValue(target)}`);
    if (targets.length === 0 || targets.some((t) => typeof t !== 'string')) {
      throw new TypeError(
        `redialer: ManagedChannel needs a target string or a non-empty array of them, got ${describeValue(target)}`,
      );
    }
    // The same check grpc-js makes when it builds each connection's channel, made here so it fails now.
    if (!(credentials instanceof ChannelCredentials)) {
      throw new TypeError(
        `redialer: ManagedChannel needs grpc-js ChannelCredentials (credentials.createInsecure(), createSsl()…), got ${describeValue(credentials)}`,
      );
    }
    const raw = checkOptionsObject('ManagedChannel options', options);
    this.#waitForReady = optionalBoolean('waitForReady', raw['waitForReady'], false);
    const channelOptions = (raw['channelOptions'] ?? {}) as ChannelOptions;
    checkOptionsObject('channelOptions', channelOptions);
    // Like grpc-js's own channels, a managed channel never holds the process open by itself.
    const unref = optionalBoolean('unref', raw['unref'], raw['scheduler'] === undefined);
    if (unref && raw['scheduler'] !== undefined) {
      throw new TypeError(
        'redialer: option "unref" applies to the default scheduler; with "scheduler", pass an unref\'d one',
      );
    }
    this.#scheduler = (raw['scheduler'] as SchedulerLike | undefined) ?? (unref ? unrefScheduler : asyncScheduler);
    const managerOptions = without(
      options,
      'channelOptions',
      'waitForReady',
      'unref',
      'attemptDelay',
      ...KEEPALIVE_OPTIONS,
    );
    const addresses = targets as readonly string[];
    const first = addresses[0] ?? '';
    this.#target = first;
    const keepalive = pickKeepalive(options);
    const connector: Connector<GrpcChannel> =
      addresses.length === 1
        ? grpcChannelConnector(first, credentials, channelOptions, keepalive)
        : happyEyeballs(
            addresses.map((address) => ({
              label: address,
              connector: grpcChannelConnector(address, credentials, channelOptions, keepalive),
            })),
            {
              attemptDelay: raw['attemptDelay'] as number | undefined,
              backoff: options.backoff,
              scheduler: this.#scheduler,
              random: options.random,
            },
          );
    this.manager = new ConnectionManager<GrpcChannel>({ ...managerOptions, scheduler: this.#scheduler, connector });
    this.state$ = this.manager.state$;
    this.#host = {
      target: first,
      scheduler: this.#scheduler,
      admit: (call) => {
        this.#admit(call);
      },
      release: (call) => {
        this.#pending.delete(call);
        this.#updateHold();
      },
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
    this.#updateHold();
    if (snapshot.state === 'IDLE') this.manager.connect();
  }

  #updateHold(): void {
    if (this.#pending.size > 0 && this.#hold === undefined) {
      // Never fires: a handle that keeps the event loop alive while a call waits (its callback is due).
      this.#hold = setInterval(() => undefined, MAX_DELAY_MS);
    } else if (this.#pending.size === 0 && this.#hold !== undefined) {
      clearInterval(this.#hold);
      this.#hold = undefined;
    }
  }

  #onState(snapshot: ConnectionSnapshot<GrpcChannel>): void {
    if (this.#pending.size === 0) return;
    const calls = [...this.#pending];
    switch (snapshot.state) {
      case 'READY':
        this.#pending.clear();
        this.#updateHold();
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
    let timer: Subscription | undefined;
    let done = false;
    // Always called on a later tick, after `subscription` below is assigned.
    const settle = (error?: Error): void => {
      if (done) return;
      done = true;
      timer?.unsubscribe();
      subscription.unsubscribe();
      if (error === undefined) callback();
      else callback(error);
    };
    const at = deadline instanceof Date ? deadline.getTime() : deadline;
    if (at !== Infinity) {
      if (at <= this.#scheduler.now()) {
        process.nextTick(() => {
          settle(new Error('Deadline passed without connectivity state change'));
        });
        return;
      }
      timer = scheduleTimerAt(this.#scheduler, at, () => {
        settle(new Error('Deadline passed without connectivity state change'));
      });
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
  createCall(
    method: string,
    deadline: Deadline,
    host: string | null | undefined,
    parentCall: Parameters<ChannelInterface['createCall']>[3],
    propagateFlags: number | null | undefined,
  ): ManagedCall {
    if (typeof method !== 'string') throw new TypeError('Channel#createCall: method must be a string');
    if (!(typeof deadline === 'number' || deadline instanceof Date))
      throw new TypeError('Channel#createCall: deadline must be a number or Date');
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
export function managedChannelFactory(
  options: ManagedChannelOptions = {},
): (target: string, credentials: ChannelCredentials, channelOptions: ChannelOptions) => ManagedChannel {
  checkOptionsObject('managedChannelFactory options', options);
  return (target, credentials, channelOptions) =>
    new ManagedChannel(target, credentials, {
      ...options,
      channelOptions: { ...channelOptions, ...options.channelOptions },
    });
}
