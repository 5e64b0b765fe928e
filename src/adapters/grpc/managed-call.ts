/**
 * One call made through a {@link ManagedChannel}: it waits (or fails fast) while there is no READY
 * connection, then runs as an ordinary grpc-js call on the connection's channel, replaying what the
 * client did in the meantime (start, messages, reads, half-close) in order.
 * @module
 */
import {
  type ChannelInterface,
  type Deadline,
  Metadata,
  propagate as Propagate,
  status as Status,
  type InterceptingListener,
  type StatusObject,
} from '@grpc/grpc-js';
import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleTimerAt } from '../../internal/schedule-timer.js';

/** grpc-js's call interface (not exported by name from the package). */
export type GrpcCall = ReturnType<ChannelInterface['createCall']>;
type ParentCall = Parameters<ChannelInterface['createCall']>[3];
type MessageContext = Parameters<GrpcCall['sendMessageWithContext']>[0];
type CallCredentials = Parameters<GrpcCall['setCredentials']>[0];
type AuthContext = ReturnType<GrpcCall['getAuthContext']>;

type Replay =
  | { readonly type: 'message'; readonly context: MessageContext; readonly message: Buffer }
  | { readonly type: 'read' }
  | { readonly type: 'half-close' };

/** What a {@link ManagedCall} needs from its channel. */
export interface CallHost {
  /** Called once by `start()`: the channel attaches, queues or fails the call. */
  admit(call: ManagedCall): void;
  /** The call ended while queued; the channel forgets it. */
  release(call: ManagedCall): void;
  /** Shown by `getPeer()` before the call is attached. */
  readonly target: string;
  /** The clock and timers of the channel (its deadline timer runs on them). */
  readonly scheduler: SchedulerLike;
  /** Told how each attached call ended, on which connection (for the degraded signal); absent when nobody counts. */
  readonly ended?: (connection: ChannelInterface, code: Status, details: string) => void;
}

let nextCallNumber = 1;

