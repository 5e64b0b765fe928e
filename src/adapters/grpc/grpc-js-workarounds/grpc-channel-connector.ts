/**
 * The connector behind a ManagedChannel: each connection attempt runs on a grpc-js channel of its own
 * making, established on READY once the server's SETTINGS frame has been read.
 *
 * Every TCP connection an attempt opens belongs to that attempt (see `socket-tracker.ts`): a
 * connection still waiting for SETTINGS is reset when the attempt is cut, and grpc-js's own reconnect
 * timers never dial for an attempt that has ended. Keepalive follows gRFC A8.
 *
 * With `reuse` ({@link GrpcChannelAttempts}), one channel serves a run of attempts: failed attempts,
 * the connection that follows, its loss and the reconnect. The channel runs under an
 * {@link AttemptGate}, which lets its subchannel dial only when redialer starts an attempt, and a
 * channel whose attempt failed, or whose established connection was lost, is kept for the next
 * attempt. Bringing up a grpc-js channel (resolver, load balancer, subchannel) costs more than a
 * failed dial, and a plain grpc-js channel pays it once, not once per attempt. Calls still running on
 * a connection that received GOAWAY go on on its HTTP/2 session, as in a plain grpc-js channel. A
 * channel is closed, never kept, when its attempt is cut or fails before SETTINGS.
 * @module
 */
