/**
 * A grpc-js Channel's (or Client's) connectivity state as an Observable.
 *
 * grpc-js offers a one-shot `watchConnectivityState(current, deadline, callback)` that fires on the
 * next change away from `current`, and never when the state already differs at registration; a
 * registered watch cannot be removed except by a change or its deadline (which arms a timer). This
 * module turns it into a stream without those gaps:
 * - after each watch is armed the state is read again, so a change between the read and the watch
 *   (for example the IDLE -> CONNECTING that `getConnectivityState(true)` causes synchronously) is
 *   emitted at once;
 * - every subscription to the same channel shares the armed watch (normally one; see `#arm`), armed
 *   with no deadline and so with no timer. After the last unsubscription the armed watch stays
 *   registered in grpc-js, inert, until the channel's next change or its close, and the next
 *   subscription reuses it instead of adding another.
 * @module
 */
import type { ChannelInterface, Client, connectivityState as GrpcState } from '@grpc/grpc-js';
import { Observable } from 'rxjs';
import type { ConnectivityState } from '../../core/connectivity-state.js';
import { checkOptionsObject, describeValue, optionalBoolean } from '../../internal/validate.js';
import { fromGrpcState } from './connectivity-state-names.js';

/** The part of a grpc-js Channel that {@link channelState} uses. */
export type WatchableChannel = Pick<ChannelInterface, 'getConnectivityState' | 'watchConnectivityState'>;

/** Options of {@link channelState}. */
export interface ChannelStateOptions {
  /**
   * Ask the channel to connect when subscribed (`getConnectivityState(true)`): an IDLE channel starts
   * connecting. @defaultValue false
   */
  readonly connect?: boolean;
}

type Listener = (state: ConnectivityState) => void;

/** One shared watch per channel; its listeners are the live subscriptions. */
class ChannelWatch {
  readonly #channel: WatchableChannel;
  readonly #listeners = new Set<Listener>();
  readonly #pending = new Set<GrpcState>();

  constructor(channel: WatchableChannel) {
    this.#channel = channel;
  }

  add(listener: Listener, connect: boolean): () => void {
    this.#listeners.add(listener);
    listener(fromGrpcState(this.#channel.getConnectivityState(connect)));
    if (this.#listeners.has(listener)) this.#arm();
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #read(): ConnectivityState {
    return fromGrpcState(this.#channel.getConnectivityState(false));
  }

  #deliver(state: ConnectivityState): void {
    for (const listener of [...this.#listeners]) listener(state);
  }

  /**
   * Makes sure a watch is armed for the state the channel is in now. grpc-js fires a watch only on a
   * change away from the state it was armed with, so after arming, the state is read again: if it moved
   * in between, that state is delivered and a watch is armed for it too (the earlier one fires later
   * and only causes a harmless re-read). Pending watches have distinct states, so there are at most five.
   */
  #arm(): void {
    for (;;) {
      if (this.#listeners.size === 0) return;
      const raw: GrpcState = this.#channel.getConnectivityState(false);
      const seen = fromGrpcState(raw);
      this.#deliver(seen);
      if (seen === 'SHUTDOWN' || this.#pending.has(raw)) return;
      try {
        this.#channel.watchConnectivityState(raw, Infinity, () => {
          this.#pending.delete(raw);
          this.#deliver(this.#read());
          this.#arm();
        });
      } catch {
        // grpc-js throws when the channel is already shut down: report what it is now.
        this.#deliver(this.#read());
        return;
      }
      this.#pending.add(raw);
      if (this.#channel.getConnectivityState(false) === raw) return;
    }
  }
}

const watches = new WeakMap<WatchableChannel, ChannelWatch>();

function isWatchable(value: unknown): value is WatchableChannel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as WatchableChannel).getConnectivityState === 'function' &&
    typeof (value as WatchableChannel).watchConnectivityState === 'function'
  );
}

function resolveChannel(source: unknown): WatchableChannel {
  if (isWatchable(source)) return source;
  if (typeof source === 'object' && source !== null && typeof (source as Client).getChannel === 'function') {
    const channel: unknown = (source as Client).getChannel();
    if (isWatchable(channel)) return channel;
  }
  throw new TypeError(
    `redialer: channelState() needs a grpc-js Channel or Client (with getConnectivityState and watchConnectivityState), got ${describeValue(source)}`,
  );
}

/**
 * The connectivity state of a grpc-js Channel or Client as an Observable of state names.
 *
 * Emits the current state on subscription, then every change, never the same state twice in a row;
 * completes after SHUTDOWN. Unsubscribing leaves no timer and no watch of its own (see the module
 * notes for the one shared grpc-js watch).
 *
 * @example
 * ```ts
 * const client = new Greeter('127.0.0.1:50051', credentials.createInsecure());
 * channelState(client, { connect: true }).subscribe((state) => console.log(state));
 * ```
 */
export function channelState(
  source: WatchableChannel | Pick<Client, 'getChannel'>,
  options: ChannelStateOptions = {},
): Observable<ConnectivityState> {
  const raw = checkOptionsObject('channelState options', options);
  const connect = optionalBoolean('connect', raw['connect'], false);
  const channel = resolveChannel(source);
  return new Observable<ConnectivityState>((subscriber) => {
    let watch = watches.get(channel);
    if (watch === undefined) {
      watch = new ChannelWatch(channel);
      watches.set(channel, watch);
    }
    let last: ConnectivityState | undefined;
    const listener: Listener = (state) => {
      if (subscriber.closed || state === last) return;
      last = state;
      subscriber.next(state);
      if (state === 'SHUTDOWN') subscriber.complete();
    };
    // A completion during add() runs the returned teardown as soon as it is returned.
    const remove = watch.add(listener, connect);
    return remove;
  });
}
