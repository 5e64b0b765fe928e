/**
 * A grpc-js load-balancing policy under which only redialer starts a dial, so that one grpc-js channel
 * can serve a whole run of failed connection attempts instead of a new channel per attempt.
 *
 * grpc-js's `pick_first` asks a failed subchannel to connect again as soon as it can, on grpc-js's own
 * backoff, and stays in a sticky TRANSIENT_FAILURE that hides every later failure from the channel's
 * state. The policy here wraps `pick_first` and hands it subchannels whose `startConnecting()` passes
 * only while the gate is open; for a target that is one address, it runs a policy of its own in place
 * of `pick_first` (`one-address-policy.ts`), whose one subchannel connects only while the gate is open.
 * The gate opens when redialer starts an attempt and shuts, before the policy hears of it, when every
 * subchannel has failed; the attempt learns of the failure from the gate. grpc-js's public experimental
 * API carries it (`registerLoadBalancerType`, `ChildLoadBalancerHandler`, `BaseSubchannelWrapper`,
 * the pickers), the same from grpc-js 1.10 to 1.14.
 *
 * The gate also hears of every socket its subchannels dial, through the address it gives each of them
 * ({@link AttemptGate.dialAddress}): an attempt on a gated channel knows its sockets without an
 * AsyncLocalStorage context, whose async hooks would cost every promise in the process.
 *
 * A channel is bound to its gate through the gate's id in the channel's default service config. When
 * grpc-js does not build the policy (a resolver that supplies its own service config), the gate stays
 * unbound and the caller treats the channel as it would without one.
 * @module
 */
import { type ChannelOptions, connectivityState, experimental } from '@grpc/grpc-js';
import type { ConnectivityState } from '../../../core/connectivity-state.js';
import { fromGrpcState } from '../connectivity-state-names.js';
import { OneAddress, onlyAddress, subchannelArgs } from './one-address-policy.js';
import { AttemptSockets, claimNextSocket, type SocketTracking } from './socket-tracker.js';

type SubchannelInterface = experimental.SubchannelInterface;
type ChannelControlHelper = experimental.ChannelControlHelper;
type TypedLoadBalancingConfig = experimental.TypedLoadBalancingConfig;
type Picker = experimental.Picker;
type SubchannelAddress = Parameters<ChannelControlHelper['createSubchannel']>[0];

const POLICY = 'redialer_attempt_gate';

/**
 * grpc-js's reconnect backoff for a gated subchannel: a day, far longer than any attempt, and short
 * enough for Node's timers (with grpc-js's jitter it stays below 2^31 ms).
 */
const PARKED_BACKOFF_MS = 86_400_000;

/** Takes the sockets created while no attempt runs, and never connects them. */
const ENDED = new AttemptSockets();
ENDED.end();

/** The attempt a gate serves: what it tells of the channel while that attempt runs. */
export interface GateAttempt {
  /** The open gate shut because the channel failed to connect (told on a microtask). */
  gateFailed(): void;
  /** The channel's state changed (while watched: {@link AttemptGate.watch}); in order, on a microtask. */
  channelStateChanged(state: ConnectivityState): void;
}

/** Where an address made by {@link AttemptGate.dialAddress} keeps its gate. */
const GATE = Symbol('redialer.attemptGate');

/** The `signal` getter of a gate's addresses: claims the socket being built, and gives no AbortSignal. */
function claimSignal(this: { readonly [GATE]?: AttemptGate }): undefined {
  this[GATE]?.claimSocket();
  return undefined;
}

/** The gates of live channels, by id: the policy instance finds its gate here. */
const gates = new Map<string, AttemptGate>();
let nextId = 0;
let registered = false;

/** The policy's configuration: which gate it answers to. */
class GateConfig implements TypedLoadBalancingConfig {
  constructor(readonly id: string) {}

  getLoadBalancerName(): string {
    return POLICY;
  }

  toJsonObject(): object {
    return { [POLICY]: { id: this.id } };
  }

  static createFromJson(json: unknown): GateConfig {
    const id = (json as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') throw new Error(`${POLICY} config needs an id string`);
    return new GateConfig(id);
  }
}

/** A subchannel that connects only while its gate is open, once per opening. */
class GatedSubchannel extends experimental.BaseSubchannelWrapper {
  /** The references `pick_first` holds (one per subchannel list, one as its pick). */
  #refs = 0;

  constructor(
    child: SubchannelInterface,
    private readonly gate: AttemptGate,
  ) {
    super(child);
  }