import { Channel as GrpcChannel, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import type { EventEmitter } from 'node:events';
import { isIPv4, isIPv6 } from 'node:net';
import { Observable, type Subscriber, type Subscription, type TeardownLogic, type Unsubscribable } from 'rxjs';
import type { Connector } from '../../../core/connector.js';
import type { ConnectivityState } from '../../../core/connectivity-state.js';
import { MAX_DELAY_MS } from '../../../backoff/backoff.js';
import { ConnectionClosedError } from '../../../errors/connection-closed-error.js';
import { permanent } from '../../../errors/permanent-error.js';
import { withoutStackTrace } from '../../../internal/without-stack-trace.js';
import { checkOptionsObject } from '../../../internal/validate.js';
import { AttemptGate, type GateAttempt } from './attempt-gate.js';
import { channelState } from '../channel-state-observable.js';
import { ConnectionFailedError } from '../connection-failed-error.js';
import { GoawayError } from '../goaway-error.js';
import { grpcJsSessions, stopGrpcJsReconnects } from './grpc-js-internals.js';
import { channelOptionNumber, KeepalivePolicy, type KeepaliveOptions } from '../keepalive.js';
import { type SocketTracking, trackSockets } from './socket-tracker.js';

/** Bytes read so far on an HTTP/2 session's socket (undefined when Node does not say). */
function bytesRead(session: EventEmitter): number | undefined {
  const socket = (session as { socket?: { bytesRead?: unknown } }).socket;
  return typeof socket?.bytesRead === 'number' ? socket.bytesRead : undefined;
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
    // Nothing shared with other channels: a fresh subchannel, with no backoff state of its own.
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

/** The environment variables grpc-js reads for an HTTP CONNECT proxy, in its order. */
const PROXY_VARIABLES = ['grpc_proxy', 'https_proxy', 'http_proxy'] as const;

/**
 * Whether grpc-js may connect a channel to `target` through an HTTP CONNECT proxy: one of the
 * environment variables it reads (`grpc_proxy`, `https_proxy`, `http_proxy`) is set, and the options
 * do not turn proxies off. (grpc-js may still go direct, for a host in `no_proxy`; this only decides
 * whether the attempt also tracks its sockets by context.)
 */
function mayUseProxy(target: string, options: ChannelOptions): boolean {
  if (options['grpc.enable_http_proxy'] === 0 || target.startsWith('unix:')) return false;
  return PROXY_VARIABLES.some((name) => Boolean(process.env[name]));
}

/** A channel kept after a failed attempt (or a lost connection), for the next one: its gate is bound. */
interface KeptChannel extends AttemptChannel {
  readonly gate: AttemptGate;
}

/** Closes a channel an attempt no longer needs; no subchannel of it dials again. */
function closeChannel(channel: GrpcChannel, gate: AttemptGate | undefined): void {
  gate?.dispose();
  stopGrpcJsReconnects(channel);
  channel.close();
}

/** The channel an attempt runs on: a new one, or one kept from the attempt before. */
interface AttemptChannel {
  readonly channel: GrpcChannel;
  /** The channel's gate; none when the channel was built without one (`reuse` off, or a policy of the user's). */
  readonly gate: AttemptGate | undefined;
  /** The keepalive time the channel was built with. */
  readonly keepaliveTime: number;
  /** Whether grpc-js may reach the target through an HTTP CONNECT proxy (see {@link mayUseProxy}). */
  readonly proxied: boolean;
}

/**
 * One connection attempt on a grpc-js channel, from its start to its teardown: one object per attempt,
 * whose methods hear what the gate, the channel and the HTTP/2 session report (a failed attempt costs
 * no closures).
 */
class ChannelAttempt implements GateAttempt, Unsubscribable {
  /**
   * 'settings': grpc-js says READY but the server's SETTINGS frame has not been read yet (grpc-js 1.10
   * reports READY at TCP/TLS connect); the attempt is not established until it has been.
   */
  #phase: 'connecting' | 'settings' | 'ready' = 'connecting';
  #goaway: GoawayError | undefined = undefined;
  /** Whether the channel was kept for the next attempt, which may already have taken it. */
  #keptForNext = false;
  /** Every socket grpc-js opens for this attempt (set in {@link start}). */
  #tracking: SocketTracking | undefined = undefined;
  /** The watch on a new channel's own state (a kept channel's gate tells its state instead). */
  #watch: Subscription | undefined = undefined;
  /** The READY connection's HTTP/2 sessions, and the listeners this attempt set on them. */
  #sessions: EventEmitter[] | undefined = undefined;
  #onGoaway: ((errorCode: number, lastStreamId?: number, opaqueData?: Buffer) => void) | undefined = undefined;
  #onSettings: (() => void) | undefined = undefined;

  constructor(
    private readonly subscriber: Subscriber<GrpcChannel>,
    private readonly target: string,
    private readonly keepalive: KeepalivePolicy,
    private readonly on: AttemptChannel,
    /** Whether the channel was kept from the attempt before (its gate is bound and tells its state). */
    private readonly reused: boolean,
    /** Keeps the channel for the next attempt. */
    private readonly keepChannel: (kept: KeptChannel) => void,
  ) {}

  /** Starts the attempt; the attempt is its own teardown. */
  start(): this {
    const { channel, gate, proxied } = this.on;
    gate?.listen(this);
    // Every socket grpc-js opens for this attempt is known: a gate hears of each one its subchannels
    // dial; a channel without one connects inside a tracking context.
    if (gate !== undefined) {
      const sockets = gate.track();
      this.#tracking = sockets;
      // grpc-js dials an HTTP CONNECT proxy with its own request, not from the subchannel's address:
      // the gate sees no such socket, the tracking context does.
      if (proxied) {
        trackSockets(() => {
          this.#connect(gate);
        }, sockets);
      } else this.#connect(gate);
    } else {
      this.#tracking = trackSockets(() => channel.getConnectivityState(true));
    }
    // A kept channel's gate is bound: it tells its pick_first's states; a new channel is watched itself.
    if (this.reused) gate?.watch(this);
    else {
      this.#watch = channelState(channel).subscribe((state) => {
        this.channelStateChanged(state);
      });
    }
    return this;
  }

  /** A kept channel whose subchannel failed is dialling again now; one that went IDLE, or a new one, is asked to connect. */
  #connect(gate: AttemptGate): void {
    if (!this.reused || gate.reopen()) this.on.channel.getConnectivityState(true);
  }

  /**
   * Keeps the channel for the next attempt, its gate shut until then: when the gate ended the attempt
   * (the channel failed cleanly) or the established connection was lost (calls still running on a
   * connection that received GOAWAY go on on its HTTP/2 session; new calls wait for READY). Done before
   * the manager hears of the end, so that an owner that releases the kept channel when the manager stops
   * (goes IDLE or shuts down) finds it.
   */
  #keep(): void {
    const { gate } = this.on;
    if (gate?.bound !== true) return;
    gate.shut();
    // With its gate bound, the attempt's channel is what a kept channel records (the same object serves
    // every attempt that reuses it).
    this.keepChannel(this.on as KeptChannel);
    this.#keptForNext = true;
  }

  /** What ended the attempt's connection, from what its sockets and HTTP/2 session reported. */
  #cause(): Error | undefined {
    return this.#goaway ?? this.#tracking?.errors[0];
  }

  #end(error: Error): void {
    this.keepalive.onConnectionEnded(this.target, error);
    this.subscriber.error(error);
  }

  #failed(state: 'TRANSIENT_FAILURE' | 'SHUTDOWN'): void {
    const cause = this.#cause();
    const opened = (this.#tracking?.sockets.size ?? 0) > 0;
    this.#end(withoutStackTrace(() => new ConnectionFailedError(this.target, state, cause, opened)));
  }

  #established(): void {
    if (this.subscriber.closed || this.#phase !== 'settings') return;
    this.#phase = 'ready';
    this.subscriber.next(this.on.channel);
  }

  /** @internal The gate shut because the channel failed to connect. */
  gateFailed(): void {
    if (this.subscriber.closed || this.#phase !== 'connecting') return;
    this.#keep();
    this.#failed('TRANSIENT_FAILURE');
  }

  /** @internal The channel's state changed. */
  channelStateChanged(state: ConnectivityState): void {
    // Once kept, the channel may serve the next attempt before this one's teardown has run.
    if (this.subscriber.closed) return;
    if (state === 'READY') {
      this.#phase = 'settings';
      // grpc-js reports READY just before it stores the connection's transport: look once that is done.
      queueMicrotask(() => {
        this.#watchSettings();
      });
    } else if (this.#phase === 'ready') {
      this.#keep();
      const cause = this.#cause();
      // Made in a grpc-js callback: a stack trace would name none of the caller's frames.
      this.#end(
        cause instanceof GoawayError
          ? cause
          : withoutStackTrace(
              () =>
                new ConnectionClosedError(
                  cause === undefined
                    ? `the connection to ${this.target} was lost`
                    : `the connection to ${this.target} was lost: ${cause.message}`,
                  { cause },
                ),
            ),
      );
    } else if (this.#phase === 'settings' || state === 'SHUTDOWN') {
      this.#failed(state === 'SHUTDOWN' ? 'SHUTDOWN' : 'TRANSIENT_FAILURE');
    } else if (state === 'TRANSIENT_FAILURE' && this.on.gate?.bound !== true) {
      // Under a bound gate the failure is the gate's to tell: the channel's own state stays in
      // TRANSIENT_FAILURE from the first failure on, also while a later attempt connects.
      this.#failed(state);
    }
  }

  /** The channel is READY: hear its sessions' GOAWAY, and wait for the server's SETTINGS if not read yet. */
  #watchSettings(): void {
    if (this.subscriber.closed) return;
    const { channel, gate } = this.on;
    const sessions = grpcJsSessions(channel, gate?.bound === true ? gate.realSubchannels() : undefined);
    this.#sessions = sessions;
    const onGoaway = (errorCode: number, lastStreamId?: number, opaqueData?: Buffer): void => {
      // Made in a session's event: a stack trace would name none of the caller's frames.
      this.#goaway ??= withoutStackTrace(() => new GoawayError(errorCode, lastStreamId, opaqueData));
    };
    this.#onGoaway = onGoaway;
    // Hear the server's GOAWAY (code and debug data) before grpc-js reacts to it.
    for (const session of sessions) session.prependListener('goaway', onGoaway);
    // Nothing read from the server yet: its SETTINGS frame is still to come. grpc-js has removed the
    // session's listeners, which turns Node's 'remoteSettings' event off; the server's ACK of our
    // SETTINGS ('localSettings') follows its own SETTINGS frame and still arrives.
    const waiting = sessions.find((session) => bytesRead(session) === 0);
    if (waiting === undefined) this.#established();
    else {
      const onSettings = (): void => {
        this.#established();
      };
      this.#onSettings = onSettings;
      waiting.once('remoteSettings', onSettings);
      waiting.once('localSettings', onSettings);
    }
  }

  /** The attempt's teardown. */
  unsubscribe(): void {
    const { channel, gate } = this.on;
    gate?.release(this, this.#tracking);
    this.#watch?.unsubscribe();
    for (const session of this.#sessions ?? []) {
      if (this.#onGoaway !== undefined) session.off('goaway', this.#onGoaway);
      if (this.#onSettings !== undefined) {
        session.off('remoteSettings', this.#onSettings);
        session.off('localSettings', this.#onSettings);
      }
    }
    const tracking = this.#tracking;
    if (this.#phase !== 'ready') tracking?.destroyAll();
    tracking?.end();
    if (this.#keptForNext) {
      // Kept (and perhaps in use again, or released): no longer this attempt's to close.
    } else if (this.#phase === 'ready') {
      // An established connection closes gracefully with its channel.
      gate?.dispose();
      channel.close();
    } else {
      // grpc-js must not dial again for this attempt.
      closeChannel(channel, gate);
    }
  }
}

/**
 * The connection attempts to one target. With `reuse`, a channel whose attempt failed is kept for the
 * next attempt (see the module notes); its owner must then call {@link release} when no attempt is to
 * follow soon (the manager went IDLE or shut down), or the kept channel stays open.
 */
export class GrpcChannelAttempts {
  /** Starts one attempt; for a {@link ConnectionManager}. */
  readonly connector: Connector<GrpcChannel>;
  readonly #target: string;
  readonly #resolverTarget: string;
  readonly #credentials: ChannelCredentials;
  readonly #channelOptions: ChannelOptions;
  readonly #keepalive: KeepalivePolicy;
  readonly #reuse: boolean;
  #kept: KeptChannel | undefined;
  /** The attempts, as one cold Observable: each subscription is one attempt. */
  readonly #attempts$: Observable<GrpcChannel>;
  /** Keeps a channel for the next attempt, in place of any kept before. */
  readonly #keep = (kept: KeptChannel): void => {
    this.release();
    this.#kept = kept;
  };

  constructor(
    target: string,
    credentials: ChannelCredentials,
    channelOptions: ChannelOptions,
    keepaliveOptions: KeepaliveOptions,
    reuse: boolean,
  ) {
    this.#keepalive = keepaliveFrom(checkOptionsObject('keepalive options', keepaliveOptions), channelOptions);
    this.#target = target;
    this.#resolverTarget = ipLiteralTarget(target);
    this.#credentials = credentials;
    this.#channelOptions = channelOptions;
    this.#reuse = reuse;
    this.#attempts$ = new Observable<GrpcChannel>((subscriber) => this.#start(subscriber));
    this.connector = () => this.#attempts$;
  }

  /** Closes the channel kept from the last attempt (one that failed, or whose connection was lost), if any. */
  release(): void {
    const kept = this.#kept;
    this.#kept = undefined;
    if (kept !== undefined) closeChannel(kept.channel, kept.gate);
  }

  /** The kept channel when it can serve an attempt now; otherwise it is closed. */
  #takeKept(): KeptChannel | undefined {
    const kept = this.#kept;
    this.#kept = undefined;
    if (kept === undefined) return undefined;
    if (kept.gate.reusable && kept.keepaliveTime === this.#keepalive.time) return kept;
    closeChannel(kept.channel, kept.gate);
    return undefined;
  }

  /** Starts one attempt: the work of one subscription to the connector's Observable. */
  #start(subscriber: Subscriber<GrpcChannel>): TeardownLogic {
    const kept = this.#takeKept();
    if (kept !== undefined) {
      return new ChannelAttempt(subscriber, this.#target, this.#keepalive, kept, true, this.#keep).start();
    }
    const proxied = mayUseProxy(this.#resolverTarget, this.#channelOptions);
    const options = connectionOptions(this.#channelOptions, this.#keepalive);
    let gate = this.#reuse ? new AttemptGate(this.#resolverTarget) : undefined;
    const gated = gate?.channelOptions(options);
    if (gated === undefined) {
      gate?.dispose();
      gate = undefined;
    }
    let channel: GrpcChannel;
    try {
      channel = new GrpcChannel(this.#resolverTarget, this.#credentials, gated ?? options);
    } catch (error) {
      gate?.dispose();
      // A bad target or bad credentials will not get better by retrying.
      subscriber.error(permanent(error));
      return undefined;
    }
    const fresh = { channel, gate, keepaliveTime: this.#keepalive.time, proxied };
    return new ChannelAttempt(subscriber, this.#target, this.#keepalive, fresh, false, this.#keep).start();
  }
}

/**
 * A connector that runs each connection attempt on a grpc-js channel of its own, established on READY
 * (after the server's SETTINGS frame). Every TCP connection it opens belongs to the attempt that opened
 * it: a connection still waiting for SETTINGS is reset when the attempt is cut, and grpc-js's own
 * reconnect timers never dial again once the attempt has ended. Keepalive follows gRFC A8
 * ({@link KeepaliveOptions}, or grpc-js's `grpc.keepalive_*` channel options when those are not
 * given): a "too_many_pings" GOAWAY doubles the keepalive time of every later connection of this
 * connector. (A {@link ManagedChannel} also lets consecutive failed attempts share a channel, which it
 * closes when its manager goes IDLE or shuts down; a bare connector has no such moment, so it does not.)
 */
export function grpcChannelConnector(
  target: string,
  credentials: ChannelCredentials,
  channelOptions: ChannelOptions = {},
  keepaliveOptions: KeepaliveOptions = {},
): Connector<GrpcChannel> {
  return new GrpcChannelAttempts(target, credentials, channelOptions, keepaliveOptions, false).connector;
}
