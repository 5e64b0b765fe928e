/**
 * A grpc-js Channel whose connection lifecycle redialer governs, for existing client code.
 *
 * Design: a {@link ConnectionManager} runs the connection attempts, each on a grpc-js channel with its
 * own subchannel pool (nothing is shared with other channels), asked to connect once. A run of
 * attempts (failures, the connection, its loss, the reconnect) shares one such channel, whose
 * subchannel dials only when the manager starts an attempt; the channel is closed when the manager
 * goes IDLE or shuts down (see `grpc-channel-connector.ts`). grpc-js reports READY only after the
 * server's HTTP/2 SETTINGS frame (its transport resolves the session on `remoteSettings`), so READY
 * here means the same. The attempt fails as soon as its connection fails, and is cut by the manager at
 * max(backoff deadline, minConnectTimeout) — grpc-js by itself would wait for SETTINGS forever
 * (grpc/grpc-node#2785). Closing a grpc-js channel does not close a socket still waiting for
 * SETTINGS, so the attempt tracks the sockets it opens (see `socket-tracker.ts`) and resets them when
 * it is cut. grpc-js's own reconnect loop never runs: a connection that leaves READY ends the
 * attempt, and the manager starts the next with gRPC's backoff. The backoff resets once a connection
 * has stayed READY for `minUptime` (the manager's default, 5 s); `minUptime: 0` resets it at the
 * SETTINGS frame itself, as gRPC specifies.
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
  type Channel as GrpcChannel,
  ChannelCredentials,
  type ChannelInterface,
  type ChannelOptions,
  type Deadline,
  status as Status,
  type connectivityState as GrpcState,
} from '@grpc/grpc-js';
import {
  asyncScheduler,
  NEVER,
  type Observable,
  type SchedulerAction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { ConnectionManager } from '../../core/connection-manager.js';
import type { ConnectionManagerOptions } from '../../core/connection-options.js';
import type { ConnectionSnapshot } from '../../core/connection-snapshot.js';
import type { Connector } from '../../core/connector.js';
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import { happyEyeballs } from '../../connectors/happy-eyeballs.js';
import { scheduleTimerAt } from '../../internal/schedule-timer.js';
import { describeError } from '../../internal/describe-error.js';
import { unrefScheduler } from '../../internal/unref-scheduler.js';
import { checkOptionsObject, describeValue, optionalBoolean } from '../../internal/validate.js';
import { GrpcChannelAttempts } from './grpc-js-workarounds/grpc-channel-connector.js';
import { toGrpcState } from './connectivity-state-names.js';
import { KEEPALIVE_OPTIONS, type KeepaliveOptions, pickKeepalive } from './keepalive.js';
import { reconnectBackoff } from './reconnect-backoff.js';
import { without } from '../../internal/without.js';
import { type CallHost, ManagedCall } from './managed-call.js';
import { checkHealthCheckOptions, healthChecked, type HealthCheckOptions } from './health-check/health-checked.js';
import { grpcJsHealthWatch } from './health-check/grpc-js-health-watch.js';
import { DegradedCalls } from './degraded-calls.js';

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
   * `grpc.initial_reconnect_backoff_ms` and `grpc.max_reconnect_backoff_ms` are read as
   * `backoff: grpcBackoff({ initialBackoff, maxBackoff })` (a cap given alone also caps the first wait);
   * they cannot be given with `backoff` (a TypeError), since grpc-js's own reconnect loop never runs.
   * `grpc.enable_channelz` defaults to 0 here: every attempt has a channel of its own, which would
   * register in channelz and leave it when the attempt ends.
   */
  readonly channelOptions?: ChannelOptions;
  /** Whether calls whose metadata does not say so wait for READY through TRANSIENT_FAILURE. @defaultValue false */
  readonly waitForReady?: boolean;
  /**
   * Unref the channel's timers so that it never holds a Node process open by itself, like grpc-js's
   * own channels. Applies to the default scheduler. Either way, a call waiting for a connection holds
   * the process open until it ends, as grpc-js's queued calls do: the hold is an action on the
   * channel's scheduler that never runs (on the host's ref'd timers in place of `unrefScheduler`), so
   * on a virtual clock it arms nothing real. @defaultValue true
   */
  readonly unref?: boolean;
  /**
   * With several targets: how long (ms) an attempt on one has before the next starts beside it, as
   * `happyEyeballs()` races them (clamped to [100, 2000]). @defaultValue 250
   */
  readonly attemptDelay?: number;
  /**
   * Health checking per gRFC A17: one `grpc.health.v1.Health/Watch` stream on each connection; the
   * channel is READY only after the first answer and while the last one is SERVING, and
   * TRANSIENT_FAILURE with `connected: true` otherwise (waitForReady calls wait, others fail fast with
   * "Not serving: …"), on the same connection. Without this option the service config's
   * `healthCheckConfig.serviceName` (`channelOptions['grpc.service_config']`) turns it on, as in
   * gRPC; `false` keeps it off even then. See docs/grpc.md, "Behind a proxy". @defaultValue off
   */
  readonly healthCheck?: HealthCheckOptions | false;
  /**
   * Without a health service: after this many calls in a row on a READY connection end with
   * UNAVAILABLE (a proxy's 502/503/504 for a backend that is down), `degraded$` gives the reason
   * until a call ends otherwise or the connection changes; `connectionStatus(channel.state$, {
   * degraded: channel.degraded$ })` then shows `unavailable`. Off by default: one failing method can
   * look like a failing service. @defaultValue off
   */
  readonly degradedAfter?: number;
}