  override startConnecting(): void {
    if (this.gate.mayConnect(this.getRealSubchannel())) super.startConnecting();
  }

  override ref(): void {
    super.ref();
    this.#refs++;
  }

  override unref(): void {
    super.unref();
    this.#refs--;
  }

  /** Whether no subchannel list and no pick holds it: `pick_first` has let it go. */
  get unused(): boolean {
    return this.#refs <= 0;
  }
}

/** Whether two plain objects (subchannel addresses, channel options) have the same own keys and values. */
function shallowEqual(a: object, b: object): boolean {
  if (a === b) return true;
  let keys = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    if (!Object.hasOwn(b, key) || (a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) {
      return false;
    }
    keys++;
  }
  for (const key in b) if (Object.hasOwn(b, key)) keys--;
  return keys === 0;
}

/** The gated subchannel a policy made last, and what `pick_first` asked for it with. */
interface MadeSubchannel {
  readonly address: SubchannelAddress;
  readonly args: ChannelOptions;
  readonly subchannel: GatedSubchannel;
}

type ChildHandler = experimental.LoadBalancer;
type ChildHandlerConstructor = new (helper: ChannelControlHelper, ...rest: unknown[]) => ChildHandler;

/**
 * grpc-js's `pick_first` policy class, once a gate's child handler has built one (grpc-js's public API
 * has no way to build a policy but through a `ChildLoadBalancerHandler`). Later gates build it
 * directly: a child handler per channel costs a class of its own (grpc-js defines its helper class per
 * instance, about a kilobyte) and one more layer on every state change, and it only matters to a
 * policy whose child can change.
 */
let PickFirst: ChildHandlerConstructor | undefined;

/** The policy a child handler built, if it is grpc-js's `pick_first` (read from its `currentChild`). */
function pickFirstClassOf(handler: ChildHandler): ChildHandlerConstructor | undefined {
  const child = (handler as { currentChild?: unknown }).currentChild;
  if (typeof child !== 'object' || child === null) return undefined;
  const policy = child as Partial<ChildHandler>;
  if (
    typeof policy.getTypeName !== 'function' ||
    policy.getTypeName() !== 'pick_first' ||
    typeof policy.updateAddressList !== 'function' ||
    typeof policy.exitIdle !== 'function' ||
    typeof policy.resetBackoff !== 'function' ||
    typeof policy.destroy !== 'function'
  ) {
    return undefined;
  }
  return child.constructor as ChildHandlerConstructor;
}

/**
 * The parent helper's `updateState`: grpc-js 1.14 passes an error message too (1.10 does not, and
 * ignores a third argument).
 */
type UpdateState = (state: connectivityState, picker: Picker, errorMessage?: string | null) => void;

/**
 * What `pick_first` calls back under the gate: the channel's own helper, with subchannels made gated
 * and state reports that pass the gate first. One object per channel, with its methods on the
 * prototype: grpc-js's `createChildChannelControlHelper` would bind each override and each parent
 * method, eight functions and a closure per channel.
 */
class GateHelper implements ChannelControlHelper {
  /** The gate, once the policy has found it (see {@link GateBalancer.updateAddressList}). */
  gate: AttemptGate | undefined;
  readonly #parent: ChannelControlHelper;
  // The parent's methods, read once and called on it. grpc-js's child handler defines its helper class
  // per instance, so in a process with thousands of channels a read per call meets thousands of shapes:
  // a megamorphic lookup that misses V8's cache, on every state change of every channel.
  readonly #createSubchannel: ChannelControlHelper['createSubchannel'];
  readonly #requestReresolution: ChannelControlHelper['requestReresolution'];
  readonly #updateState: UpdateState;
  /**
   * The subchannel arguments `pick_first` passed last (one object for a whole address list), and the
   * gated arguments made from them, built once per list rather than once per subchannel.
   */
  #args: ChannelOptions | undefined;
  #gatedArgs: ChannelOptions = {};
  /**
   * The subchannel made last. `pick_first` drops its subchannel list when its connection is lost (it
   * goes IDLE) and asks for the same address again when it leaves IDLE: the subchannel it let go serves
   * again, instead of a new wrapper at every layer and a lookup in the subchannel pool (which sorts and
   * compares every channel option) for the same grpc-js subchannel, once per reconnect.
   */
  #made: MadeSubchannel | undefined;

