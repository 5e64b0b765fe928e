/**
 * Options of a connection manager, their defaults and their validation.
 * @module
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { type AttemptSpacing, resolveAttemptSpacing } from '../backoff/attempt-spacing.js';
import { type BackoffPolicy, MAX_DELAY_MS, type RandomSource } from '../backoff/backoff.js';
import { grpcBackoff } from '../backoff/grpc-backoff.js';
import { defaultHintCeiling } from '../backoff/server-hint.js';
import type { MachineRules } from './connection-machine.js';
import type { Connector } from './connector.js';
import type { ConnectivityState } from './connectivity-state.js';
import type { UnhandledErrorHandler } from '../internal/report-unhandled-error.js';
import { unrefScheduler } from '../internal/unref-scheduler.js';
import {
  checkOptionsObject,
  describeValue,
  optionalBoolean,
  optionalFunction,
  optionalChoice,
  optionalNumber,
  optionalScheduler,
} from '../internal/validate.js';

const SERVER_HINT_MODES = ['at-least', 'exact'] as const;

/** One line of the manager's trace: a transition, or an event that did not apply. */
export interface TraceEntry {
  /** Scheduler time of the event. */
  readonly time: number;
  /** The event, e.g. `attempt-failed`, `timer`, `reset-backoff`. */
  readonly event: string;
  /** The state before the event. */
  readonly from: ConnectivityState;
  /** The state after it (equal to `from` for a no-op). */
  readonly to: ConnectivityState;
  /** What happened, e.g. `attempt 3 failed; next attempt in 1.6 s` or `ignored: already connecting`. */
  readonly detail: string;
}

/** Options of {@link ConnectionManager}; every time is in milliseconds. */
export interface ConnectionManagerOptions<C> {
  /** Starts attempts. Required. */
  readonly connector: Connector<C>;
  /** The backoff policy. @defaultValue `grpcBackoff()` (1 s, ×1.6, ±20 %, 120 s cap) */
  readonly backoff?: BackoffPolicy;
  /** The least time any attempt is given before it is cut. @defaultValue 20000 */
  readonly minConnectTimeout?: number;
  /**
   * How long a connection must stay READY for its establishment to reset the backoff. A connection
   * lost sooner counts as a failed attempt: the next attempt waits for that attempt's deadline and
   * the backoff keeps growing, so a server that accepts and drops at once cannot drive a fast loop.
   * 0 resets on establishment, as gRPC specifies. @defaultValue 5000
   */
  readonly minUptime?: number;
  /**
   * Whether a lost READY connection reconnects by itself (READY -> TRANSIENT_FAILURE -> CONNECTING).
   * When false, a lost connection goes IDLE until `connect()`, as newer gRPC versions do.
   * @defaultValue true
   */
  readonly autoReconnect?: boolean;
  /**
   * Retries after the first attempt of a backoff cycle (the cycle restarts with a backoff reset and
   * after a connection that stayed up `minUptime`). When an attempt fails, or a connection is lost
   * before `minUptime`, with no retry left, the manager gives up: SHUTDOWN with reason
   * `permanent-failure` and a PermanentError whose `cause` is the last failure. @defaultValue Infinity
   */
  readonly maxRetries?: number;
  /**
   * Spreads the first reconnect after a lost READY connection: it starts no sooner than a uniform
   * draw in [0, reconnectSpread] ms after the loss, or later if the backoff (`backoffAfterLoss`) or
   * the server asks for a longer wait (the longer of the two counts), so that clients that lose one
   * server together do not all dial at the same instant. 0 reconnects at once, as gRPC does.
   * @defaultValue 0
   */
  readonly reconnectSpread?: number;
  /**
   * After a connection that stayed up `minUptime` is lost, wait one first backoff (measured from the
   * loss) before reconnecting: the loss counts as the first failure of a new cycle, so `maxRetries`
   * counts it too. This is what reconnecting-websocket and partysocket do; `false` reconnects at once,
   * as gRPC does. @defaultValue false (`ReconnectingWebSocket`: true)
   */
  readonly backoffAfterLoss?: boolean;
  /**
   * How a server's retry hint (a `RetryAfterError`: WebSocket close 1012/1013 with a delay, HTTP
   * 503 with Retry-After) counts. `'at-least'`: the next attempt waits at least the hint, longer if the
   * backoff says so. `'exact'`: it waits the hint itself, clamped into the backoff policy's
   * [initial wait, cap] (`BackoffPolicy.bounds`), for servers that hand each client its own slot
   * (`redialer/server`); a server still cannot make a client dial faster than the policy's first wait.
   * @defaultValue 'at-least'
   */
  readonly serverHints?: 'at-least' | 'exact';
  /**
   * The ceiling on a server's retry hint (a `RetryAfterError`, a WebSocket 1012/1013 close reason, a
   * GOAWAY's `retry-after`), ms: a longer hint is cut to it, and the trace says so. A hint is a floor
   * under the backoff, never a replacement, so this bounds how long any server can hold the client.
   * @defaultValue the greater of the backoff policy's longest wait (`bounds.max`: 144 000 for the
   * default `grpcBackoff()`) and 120 000
   */
  readonly maxRetryAfter?: number;
  /** The clock and timers. @defaultValue `asyncScheduler` (or an unref'd timer scheduler when `unref`) */
  readonly scheduler?: SchedulerLike;
  /** The random source for jitter, returning numbers in [0, 1]. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /**
   * Unref the manager's timers so that a manager waiting to reconnect never holds a Node process
   * open. Applies to the default scheduler; with a custom `scheduler`, unref it yourself.
   * @defaultValue false
   */
  readonly unref?: boolean;
  /** Receives every transition and every ignored event, for logs and debugging. */
  readonly trace?: (entry: TraceEntry) => void;
  /**
   * The floor on the spacing of attempt starts, which no backoff policy or server hint can undercut:
   * `burst` attempts may start back to back, then one per `interval` ms. `{ interval: 0 }` turns it off.
   * @defaultValue `{ burst: 5, interval: 100 }` — at most 105 attempt starts in any 10 s window
   */
  readonly attemptSpacing?: Partial<AttemptSpacing>;
  /**
   * Receives errors thrown by your own code that the manager calls where no caller can receive them:
   * a connector's teardown, the `trace` callback. @defaultValue RxJS's `config.onUnhandledError` if
   * set, else the error is rethrown asynchronously (an uncaught exception, as RxJS does)
   */
  readonly onUnhandledError?: UnhandledErrorHandler;
}

