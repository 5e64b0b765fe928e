/**
 * Options of {@link ReconnectingWebSocket}: reconnecting-websocket's names with gRPC's defaults,
 * plus redialer's own; their validation.
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { type AttemptSpacing, DEFAULT_ATTEMPT_SPACING, resolveAttemptSpacing } from '../../backoff/attempt-spacing.js';
import { type BackoffPolicy, MAX_DELAY_MS, type RandomSource } from '../../backoff/backoff.js';
import { GRPC_BACKOFF_DEFAULTS, grpcBackoff } from '../../backoff/grpc-backoff.js';
import { CONNECTION_DEFAULTS, type TraceEntry } from '../../core/connection-options.js';
import type { UnhandledErrorHandler } from '../../internal/report-unhandled-error.js';
import {
  COUNT_BOUNDS,
  type NumberBounds,
  checkArray,
  checkNumber,
  checkOptionsObject,
  describeValue,
  optionalBoolean,
  optionalChoice,
  optionalFunction,
  optionalNumber,
  optionalObject,
  optionalScheduler,
} from '../../internal/validate.js';
import { DEFAULT_PERMANENT_CLOSE_CODES } from './close-policy.js';
import type { EnvironmentLike } from '../../internal/environment-watch.js';
import { classHasProtocolPing, type HeartbeatConfig, type HeartbeatOptions } from './heartbeat.js';
import { toMessage } from './message-payload.js';
import type { CloseEventLike, ProtocolsProvider, UrlProvider, WebSocketConstructor } from './websocket-types.js';

const SERVER_HINT_MODES = ['at-least', 'exact'] as const;

/** Options of {@link ReconnectingWebSocket}; every time is in milliseconds. */
export interface ReconnectingWebSocketOptions {
  /**
   * The WebSocket class: on Node 20 pass `WebSocket` from the `ws` package.
   * @defaultValue the global `WebSocket` (browsers, Node >= 22)
   */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * Wait after the first failed attempt (gRPC's initial backoff). @defaultValue 1000, or
   * `maxReconnectionDelay` when that is given and smaller
   */
  readonly minReconnectionDelay?: number;
  /** Cap on the un-jittered wait (gRPC's max backoff). @defaultValue 120000 */
  readonly maxReconnectionDelay?: number;
  /** Growth of the wait per failure (gRPC's multiplier). @defaultValue 1.6 */
  readonly reconnectionDelayGrowFactor?: number;
  /** Relative jitter of each wait after the first, in [0, 1]. @defaultValue 0.2 */
  readonly reconnectionDelayJitter?: number;
  /**
   * How long a connection must stay open for the backoff to reset. A server that accepts and closes
   * sooner counts as a failed attempt, so it cannot drive a fast reconnect loop. @defaultValue 5000
   */
  readonly minUptime?: number;
  /**
   * After a connection that stayed up `minUptime` is lost, wait `minReconnectionDelay` (from the
   * loss) before reconnecting, as reconnecting-websocket and partysocket do; the loss counts as the
   * first retry of a new cycle (`retryCount` 1, and for `maxRetries`). `false` reconnects at once, as
   * gRPC does (the connection manager's `backoffAfterLoss`). @defaultValue true
   */
  readonly backoffAfterLoss?: boolean;
  /**
   * The least time an attempt is given to open before it is cut (it is given more when the backoff
   * wait is longer, as gRPC's min connect timeout). @defaultValue 20000
   */
  readonly connectionTimeout?: number;
  /**
   * Retries after the first attempt of a backoff cycle before giving up (the cycle restarts after a
   * connection that stayed up `minUptime`, and on `reconnect()`). @defaultValue Infinity
   */
  readonly maxRetries?: number;
  /**
   * How a server's delay hint (close 1012/1013 with `retry-after=…`) counts: `'at-least'` waits at
   * least the hint, spread upwards by the jitter, or longer if the backoff says so; `'exact'` waits the
   * hint itself, within the backoff's first wait and cap (for servers that hand each client its own
   * slot: `redialer/server`). @defaultValue 'at-least'
   */
  readonly serverHints?: 'at-least' | 'exact';
  /**
   * The ceiling on a server's delay hint (a 1012/1013 close reason, Retry-After on a failed upgrade),
   * ms: a longer hint is cut to it. @defaultValue `maxReconnectionDelay`
   */
  readonly maxRetryAfter?: number;
  /** Most messages held while the socket is not open. @defaultValue 1000 */
  readonly maxEnqueuedMessages?: number;
  /** Most bytes held while the socket is not open (strings count in UTF-8). @defaultValue 1048576 */
  readonly maxEnqueuedBytes?: number;
  /**
   * Refuse messages once the client is closed: at close() (or giving up) each queued message gets a
   * `drop` event with reason `'closed'`, and `send()` after that rejects. Without it, as in
   * reconnecting-websocket and partysocket, they stay queued for `reconnect()` and
   * `drainQueuedMessages()`. @defaultValue false
   */
  readonly dropOnClose?: boolean;
  /** Do not connect until `reconnect()` is called. @defaultValue false */
  readonly startClosed?: boolean;
  /** Log every transition, one line each, to `debugLogger`. @defaultValue false */
  readonly debug?: boolean;
  /** Where `debug` writes (partysocket's option). @defaultValue `console.log`, as in the peers */
  readonly debugLogger?: (...args: unknown[]) => void;
  /** Close codes after which the client stops reconnecting. @defaultValue [1008, 4401, 4403] */
  readonly permanentCloseCodes?: readonly number[];
  /**
   * Decides, for close codes that are neither permanent nor 1012/1013, whether to reconnect. (A
   * method signature, so that a function typed for a richer close event, the DOM's or the peers'
   * CloseEvent class, is accepted.) @defaultValue reconnect after every such close
   */
  shouldReconnect?(event: CloseEventLike): boolean;
  /** partysocket's name for `shouldReconnect`; give one or the other. */
  shouldReconnectOnClose?(event: CloseEventLike): boolean;
  /**
   * While `navigator.onLine === false`, park attempts (state IDLE with `paused: true`) and
   * reconnect at once on `online`. @defaultValue true
   */
  readonly pauseWhileOffline?: boolean;
  /**
   * When a hidden page becomes visible while the next attempt is more than
   * `visibleRetryThreshold` away, attempt at once with a fresh backoff. @defaultValue true
   */
  readonly retryOnVisible?: boolean;
  /** The wait beyond which `retryOnVisible` cuts it short. @defaultValue 5000 */
  readonly visibleRetryThreshold?: number;
  /**
   * Detect dead connections: a connection from which nothing has arrived for `interval + timeout` ms
   * is closed with code 4000 and reconnected with backoff (`lastError` a HeartbeatTimeoutError). With
   * `ws`, protocol pings; elsewhere the `ping` message (required there, or `serverSends: true`).
   * @defaultValue with `ws`, protocol pings every 25 s, dead after 45 s of silence; elsewhere off
   */
  readonly heartbeat?: HeartbeatOptions | false;
  /** The global scope to watch for online/offline and visibility. @defaultValue `globalThis` */
  readonly environment?: EnvironmentLike;
  /** The clock and timers. @defaultValue `asyncScheduler` */
  readonly scheduler?: SchedulerLike;
  /** The random source for jitter, returning numbers in [0, 1]. @defaultValue `Math.random` */
  readonly random?: RandomSource;
  /** Receives every transition of the underlying connection manager. */
  readonly trace?: (entry: TraceEntry) => void;
  /**
   * Spreads the first reconnect after a lost open connection: it starts no sooner than a uniform
   * draw in [0, reconnectSpread] ms after the loss, or later if `minReconnectionDelay` (with
   * `backoffAfterLoss`) or the server asks for a longer wait (the longer counts), so that clients that
   * lose one server together do not all dial at the same instant: with the default 1 s first wait, a
   * spread spreads only the reconnects it moves past 1 s (`reconnectSpread: 5000` leaves a fifth at
   * 1 s and spreads the rest over 1–5 s). 0: no spread (the connection manager's `reconnectSpread`).
   * @defaultValue 0
   */
  readonly reconnectSpread?: number;
  /**
   * The floor on the spacing of attempt starts, which no backoff setting or server hint can undercut:
   * `burst` attempts may start back to back, then one per `interval` ms. `{ interval: 0 }` turns it off
   * (the connection manager's `attemptSpacing`).
   * @defaultValue `{ burst: 5, interval: 100 }` — at most 105 attempt starts in any 10 s window
   */
  readonly attemptSpacing?: Partial<AttemptSpacing>;
  /**
   * Receives errors thrown by your own code that the client calls where no caller can receive them:
   * an event listener or `on…` handler, the heartbeat's `ping` or `isPong`, the `trace` callback
   * (the connection manager's `onUnhandledError`). @defaultValue RxJS's `config.onUnhandledError` if
   * set, else the error is rethrown asynchronously (an uncaught exception, as RxJS does)
   */
  readonly onUnhandledError?: UnhandledErrorHandler;
}

/** The adapter's defaults. */
export const WEBSOCKET_DEFAULTS = Object.freeze({
  minReconnectionDelay: GRPC_BACKOFF_DEFAULTS.initialBackoff,
  maxReconnectionDelay: GRPC_BACKOFF_DEFAULTS.maxBackoff,
  reconnectionDelayGrowFactor: GRPC_BACKOFF_DEFAULTS.multiplier,
  reconnectionDelayJitter: GRPC_BACKOFF_DEFAULTS.jitter,
  minUptime: 5000,
  connectionTimeout: 20_000,
  maxRetries: Infinity,
  reconnectSpread: CONNECTION_DEFAULTS.reconnectSpread,
  attemptSpacing: DEFAULT_ATTEMPT_SPACING,
  maxEnqueuedMessages: 1000,
  maxEnqueuedBytes: 1_048_576,
  visibleRetryThreshold: 5000,
  heartbeatInterval: 25_000,
  heartbeatTimeout: 20_000,
});

/** The options after validation. */
export interface ResolvedWebSocketOptions {
  readonly WebSocket: WebSocketConstructor;
  readonly backoff: BackoffPolicy;
  readonly minDelay: number;
  readonly minUptime: number;
  readonly backoffAfterLoss: boolean;
  readonly connectionTimeout: number;
  readonly maxRetries: number;
  readonly serverHints: 'at-least' | 'exact';
  readonly maxRetryAfter: number;
  readonly maxEnqueuedMessages: number;
  readonly maxEnqueuedBytes: number;
  readonly dropOnClose: boolean;
  readonly startClosed: boolean;
  readonly debug: boolean;
  readonly debugLogger: ((...args: unknown[]) => void) | undefined;
  readonly permanentCloseCodes: readonly number[];
  readonly shouldReconnect: ((event: CloseEventLike) => boolean) | undefined;
  readonly pauseWhileOffline: boolean;
  readonly retryOnVisible: boolean;
  readonly visibleRetryThreshold: number;
  readonly heartbeat: HeartbeatConfig | undefined;
  readonly environment: EnvironmentLike | undefined;
  readonly scheduler: SchedulerLike;
  readonly random: RandomSource;
  readonly trace: ((entry: TraceEntry) => void) | undefined;
  readonly reconnectSpread: number;
  readonly attemptSpacing: AttemptSpacing;
  readonly onUnhandledError: UnhandledErrorHandler | undefined;
}

function resolveWebSocketClass(value: unknown): WebSocketConstructor {
  const candidate = value ?? (globalThis as { WebSocket?: unknown }).WebSocket;
  if (candidate === undefined) {
    throw new TypeError(
      'redialer: no WebSocket class: this runtime has no global WebSocket; pass option "WebSocket" (for example WebSocket from the "ws" package)',
    );
  }
  if (typeof candidate !== 'function') {
    throw new TypeError(`redialer: option "WebSocket" must be a WebSocket class, got ${describeValue(candidate)}`);
  }
  return candidate as WebSocketConstructor;
}

/**
 * The heartbeat: as given; on by default where sockets have protocol pings (`ws`), which need nothing
 * of the server; refused where it could only close a healthy connection that is quiet.
 */
function resolveHeartbeat(value: unknown, protocolPing: boolean): HeartbeatConfig | undefined {
  if (value === false) return undefined;
  const d = WEBSOCKET_DEFAULTS;
  if (value === undefined) {
    if (!protocolPing) return undefined;
    return Object.freeze({
      interval: d.heartbeatInterval,
      timeout: d.heartbeatTimeout,
      ping: undefined,
      isPong: undefined,
      serverSends: false,
    });
  }
  const raw = checkOptionsObject('heartbeat', value);
  const ping: unknown = raw['ping'];
  let makePing: (() => unknown) | undefined;
  if (typeof ping === 'function') makePing = ping as () => unknown;
  else if (ping !== undefined) {
    const message = toMessage(ping);
    makePing = () => message;
  }
  const serverSends = optionalBoolean('heartbeat.serverSends', raw['serverSends'], false);
  if (serverSends && makePing !== undefined) {
    throw new TypeError('redialer: option "heartbeat" has both "ping" and "serverSends: true"; give one');
  }
  if (!protocolPing && makePing === undefined && !serverSends) {
    throw new TypeError(
      'redialer: option "heartbeat" needs "ping" here (this WebSocket has no protocol ping): without it a quiet, healthy server is closed with 4000; give "ping" (and "isPong") for a message your server answers, or "serverSends: true" if it sends something every interval on its own',
    );
  }
  return {
    interval: optionalNumber('heartbeat.interval', raw['interval'], d.heartbeatInterval, { min: 1, max: MAX_DELAY_MS }),
    timeout: optionalNumber('heartbeat.timeout', raw['timeout'], d.heartbeatTimeout, { min: 0, max: MAX_DELAY_MS }),
    ping: makePing === undefined ? undefined : () => toMessage(makePing()),
    isPong: optionalFunction('heartbeat.isPong', raw['isPong']),
    serverSends,
  };
}

function resolveShouldReconnect(raw: Record<string, unknown>): ((event: CloseEventLike) => boolean) | undefined {
  const ours = optionalFunction<(event: CloseEventLike) => boolean>('shouldReconnect', raw['shouldReconnect']);
  const theirs = optionalFunction<(event: CloseEventLike) => boolean>(
    'shouldReconnectOnClose',
    raw['shouldReconnectOnClose'],
  );
  if (ours !== undefined && theirs !== undefined) {
    throw new TypeError(
      'redialer: options "shouldReconnect" and "shouldReconnectOnClose" are the same option; give one of them',
    );
  }
  return ours ?? theirs;
}

function resolveCodes(value: unknown): readonly number[] {
  if (value === undefined) return DEFAULT_PERMANENT_CLOSE_CODES;
  return Object.freeze(
    checkArray('permanentCloseCodes', value, 'close codes').map((code, i) =>
      checkNumber(`permanentCloseCodes[${String(i)}]`, code, { min: 1000, max: 4999, integer: true }),
    ),
  );
}

/** The bounds of every time option, in ms (the shortest is 0 unless given). */
function delayBounds(min = 0): NumberBounds {
  return { min, max: MAX_DELAY_MS };
}

/** Validates `options` and fills in defaults; throws a TypeError or RangeError naming the bad option. */
export function resolveWebSocketOptions(options: ReconnectingWebSocketOptions | undefined): ResolvedWebSocketOptions {
  const raw = checkOptionsObject('ReconnectingWebSocket options', options);
  const d = WEBSOCKET_DEFAULTS;
  // As in reconnecting-websocket, a lone maxReconnectionDelay caps every wait: the default minimum
  // follows it down.
  const givenMax = optionalNumber('maxReconnectionDelay', raw['maxReconnectionDelay'], Infinity, delayBounds());
  const minDelay = optionalNumber(
    'minReconnectionDelay',
    raw['minReconnectionDelay'],
    Math.min(d.minReconnectionDelay, givenMax),
    delayBounds(),
  );
  const maxDelay = optionalNumber(
    'maxReconnectionDelay',
    raw['maxReconnectionDelay'],
    Math.max(d.maxReconnectionDelay, minDelay),
    delayBounds(minDelay),
  );
  const multiplier = optionalNumber(
    'reconnectionDelayGrowFactor',
    raw['reconnectionDelayGrowFactor'],
    d.reconnectionDelayGrowFactor,
    { min: 1 },
  );
  const jitter = optionalNumber('reconnectionDelayJitter', raw['reconnectionDelayJitter'], d.reconnectionDelayJitter, {
    min: 0,
    max: 1,
  });
  const scheduler = optionalScheduler('scheduler', raw['scheduler'], asyncScheduler);
  // null, as undefined, means this runtime's globals.
  const environment = optionalObject<EnvironmentLike>('environment', raw['environment'] ?? globalThis, globalThis);
  const WebSocket = resolveWebSocketClass(raw['WebSocket']);
  return {
    WebSocket,
    backoff: grpcBackoff({ initialBackoff: minDelay, maxBackoff: maxDelay, multiplier, jitter }),
    minDelay,
    minUptime: optionalNumber('minUptime', raw['minUptime'], d.minUptime, delayBounds()),
    backoffAfterLoss: optionalBoolean('backoffAfterLoss', raw['backoffAfterLoss'], true),
    connectionTimeout: optionalNumber(
      'connectionTimeout',
      raw['connectionTimeout'],
      d.connectionTimeout,
      delayBounds(),
    ),
    maxRetries: optionalNumber('maxRetries', raw['maxRetries'], d.maxRetries, COUNT_BOUNDS),
    serverHints: optionalChoice('serverHints', raw['serverHints'], SERVER_HINT_MODES, 'at-least'),
    maxRetryAfter: optionalNumber('maxRetryAfter', raw['maxRetryAfter'], maxDelay, delayBounds()),
    maxEnqueuedMessages: optionalNumber(
      'maxEnqueuedMessages',
      raw['maxEnqueuedMessages'],
      d.maxEnqueuedMessages,
      COUNT_BOUNDS,
    ),
    maxEnqueuedBytes: optionalNumber('maxEnqueuedBytes', raw['maxEnqueuedBytes'], d.maxEnqueuedBytes, {
      min: 0,
      allowInfinity: true,
    }),
    dropOnClose: optionalBoolean('dropOnClose', raw['dropOnClose'], false),
    startClosed: optionalBoolean('startClosed', raw['startClosed'], false),
    debug: optionalBoolean('debug', raw['debug'], false),
    debugLogger: optionalFunction('debugLogger', raw['debugLogger']),
    permanentCloseCodes: resolveCodes(raw['permanentCloseCodes']),
    shouldReconnect: resolveShouldReconnect(raw),
    pauseWhileOffline: optionalBoolean('pauseWhileOffline', raw['pauseWhileOffline'], true),
    retryOnVisible: optionalBoolean('retryOnVisible', raw['retryOnVisible'], true),
    visibleRetryThreshold: optionalNumber(
      'visibleRetryThreshold',
      raw['visibleRetryThreshold'],
      d.visibleRetryThreshold,
      {
        min: 0,
        allowInfinity: true,
      },
    ),
    heartbeat: resolveHeartbeat(raw['heartbeat'], classHasProtocolPing(WebSocket)),
    environment,
    scheduler,
    random: optionalFunction('random', raw['random'], Math.random),
    trace: optionalFunction('trace', raw['trace']),
    // Checked as the connection manager checks them (connection-options.ts), which checks them again.
    reconnectSpread: optionalNumber('reconnectSpread', raw['reconnectSpread'], d.reconnectSpread, delayBounds()),
    attemptSpacing: resolveAttemptSpacing('attemptSpacing', raw['attemptSpacing']),
    onUnhandledError: optionalFunction('onUnhandledError', raw['onUnhandledError']),
  };
}

/** Checks the constructor's `url`: a URL, a function returning one, or a non-empty list of URLs. */
export function checkUrl(url: UrlProvider | readonly string[]): void {
  if (
    Array.isArray(url)
      ? url.length === 0 || url.some((u) => typeof u !== 'string')
      : typeof url !== 'string' && typeof url !== 'function'
  ) {
    throw new TypeError(
      `redialer: url must be a string, a function returning one, or a non-empty array of strings, got ${typeof url}`,
    );
  }
}

/** Whether `url` is several URLs of the same service (raced as happyEyeballs() races addresses). */
export function isUrlList(url: UrlProvider | readonly string[]): url is readonly string[] {
  return Array.isArray(url);
}

/**
 * Checks the constructor's `protocols` and returns them as they are passed to each socket: as in the
 * peers, only when given (null or an empty list means none).
 */
export function resolveProtocols(protocols: ProtocolsProvider | undefined): ProtocolsProvider | undefined {
  if (
    protocols !== undefined &&
    protocols !== null &&
    typeof protocols !== 'string' &&
    typeof protocols !== 'function' &&
    !Array.isArray(protocols)
  ) {
    throw new TypeError(
      `redialer: protocols must be a string, an array of strings or a function returning one, got ${typeof protocols}`,
    );
  }
  return protocols === null || (Array.isArray(protocols) && protocols.length === 0) ? undefined : protocols;
}

/** Checks the code of close() and reconnect(): 1000 or 3000-4999, as the WebSocket API allows. */
export function checkCloseCode(code: number | undefined): void {
  if (code === undefined) return;
  checkNumber('code', code, { integer: true, min: 1000, max: 4999 });
  if (code !== 1000 && code < 3000) {
    throw new RangeError(`redialer: close code must be 1000 or in 3000-4999, got ${String(code)}`);
  }
}