function deadlineMs(deadline: Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/** A grpc-js call that starts on the managed connection once there is one. */
export class ManagedCall implements GrpcCall {
  readonly #host: CallHost;
  readonly #method: string;
  readonly #deadline: Deadline;
  readonly #hostName: string | null | undefined;
  readonly #parent: ParentCall;
  readonly #flags: number | null | undefined;
  readonly #callNumber = nextCallNumber++;
  readonly #replay: Replay[] = [];
  #waitForReady: boolean;
  #metadata: Metadata | undefined;
  #listener: InterceptingListener | undefined;
  #credentials: CallCredentials | undefined;
  #inner: GrpcCall | undefined;
  #ended: StatusObject | undefined;
  #timer: Subscription | undefined;
  readonly #onParentCancelled = (): void => {
    this.cancelWithStatus(Status.CANCELLED, 'Cancelled by parent call');
  };

  /**
   * Created by `ManagedChannel.createCall()`; the deadline timer runs from here, as in grpc-js.
   * @internal
   */
  constructor(
    host: CallHost,
    method: string,
    deadline: Deadline,
    hostName: string | null | undefined,
    parent: ParentCall,
    flags: number | null | undefined,
    defaultWaitForReady: boolean,
  ) {
    this.#host = host;
    this.#method = method;
    this.#hostName = hostName;
    this.#parent = parent;
    this.#flags = flags;
    this.#waitForReady = defaultWaitForReady;
    const mask = flags ?? Propagate.DEFAULTS;
    let effective = deadline;
    if (parent !== null && (mask & Propagate.DEADLINE) !== 0) {
      const parentDeadline = parent.getDeadline();
      if (deadlineMs(parentDeadline) < deadlineMs(deadline)) effective = parentDeadline;
    }
    this.#deadline = effective;
    if (parent !== null && (mask & Propagate.CANCELLATION) !== 0) parent.on('cancelled', this.#onParentCancelled);
    // The deadline is a time on the channel's clock (wall-clock milliseconds, as grpc-js has it).
    const at = deadlineMs(effective);
    if (at !== Infinity) {
      this.#timer = scheduleTimerAt(host.scheduler, at, () => {
        this.#timer = undefined;
        this.fail(Status.DEADLINE_EXCEEDED, 'Deadline exceeded while waiting for a connection');
      });
    }
  }

  /** Whether the call waits for READY through TRANSIENT_FAILURE (from its metadata, else the channel's default). */
  get waitForReady(): boolean {
    return this.#waitForReady;
  }

  /** Whether the call has been handed to a connection or has ended. */
  get settled(): boolean {
    return this.#inner !== undefined || this.#ended !== undefined;
  }

  /** Starts the call on `channel` (a READY connection) and replays what was queued. */
  attach(channel: ChannelInterface): void {
    if (this.settled || this.#metadata === undefined || this.#listener === undefined) return;
    this.#clearWaiting();
    let inner: GrpcCall;
    try {
      inner = channel.createCall(this.#method, this.#deadline, this.#hostName, this.#parent, this.#flags);
    } catch (error) {
      this.fail(Status.UNAVAILABLE, `Could not start the call on the connection: ${String(error)}`);
      return;
    }
    this.#inner = inner;
    if (this.#credentials !== undefined) inner.setCredentials(this.#credentials);
    const ended = this.#host.ended;
    const listener = this.#listener;
    inner.start(
      this.#metadata,
      ended === undefined
        ? listener
        : {
            onReceiveMetadata: (metadata) => {
              listener.onReceiveMetadata(metadata);
            },
            onReceiveMessage: (message) => {
              listener.onReceiveMessage(message);
            },
            onReceiveStatus: (status) => {
              ended(channel, status.code, status.details);
              listener.onReceiveStatus(status);
            },
          },
    );
    for (const op of this.#replay.splice(0)) {
      if (op.type === 'message') inner.sendMessageWithContext(op.context, op.message);
      else if (op.type === 'read') inner.startRead();
      else inner.halfClose();
    }
  }

  /** Ends a call that has not been attached, with `code`; the status reaches the client asynchronously. */
  fail(code: Status, details: string): void {
    if (this.settled) return;
    this.#ended = { code, details, metadata: new Metadata() };
    this.#clearWaiting();
    this.#host.release(this);
    this.#replay.length = 0;
    this.#emitStatus();
  }

  #clearWaiting(): void {
    this.#timer?.unsubscribe();
    this.#timer = undefined;
    this.#parent?.off('cancelled', this.#onParentCancelled);
  }

  #emitStatus(): void {
    const status = this.#ended;
    const listener = this.#listener;
    if (status === undefined || listener === undefined) return;
    process.nextTick(() => {
      listener.onReceiveStatus(status);
    });
  }

  /** Cancels the call: on its connection if attached, else ends it here with `status`. */
  cancelWithStatus(status: Status, details: string): void {
    if (this.#inner !== undefined) this.#inner.cancelWithStatus(status, details);
    else this.fail(status, details);
  }

  /** The peer of the attached call, or the channel's target before that. */
  getPeer(): string {
    return this.#inner?.getPeer() ?? this.#host.target;
  }

  /** Starts the call: the channel attaches it to the READY connection, queues it or fails it. */
  start(metadata: Metadata, listener: InterceptingListener): void {
    if (this.#listener !== undefined) return;
    this.#metadata = metadata;
    this.#listener = listener;
    if (this.#ended !== undefined) {
      this.#emitStatus();
      return;
    }
    const wanted = metadata.getOptions().waitForReady;
    if (wanted !== undefined) this.#waitForReady = wanted;
    this.#host.admit(this);
  }

  /** Sends a message, or queues it until the call is attached. */
  sendMessageWithContext(context: MessageContext, message: Buffer): void {
    if (this.#inner !== undefined) this.#inner.sendMessageWithContext(context, message);
    else if (this.#ended === undefined) this.#replay.push({ type: 'message', context, message });
  }

  /** Asks for the next message, or queues the request until the call is attached. */
  startRead(): void {
    if (this.#inner !== undefined) this.#inner.startRead();
    else if (this.#ended === undefined) this.#replay.push({ type: 'read' });
  }

  /** Half-closes the call, or queues that until the call is attached. */
  halfClose(): void {
    if (this.#inner !== undefined) this.#inner.halfClose();
    else if (this.#ended === undefined) this.#replay.push({ type: 'half-close' });
  }

  /** A number unique to this call in the process. */
  getCallNumber(): number {
    return this.#callNumber;
  }

  /** Per-call credentials, applied to the call when it is attached. */
  setCredentials(credentials: CallCredentials): void {
    this.#credentials = credentials;
    this.#inner?.setCredentials(credentials);
  }

  /** The attached call's auth context, or null before that. */
  getAuthContext(): AuthContext {
    return this.#inner?.getAuthContext() ?? null;
  }
}