/**
 * The options after validation, with defaults filled in. They are also the machine's input
 * (`MachineEnv`): the manager sets `now` to the event's time just before each transition, so that
 * managers created from one options object share one resolved copy and no event copies the rules.
 */
export interface ResolvedOptions<C> extends Required<MachineRules> {
  readonly connector: Connector<C>;
  readonly scheduler: SchedulerLike;
  readonly trace: ((entry: TraceEntry) => void) | undefined;
  readonly onUnhandledError: UnhandledErrorHandler | undefined;
  /** The time of the event being processed (scheduler clock); only meaningful during a transition. */
  now: number;
}

/** Defaults of the numeric options. */
export const CONNECTION_DEFAULTS = Object.freeze({
  minConnectTimeout: 20_000,
  minUptime: 5_000,
  autoReconnect: true,
  maxRetries: Infinity,
  reconnectSpread: 0,
  backoffAfterLoss: false,
  serverHints: 'at-least',
});

/** The default policy, shared: a policy is immutable, so every manager without one of its own uses this one. */
const DEFAULT_BACKOFF = grpcBackoff();

function isPolicy(value: unknown): value is BackoffPolicy {
  return typeof value === 'object' && value !== null && typeof (value as BackoffPolicy).first === 'function';
}

/**
 * An options object's own enumerable entries, one level deep: a nested plain object (such as
 * `attemptSpacing`) is recorded by its entries too, so that changing one of its fields is seen.
 */
type Entries = readonly (readonly [key: string, value: unknown, nested: Entries | undefined])[];