type ChannelRef = ReturnType<ChannelInterface['getChannelzRef']>;

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
  /**
   * With `degradedAfter`: the reason (a `NotServingError`, status UNAVAILABLE) while calls on the READY
   * connection keep failing with UNAVAILABLE, undefined while they do not; without it, never emits.
   * For `connectionStatus(state$, { degraded })` and redialer/react.
   */
  readonly degraded$: Observable<unknown>;
  readonly #degraded: DegradedCalls<ChannelInterface> | undefined;
  readonly #target: string;
  readonly #waitForReady: boolean;
  /** Calls waiting for a connection; none (and no set) most of the time. */
  #pending: Set<ManagedCall> | undefined;
  readonly #watch: Subscription;
  readonly #host: CallHost;
  readonly #scheduler: SchedulerLike;
  /** Where the hold is armed: the channel's scheduler, or the host's ref'd timers in place of `unrefScheduler`. */
  readonly #holdScheduler: SchedulerLike;
  readonly #attempts: readonly GrpcChannelAttempts[];
  /** Holds the process open while calls wait for a connection, as grpc-js does for its queued calls. */
  #hold: Subscription | undefined;

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
    const backoff = reconnectBackoff(options.backoff, channelOptions);
    // Like grpc-js's own channels, a managed channel never holds the process open by itself.
    const unref = optionalBoolean('unref', raw['unref'], raw['scheduler'] === undefined);
    if (unref && raw['scheduler'] !== undefined) {
      throw new TypeError(
        'redialer: option "unref" applies to the default scheduler; with "scheduler", pass an unref\'d one',
      );
    }
    this.#scheduler = (raw['scheduler'] as SchedulerLike | undefined) ?? (unref ? unrefScheduler : asyncScheduler);
    this.#holdScheduler = this.#scheduler === unrefScheduler ? asyncScheduler : this.#scheduler;
    const managerOptions = without(
      options,
      'channelOptions',
      'waitForReady',
      'unref',
      'attemptDelay',
      'healthCheck',
      'degradedAfter',
      ...KEEPALIVE_OPTIONS,
    );
    const addresses = targets as readonly string[];
    const first = addresses[0] ?? '';
    this.#target = first;
    const keepalive = pickKeepalive(options);
    // Consecutive failed attempts share a channel; it is released when the manager stops trying.
    const candidates = addresses.map((address) => {
      const attempts = new GrpcChannelAttempts(address, credentials, channelOptions, keepalive, true);
      return { label: address, attempts, connector: attempts.connector };
    });
    this.#attempts = candidates.map((candidate) => candidate.attempts);
    const transport: Connector<GrpcChannel> =
      candidates.length === 1 && candidates[0] !== undefined
        ? candidates[0].connector
        : happyEyeballs(candidates, {
            attemptDelay: raw['attemptDelay'] as number | undefined,
            backoff,
            scheduler: this.#scheduler,
            random: options.random,
          });
    const healthCheck = healthCheckOf(raw['healthCheck'], channelOptions);
    const connector =
      healthCheck === undefined
        ? transport
        : healthChecked(transport, grpcJsHealthWatch, {
            ...healthCheck,
            scheduler: this.#scheduler,
            ...(options.random === undefined ? {} : { random: options.random }),
            ...(backoff === undefined ? {} : { backoff }),
          });
    const degradedAfter = raw['degradedAfter'];
    if (degradedAfter !== undefined && !(Number.isInteger(degradedAfter) && (degradedAfter as number) >= 1)) {
      throw new RangeError(
        `redialer: option "degradedAfter" must be a whole number of calls, at least 1, got ${describeValue(degradedAfter)}`,
      );
    }
    this.#degraded = degradedAfter === undefined ? undefined : new DegradedCalls(degradedAfter as number);
    this.degraded$ = this.#degraded?.degraded$ ?? NEVER;
    this.manager = new ConnectionManager<GrpcChannel>({
      ...managerOptions,
      ...(backoff === undefined ? {} : { backoff }),
      scheduler: this.#scheduler,
      connector,
    });
    this.state$ = this.manager.state$;
    this.#host = {
      target: first,
      scheduler: this.#scheduler,
      admit: (call) => {
        this.#admit(call);
      },
      release: (call) => {
        this.#pending?.delete(call);
        this.#updateHold();
      },
      ...(this.#degraded === undefined
        ? {}
        : {
            ended: (connection: ChannelInterface, code: number, details: string) => {
              this.#degraded?.callEnded(connection, code, details);
            },
          }),
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
          call.fail(Status.UNAVAILABLE, unavailableDetails(snapshot));
          return;
        }
        break;
      case 'IDLE':
      case 'CONNECTING':
        break;
    }
    (this.#pending ??= new Set()).add(call);
    this.#updateHold();
    if (snapshot.state === 'IDLE') this.manager.connect();
  }

  #updateHold(): void {
    const waiting = this.#pending?.size ?? 0;
    if (waiting > 0 && this.#hold === undefined) {
      // An action that only re-arms itself: on the host's timers it keeps the event loop alive while a
      // call waits; on a virtual clock it is one more pending action, and nothing real.
      this.#hold = this.#holdScheduler.schedule(holdOn, MAX_DELAY_MS);
    } else if (waiting === 0) {
      // A channel with no call waiting (most channels, most of the time) holds no set.
      this.#pending = undefined;
      this.#hold?.unsubscribe();
      this.#hold = undefined;
    }
  }

  #onState(snapshot: ConnectionSnapshot<GrpcChannel>): void {
    this.#degraded?.connectionChanged(snapshot.state === 'READY' ? snapshot.connection : undefined);
    if (snapshot.state === 'IDLE' || snapshot.state === 'SHUTDOWN') this.#release();
    const pending = this.#pending;
    if (pending === undefined || pending.size === 0) return;
    const calls = [...pending];
    switch (snapshot.state) {
      case 'READY':
        pending.clear();
        this.#updateHold();
        for (const call of calls) call.attach(snapshot.connection);
        return;
      case 'TRANSIENT_FAILURE':
        for (const call of calls) {
          if (!call.waitForReady) call.fail(Status.UNAVAILABLE, unavailableDetails(snapshot));
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
    this.#degraded?.complete();
    this.#release();
  }

  /** Closes the channels kept from failed attempts: no attempt follows until the next connect(). */
  #release(): void {
    for (const attempts of this.#attempts) attempts.release();
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

/** The work of the hold: it does nothing but stay scheduled, however long the call waits. */
function holdOn(this: SchedulerAction<undefined>): void {
  this.schedule(undefined, MAX_DELAY_MS);
}

function shutdownDetails(error: unknown): string {
  return error === undefined ? 'Channel has been shut down' : `Channel has been shut down: ${describeError(error)}`;
}

function describeLastError(error: unknown): string {
  return error === undefined ? 'not connected' : describeError(error);
}

/**
 * The health check to run: the option's, else the service config's `healthCheckConfig.serviceName`
 * (reported once through console.warn when the server has none), else none; `false` is none.
 */
function healthCheckOf(option: unknown, channelOptions: ChannelOptions): Required<HealthCheckOptions> | undefined {
  if (option === false) return undefined;
  if (option !== undefined) return checkHealthCheckOptions(option);
  const config: unknown = channelOptions['grpc.service_config'];
  if (config === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = typeof config === 'string' ? JSON.parse(config) : undefined;
  } catch (cause) {
    throw new TypeError(`redialer: channel option "grpc.service_config" is not JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const healthCheckConfig: unknown = (parsed as Record<string, unknown>)['healthCheckConfig'];
  if (healthCheckConfig === undefined) return undefined;
  const serviceName: unknown =
    typeof healthCheckConfig === 'object' && healthCheckConfig !== null
      ? (healthCheckConfig as Record<string, unknown>)['serviceName']
      : undefined;
  if (typeof serviceName !== 'string') {
    throw new TypeError(
      `redialer: "healthCheckConfig.serviceName" in channel option "grpc.service_config" must be a string, got ${describeValue(serviceName)}`,
    );
  }
  return checkHealthCheckOptions({ serviceName });
}

/** Why a call fails fast in TRANSIENT_FAILURE: no connection, or a server that reports it is not serving. */
function unavailableDetails(snapshot: Extract<ConnectionSnapshot, { state: 'TRANSIENT_FAILURE' }>): string {
  return snapshot.connected === true
    ? `Not serving: ${describeLastError(snapshot.lastError)}`
    : `No connection: ${describeLastError(snapshot.lastError)}`;
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