  constructor(parent: ChannelControlHelper) {
    this.#parent = parent;
    /* eslint-disable @typescript-eslint/unbound-method -- called on the parent (see above) */
    this.#createSubchannel = parent.createSubchannel;
    this.#requestReresolution = parent.requestReresolution;
    this.#updateState = parent.updateState as UpdateState;
    /* eslint-enable @typescript-eslint/unbound-method */
  }

  createSubchannel(address: SubchannelAddress, args: ChannelOptions): SubchannelInterface {
    const gate = this.gate;
    if (gate === undefined) return this.#createSubchannel.call(this.#parent, address, args);
    const made = this.#made;
    if (
      made !== undefined &&
      made.subchannel.unused &&
      shallowEqual(made.address, address) &&
      shallowEqual(made.args, args)
    ) {
      return gate.adopt(made.subchannel);
    }
    const subchannel = new GatedSubchannel(this.#createParked(gate, address, args), gate);
    this.#made = { address, args, subchannel };
    return gate.adopt(subchannel);
  }

  /**
   * The subchannel of the one-address policy ({@link OneAddress}): the channel's own, not wrapped, since
   * that policy asks it to connect only when the gate lets it. The gate adopts it as a list of one.
   */
  createOwnSubchannel(gate: AttemptGate, address: SubchannelAddress, args: ChannelOptions): SubchannelInterface {
    gate.beginSubchannelList();
    return gate.adopt(this.#createParked(gate, address, args));
  }

  /** A subchannel of the channel's for `address`, whose dials the gate hears of, parked between attempts. */
  #createParked(gate: AttemptGate, address: SubchannelAddress, args: ChannelOptions): SubchannelInterface {
    // A failed subchannel stays in TRANSIENT_FAILURE until the next attempt takes it out with
    // resetBackoff() (see `reopen`): grpc-js's own backoff never runs out under the gate, so no timer
    // fires and no state changes between attempts. (Not a channel option: a channel that does not get
    // this policy keeps grpc-js's backoff between the redials pick_first makes by itself.)
    if (args !== this.#args) {
      this.#args = args;
      this.#gatedArgs = {
        ...args,
        'grpc.initial_reconnect_backoff_ms': PARKED_BACKOFF_MS,
        'grpc.max_reconnect_backoff_ms': PARKED_BACKOFF_MS,
      };
    }
    return this.#createSubchannel.call(this.#parent, gate.dialAddress(address), this.#gatedArgs);
  }

  /** pick_first asks after every failure; a target that is an address resolves to itself again. */
  requestReresolution(): void {
    if (this.gate?.reresolve !== false) this.#requestReresolution.call(this.#parent);
  }

  updateState(state: connectivityState, picker: Picker, errorMessage?: string | null): void {
    if (this.gate?.onChildState(state) === false) return;
    this.#updateState.call(this.#parent, state, picker, errorMessage);
  }

  addChannelzChild(child: Parameters<ChannelControlHelper['addChannelzChild']>[0]): void {
    this.#parent.addChannelzChild(child);
  }

  removeChannelzChild(child: Parameters<ChannelControlHelper['removeChannelzChild']>[0]): void {
    this.#parent.removeChannelzChild(child);
  }
}

/**
 * The policy: under a bound gate whose target is one address that cannot change, {@link OneAddress};
 * otherwise `pick_first`, with gated subchannels under a bound gate and as it is under an unbound one.
 * A channel whose one address is replaced by a resolution (which an address target never makes) goes
 * on with `pick_first`.
 */
class GateBalancer implements experimental.LoadBalancer {
  readonly #helper: GateHelper;
  readonly #rest: unknown[];
  #one: OneAddress | undefined;
  #child: ChildHandler | undefined;
  readonly #pickFirstConfig = experimental.parseLoadBalancingConfig({ pick_first: {} });

  // grpc-js 1.10 passes the channel options as a second argument, which its child handler needs too.
  constructor(helper: ChannelControlHelper, ...rest: unknown[]) {
    this.#helper = new GateHelper(helper);
    this.#rest = rest;
  }

  get #gate(): AttemptGate | undefined {
    return this.#helper.gate;
  }