/** An options object recently resolved, and its entries when it was. */
interface Recent {
  readonly options: WeakRef<object>;
  readonly entries: Entries;
  readonly resolved: ResolvedOptions<unknown>;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function entriesOf(options: object, depth = 1): Entries {
  return Object.entries(options).map(([key, value]) => [
    key,
    value,
    depth > 0 && isPlainObject(value) ? entriesOf(value, depth - 1) : undefined,
  ]);
}

/**
 * The options objects resolved last, newest first. A fleet built from one options object (`new
 * ConnectionManager(options)` in a loop, or from a few of them taking turns) shares one resolved copy
 * instead of validating and holding its own; a manager with an options object of its own pays nothing
 * for the sharing (no table entry or snapshot stays behind for it). The options objects are held
 * weakly, their entries only while they live, and an options object changed since is resolved again.
 */
const recent: Recent[] = [];
const RECENT = 4;
/** Drops the entry of an options object that was collected, so that its values are not held for it. */
const forget = new FinalizationRegistry<Recent>((entry) => {
  const at = recent.indexOf(entry);
  if (at >= 0) recent.splice(at, 1);
});

function unchanged(options: object, entries: Entries): boolean {
  const now = Object.entries(options);
  if (now.length !== entries.length) return false;
  for (let i = 0; i < now.length; i++) {
    const [key, value] = now[i] ?? [];
    const [oldKey, oldValue, nested] = entries[i] ?? [];
    if (key !== oldKey || !Object.is(value, oldValue)) return false;
    if (nested !== undefined && !unchanged(value as object, nested)) return false;
  }
  return true;
}

/** {@link resolveOptions}, shared between the managers created from the same, unchanged options object. */
export function resolveOptionsShared<C>(options: ConnectionManagerOptions<C>): ResolvedOptions<C> {
  for (let i = 0; i < recent.length; i++) {
    const hit = recent[i];
    if (hit?.options.deref() === options && unchanged(options, hit.entries)) {
      if (i > 0) {
        recent.splice(i, 1);
        recent.unshift(hit);
      }
      return hit.resolved as ResolvedOptions<C>;
    }
  }
  const resolved = resolveOptions(options);
  const entry: Recent = { options: new WeakRef(options), entries: entriesOf(options), resolved };
  recent.unshift(entry);
  forget.register(options, entry, entry);
  const evicted = recent.length > RECENT ? recent.pop() : undefined;
  if (evicted !== undefined) forget.unregister(evicted);
  return resolved;
}

/** Validates `options` and fills in defaults; throws a TypeError or RangeError naming the bad option. */
export function resolveOptions<C>(options: ConnectionManagerOptions<C>): ResolvedOptions<C> {
  const raw = checkOptionsObject('ConnectionManager options', options);
  const connector = optionalFunction<Connector<C>>('connector', raw['connector']);
  if (connector === undefined) {
    throw new TypeError('redialer: option "connector" is required: a function that starts an attempt');
  }
  const backoff = raw['backoff'] ?? DEFAULT_BACKOFF;
  if (!isPolicy(backoff)) {
    throw new TypeError(
      `redialer: option "backoff" must be a backoff policy (an object with first()), got ${describeValue(backoff)}`,
    );
  }
  const unref = optionalBoolean('unref', raw['unref'], false);
  const scheduler = optionalScheduler('scheduler', raw['scheduler'], unref ? unrefScheduler : asyncScheduler);
  if (unref && raw['scheduler'] !== undefined) {
    throw new TypeError(
      'redialer: option "unref" applies to the default scheduler; with "scheduler", pass an unref\'d one',
    );
  }
  return {
    connector,
    backoff,
    minConnectTimeout: optionalNumber(
      'minConnectTimeout',
      raw['minConnectTimeout'],
      CONNECTION_DEFAULTS.minConnectTimeout,
      {
        min: 0,
        max: MAX_DELAY_MS,
      },
    ),
    minUptime: optionalNumber('minUptime', raw['minUptime'], CONNECTION_DEFAULTS.minUptime, {
      min: 0,
      max: MAX_DELAY_MS,
    }),
    autoReconnect: optionalBoolean('autoReconnect', raw['autoReconnect'], CONNECTION_DEFAULTS.autoReconnect),
    maxRetries: optionalNumber('maxRetries', raw['maxRetries'], CONNECTION_DEFAULTS.maxRetries, {
      min: 0,
      integer: true,
      allowInfinity: true,
    }),
    reconnectSpread: optionalNumber('reconnectSpread', raw['reconnectSpread'], CONNECTION_DEFAULTS.reconnectSpread, {
      min: 0,
      max: MAX_DELAY_MS,
    }),
    backoffAfterLoss: optionalBoolean(
      'backoffAfterLoss',
      raw['backoffAfterLoss'],
      CONNECTION_DEFAULTS.backoffAfterLoss,
    ),
    serverHints: optionalChoice('serverHints', raw['serverHints'], SERVER_HINT_MODES, CONNECTION_DEFAULTS.serverHints),
    maxRetryAfter: optionalNumber('maxRetryAfter', raw['maxRetryAfter'], defaultHintCeiling(backoff), {
      min: 0,
      max: MAX_DELAY_MS,
    }),
    scheduler,
    random: optionalFunction('random', raw['random'], Math.random),
    trace: optionalFunction('trace', raw['trace']),
    attemptSpacing: resolveAttemptSpacing('attemptSpacing', raw['attemptSpacing']),
    onUnhandledError: optionalFunction('onUnhandledError', raw['onUnhandledError']),
    now: 0,
  };
}
