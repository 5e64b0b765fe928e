/**
 * What a gated grpc-js channel runs in place of `pick_first` when its target is one address that
 * cannot change (an `ipv4:`, `ipv6:` or `unix:` target with one address, which is what a ManagedChannel
 * makes of `host:port` with an IP literal). One subchannel serves the channel for its whole life; it
 * starts connecting only when the gate lets it; the channel hears the states `pick_first` would report
 * for it, each run of failures once.
 *
 * `pick_first` is written for address lists: after every state change it asks its subchannels to
 * connect again, for every connection attempt it arms a timer (to try the next address after 250 ms)
 * and schedules a tick, it builds trace strings at each step, and it drops its subchannel list when
 * the connection is lost, to ask for a new one when it leaves IDLE. For one address none of it does
 * anything, and with it goes the wrapper that kept `pick_first`'s dials behind the gate: about a
 * kilobyte per channel (see BENCHMARKS.md, §4).
 * @module
 */
import { type ChannelOptions, connectivityState, experimental } from '@grpc/grpc-js';

type SubchannelInterface = experimental.SubchannelInterface;
type ChannelControlHelper = experimental.ChannelControlHelper;
type Picker = experimental.Picker;
type SubchannelAddress = Parameters<ChannelControlHelper['createSubchannel']>[0];

/** What the policy asks of the gate: whether its subchannel may start connecting now. */
interface Gate {
  mayConnect(real: SubchannelInterface): boolean;
}

/** The helper the policy reports to (the gate's, which passes its reports through the gate first). */
type Helper = Pick<
  ChannelControlHelper,
  'updateState' | 'requestReresolution' | 'addChannelzChild' | 'removeChannelzChild'
>;

/**
 * The one address of a resolution, if it has exactly one (grpc-js 1.10 passes a list of endpoints,
 * 1.14 a status holding one).
 */
export function onlyAddress(endpoints: unknown): SubchannelAddress | undefined {
  const list: unknown = Array.isArray(endpoints)
    ? endpoints
    : (endpoints as { ok?: unknown } | null)?.ok === true
      ? (endpoints as { value?: unknown }).value
      : undefined;
  if (!Array.isArray(list) || list.length !== 1) return undefined;
  const addresses = (list[0] as { addresses?: unknown } | undefined)?.addresses;
  if (!Array.isArray(addresses) || addresses.length !== 1) return undefined;
  return addresses[0] as SubchannelAddress;
}

/**
 * The channel options grpc-js gives `pick_first` for its subchannels with a resolution: 1.14 passes
 * the channel's options after the endpoints and the config, 1.10 passes none (and a list).
 */
export function subchannelArgs(endpoints: unknown, rest: readonly unknown[]): ChannelOptions {
  if (Array.isArray(endpoints)) return {};
  const options: unknown = rest[0];
  return typeof options === 'object' && options !== null ? options : {};
}

/** The picker of a READY channel: every call goes to its one subchannel. */
class OnePicker implements Picker {
  constructor(private readonly subchannel: SubchannelInterface) {}

  pick(): ReturnType<Picker['pick']> {
    return {
      pickResultType: experimental.PickResultType.COMPLETE,
      subchannel: this.subchannel,
      status: null,
      onCallStarted: null,
      onCallEnded: null,
    };
  }
}

/** The one-address policy of a gated channel (see the module notes). */
export class OneAddress {
  readonly #balancer: experimental.LoadBalancer;
  readonly #helper: Helper;
  readonly #gate: Gate;
  readonly #subchannel: SubchannelInterface;
  readonly #picker: OnePicker;
  /** What the channel was told last. */
  #reported = connectivityState.IDLE;
  readonly #onState = (
    _subchannel: SubchannelInterface,
    _previous: connectivityState,
    state: connectivityState,
    _keepaliveTime: number,
    errorMessage?: string,
  ): void => {
    this.#stateChanged(state, errorMessage);
  };

  /**
   * @param balancer - the channel's policy, which a queueing picker asks to leave IDLE.
   * @param subchannel - the gate's subchannel for `address`, made by the channel and adopted by the gate.
   */
  constructor(
    balancer: experimental.LoadBalancer,
    helper: Helper,
    gate: Gate,
    readonly address: SubchannelAddress,
    subchannel: SubchannelInterface,
  ) {
    this.#balancer = balancer;
    this.#helper = helper;
    this.#gate = gate;
    this.#subchannel = subchannel;
    this.#picker = new OnePicker(subchannel);
    subchannel.ref();
    helper.addChannelzChild(subchannel.getChannelzRef());
    subchannel.addConnectivityStateListener(this.#onState);
    const state = subchannel.getConnectivityState();
    if (state === connectivityState.IDLE) this.exitIdle();
    else this.#stateChanged(state);
  }

  /** Starts connecting, if the subchannel is IDLE and the gate lets it. */
  exitIdle(): void {
    if (this.#subchannel.getConnectivityState() !== connectivityState.IDLE) return;
    if (!this.#gate.mayConnect(this.#subchannel.getRealSubchannel())) return;
    this.#subchannel.startConnecting();
    if (this.#reported === connectivityState.IDLE) {
      this.#report(connectivityState.CONNECTING, new experimental.QueuePicker(this.#balancer));
    }
  }

  /** Lets the subchannel go: the channel is closing, or its target has another address list now. */
  destroy(): void {
    this.#subchannel.removeConnectivityStateListener(this.#onState);
    this.#helper.removeChannelzChild(this.#subchannel.getChannelzRef());
    this.#subchannel.unref();
  }

  #stateChanged(state: connectivityState, errorMessage?: string): void {
    switch (state) {
      case connectivityState.READY:
        this.#report(state, this.#picker);
        break;
      case connectivityState.TRANSIENT_FAILURE: {
        // As pick_first does once every address has failed (the gate's helper decides whether to).
        this.#helper.requestReresolution();
        if (this.#reported === state) break;
        const address = experimental.subchannelAddressToString(this.address);
        const details = `no connection to ${address}${errorMessage === undefined ? '' : `: ${errorMessage}`}`;
        this.#report(state, new experimental.UnavailablePicker({ details }), details);
        break;
      }
      // As pick_first's: once failed, the channel stays in TRANSIENT_FAILURE until it is READY, also
      // while its subchannel connects again, or goes IDLE when grpc-js's backoff ends.
      case connectivityState.CONNECTING:
      case connectivityState.IDLE:
        if (this.#reported !== connectivityState.TRANSIENT_FAILURE) {
          this.#report(state, new experimental.QueuePicker(this.#balancer));
        }
        break;
      default:
        break;
    }
  }

  #report(state: connectivityState, picker: Picker, errorMessage: string | null = null): void {
    if (state === this.#reported) return;
    this.#reported = state;
    this.#helper.updateState(state, picker, errorMessage);
  }
}