  updateAddressList(endpoints: unknown, config: TypedLoadBalancingConfig, ...rest: unknown[]): boolean {
    if (config instanceof GateConfig && this.#gate === undefined) {
      // A config whose gate is gone (a closed channel) leaves the policy an open, plain pick_first.
      this.#helper.gate = gates.get(config.id)?.bind();
    }
    const gate = this.#gate;
    if (gate !== undefined && !gate.reresolve && this.#child === undefined) {
      const address = onlyAddress(endpoints);
      const one = this.#one;
      if (one === undefined && address !== undefined) {
        const subchannel = this.#helper.createOwnSubchannel(gate, address, subchannelArgs(endpoints, rest));
        this.#one = new OneAddress(this, this.#helper, gate, address, subchannel);
        return true;
      }
      if (one !== undefined && address !== undefined && shallowEqual(one.address, address)) return true;
      one?.destroy();
      this.#one = undefined;
    }
    gate?.beginSubchannelList();
    const Handler: ChildHandlerConstructor = PickFirst ?? experimental.ChildLoadBalancerHandler;
    const child = (this.#child ??= new Handler(this.#helper, ...this.#rest));
    // grpc-js 1.10 returns nothing; 1.14 whether the update was accepted.
    const update = child as unknown as { updateAddressList(...args: unknown[]): boolean | undefined };
    const accepted = update.updateAddressList(endpoints, this.#pickFirstConfig, ...rest) ?? true;
    PickFirst ??= pickFirstClassOf(child);
    return accepted;
  }

  exitIdle(): void {
    if (this.#one !== undefined) this.#one.exitIdle();
    else {
      this.#gate?.beginSubchannelList();
      this.#child?.exitIdle();
    }
  }

  resetBackoff(): void {
    this.#child?.resetBackoff();
  }

  destroy(): void {
    // The channel is closing (or dropping this policy): its state is SHUTDOWN from now on.
    this.#gate?.onChildState(connectivityState.SHUTDOWN);
    this.#one?.destroy();
    this.#child?.destroy();
  }

  getTypeName(): string {
    return POLICY;
  }
}

function register(): void {
  if (registered) return;
  experimental.registerLoadBalancerType(POLICY, GateBalancer, GateConfig);
  registered = true;
}

/**
 * The gate of one grpc-js channel. Open from creation until the first failure; the owner then decides
 * whether to reuse the channel ({@link reusable}, {@link reopen}) or to close it ({@link dispose}).
 */
export class AttemptGate {
  readonly #id = String(nextId++);
  #open = true;
  /** What the policy (`pick_first` or the one-address policy) reported last. */
  #childState = connectivityState.IDLE;
  #bound = false;
  #disposed = false;
  /** The subchannels of the policy's current address list. */
  #subchannels: SubchannelInterface[] = [];
  /** Whether the next subchannel adopted starts a new list. */
  #newList = true;
  /** The real subchannels among them that failed since the gate opened (no set until one has). */
  #failed: Set<SubchannelInterface> | undefined;
  /** The attempt that hears of a failure, and the one a failure is being told to (on a microtask). */
  #listening: GateAttempt | undefined;
  #failing: GateAttempt | undefined;
  readonly #tellFailure = (): void => {
    const attempt = this.#failing;
    this.#failing = undefined;
    attempt?.gateFailed();
  };
  /** The sockets of the current attempt. */
  #sockets = ENDED;
  /** Who hears the channel's state changes ({@link watch}), and the changes not yet told. */
  #watcher: GateAttempt | undefined;
  readonly #changes: connectivityState[] = [];
  readonly #deliver = (): void => {
    const watcher = this.#watcher;
    for (const state of this.#changes.splice(0)) {
      // A watcher that ended its attempt may already have handed over to the next one's.
      if (watcher === undefined || this.#watcher !== watcher) return;
      watcher.channelStateChanged(fromGrpcState(state));
    }
  };
  readonly #onSubchannelState = (
    subchannel: SubchannelInterface,
    _previous: unknown,
    state: connectivityState,
  ): void => {
    if (state !== connectivityState.TRANSIENT_FAILURE || !this.#open) return;
    const failed = (this.#failed ??= new Set());
    failed.add(subchannel);
    if (this.#subchannels.every((s) => failed.has(s.getRealSubchannel()))) this.#fail();
  };

  /**
   * Whether the channel's target is resolved again when `pick_first` asks for it after a failure;
   * false for a target that is already an address (`ipv4:`, `ipv6:`, `unix:`), whose resolution
   * cannot change.
   */
  readonly reresolve: boolean;

  constructor(target: string) {
    register();
    this.reresolve = !/^(ipv4|ipv6|unix|unix-abstract):/.test(target);
    gates.set(this.#id, this);
  }

  /**
   * Tells `attempt` of every change of the channel's state from now on, in order, on a microtask (never
   * from inside grpc-js's own update), until {@link release}. Under a bound gate the channel's state is
   * what the policy reports, and SHUTDOWN once the policy is destroyed (the channel was closed).
   * Lighter than a watch on the channel itself, which arms a grpc-js watcher per change.
   */
  watch(attempt: GateAttempt): void {
    this.#watcher = attempt;
    // Changes made before this attempt watched are not its own.
    this.#changes.length = 0;
  }

  /**
   * Forgets `attempt`, which has ended: its {@link watch}, its failure listener ({@link listen}) and
   * its sockets ({@link track}), unless a later attempt has already taken their place. A kept channel
   * waits through a whole backoff for the next attempt; nothing of the last one (its object, the
   * sockets it opened, their errors) stays alive with it.
   */
  release(attempt: GateAttempt, sockets: SocketTracking | undefined): void {
    if (this.#watcher === attempt) this.#watcher = undefined;
    if (this.#listening === attempt) this.#listening = undefined;
    if (sockets !== undefined && this.#sockets === sockets) this.#sockets = ENDED;
  }

  /**
   * Sets the attempt to tell (on a microtask) when the open gate shuts because the channel failed to
   * connect: once per attempt, before it starts.
   */
  listen(attempt: GateAttempt): void {
    this.#listening = attempt;
  }

  /**
   * The channel options that bind a channel to this gate, made from `options`; `undefined` when the
   * options choose a load-balancing policy of their own, or a service config that is not valid JSON
   * (grpc-js reports it when the channel is built).
   */
  channelOptions(options: ChannelOptions): ChannelOptions | undefined {
    const given: unknown = options['grpc.service_config'];
    let serviceConfig: Record<string, unknown> = {};
    if (given !== undefined) {
      if (typeof given !== 'string') return undefined;
      try {
        const parsed: unknown = JSON.parse(given);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
        serviceConfig = parsed as Record<string, unknown>;
      } catch {
        return undefined;
      }
      if ('loadBalancingConfig' in serviceConfig || 'loadBalancingPolicy' in serviceConfig) return undefined;
    }
    return {
      ...options,
      'grpc.service_config': JSON.stringify({
        ...serviceConfig,
        loadBalancingConfig: [{ [POLICY]: { id: this.#id } }],
      }),
    };
  }

  /**
   * Whether a subchannel may start connecting now: while the gate is open, and only if it has not
   * failed since it opened. pick_first asks a failed subchannel to connect again while it tries the
   * next address; each address gets one dial per attempt.
   */
  mayConnect(real: SubchannelInterface): boolean {
    return this.#open && this.#failed?.has(real) !== true;
  }

  /** The grpc-js subchannels of the policy's current list (one of them is its pick when READY). */
  realSubchannels(): SubchannelInterface[] {
    return this.#subchannels.map((subchannel) => subchannel.getRealSubchannel());
  }

  /** Whether grpc-js built the policy for this gate's channel. */
  get bound(): boolean {
    return this.#bound;
  }

  /**
   * Whether the channel can serve the next attempt: its policy is bound and the gate is shut, and either
   * the policy went IDLE (its connection was lost; leaving IDLE connects again) or it failed with a
   * single subchannel, now parked in TRANSIENT_FAILURE (or IDLE). Either way a dial started now is the
   * only one.
   */
  get reusable(): boolean {
    if (!this.#bound || this.#open || this.#disposed) return false;
    // The policy was destroyed: the channel was closed under the attempt (by whoever held it).
    if (this.#childState === connectivityState.SHUTDOWN) return false;
    if (this.#childState === connectivityState.IDLE) return true;
    const [only, ...more] = this.#subchannels;
    if (only === undefined || more.length > 0) return false;
    const state = only.getConnectivityState();
    return state === connectivityState.TRANSIENT_FAILURE || state === connectivityState.IDLE;
  }

  /**
   * Opens the gate for a new attempt (see {@link reusable}). After a failure the subchannel starts
   * connecting at once; after a lost connection the policy is IDLE, and this returns true: the caller
   * must then ask the channel to connect.
   */
  reopen(): boolean {
    this.#open = true;
    this.#failed = undefined;
    if (this.#childState === connectivityState.IDLE) return true;
    for (const subchannel of this.#subchannels) {
      // Out of its parked backoff: resetBackoff() moves a subchannel in TRANSIENT_FAILURE straight to
      // CONNECTING (grpc-js 1.10 to 1.14); one that is IDLE starts connecting as usual.
      if (subchannel.getConnectivityState() === connectivityState.TRANSIENT_FAILURE) {
        (subchannel.getRealSubchannel() as SubchannelInterface & { resetBackoff(): void }).resetBackoff();
      } else subchannel.startConnecting();
    }
    return false;
  }

  /**
   * The sockets of the attempt starting now: every socket the channel's subchannels create from now
   * on, until the next call. Sockets created for an attempt that has ended, or while the gate is shut,
   * are never connected.
   */
  track(): AttemptSockets {
    this.#sockets = new AttemptSockets();
    return this.#sockets;
  }

  /**
   * @internal The address a subchannel of this gate dials: `address` with an enumerable `signal`
   * getter, which `net.connect()` reads (as the `net.Socket` option of that name) while it builds the
   * socket. The getter claims that socket for the attempt under way, and returns undefined (no
   * AbortSignal). grpc-js passes the address to `net.connect()` itself (1.10 over plain TCP, 1.14
   * always), or copies it into the options of `tls.connect()` (1.10 over TLS, which Node 20 does not
   * report).
   */
  dialAddress(address: SubchannelAddress): SubchannelAddress {
    const claiming: SubchannelAddress & { [GATE]?: AttemptGate } = { ...address, [GATE]: this };
    // One getter function for every address (its `this` is the address): addresses of one kind share a
    // shape, where a getter made per address would give each its own.
    return Object.defineProperty(claiming, 'signal', { get: claimSignal, enumerable: true, configurable: true });
  }

  /** @internal The socket being created now was dialled by one of this gate's subchannels. */
  claimSocket(): void {
    claimNextSocket(this.#open ? this.#sockets : ENDED);
  }

  /** Shuts the gate until {@link reopen}: the channel's connection was lost, and it waits for the next attempt. */
  shut(): void {
    this.#open = false;
  }

  /** Shuts the gate for good: no subchannel of the channel dials again. Call it when closing the channel. */
  dispose(): void {
    this.#open = false;
    this.#disposed = true;
    this.#subchannels = [];
    gates.delete(this.#id);
  }

  /** @internal The policy instance of this gate's channel has found it. */
  bind(): this {
    this.#bound = true;
    return this;
  }

  /**
   * @internal `pick_first` may create the subchannels of a new address list now: it creates a whole
   * list at once, and only in an address update or when it leaves IDLE (both come through here), so the
   * next subchannel adopted starts a new list. A call that creates none keeps the current one.
   */
  beginSubchannelList(): void {
    this.#newList = true;
  }

  /**
   * @internal Takes a subchannel the policy asked for (a new one, or one `pick_first` let go before),
   * and hears its failures before the policy does.
   */
  adopt(gated: SubchannelInterface): SubchannelInterface {
    if (this.#disposed) return gated;
    // One listener function per gate: the subchannel's listener set keeps it once however often it is added.
    gated.addConnectivityStateListener(this.#onSubchannelState);
    if (this.#newList) {
      // Most lists have one address: an array made by push would keep room for seventeen.
      this.#subchannels = [gated];
      this.#newList = false;
    } else this.#subchannels.push(gated);
    if (gated.getConnectivityState() === connectivityState.TRANSIENT_FAILURE) {
      (this.#failed ??= new Set()).add(gated.getRealSubchannel());
    }
    return gated;
  }

  /**
   * @internal What the policy reports; returns whether the channel is to hear of it. Subchannel
   * failures are heard from the subchannels; this adds a failure with no subchannel to blame (a
   * resolution with no address). `pick_first`'s other TRANSIENT_FAILURE reports repeat its sticky
   * state, after every later failure and while a new attempt connects: on a bound gate's channel they
   * go no further. Each would run the channel's whole state update (its traces, its watchers, its
   * queued calls) only to swap one failing picker for another, and no call picks on that channel
   * before it is READY again: its owner holds calls until then.
   */
  onChildState(state: connectivityState): boolean {
    const changed = state !== this.#childState;
    this.#childState = state;
    if (state === connectivityState.TRANSIENT_FAILURE && this.#open && this.#subchannels.length === 0) this.#fail();
    if (changed && this.#watcher !== undefined) {
      if (this.#changes.push(state) === 1) queueMicrotask(this.#deliver);
    }
    return changed || state !== connectivityState.TRANSIENT_FAILURE || !this.#bound;
  }

  #fail(): void {
    if (this.#disposed) return;
    this.#open = false;
    // Not from inside grpc-js's listener loop: the owner may close the channel in response.
    if (this.#listening !== undefined && this.#failing === undefined) {
      this.#failing = this.#listening;
      queueMicrotask(this.#tellFailure);
    }
  }
}
