/**
 * The engine behind every shared budget: decisions stay local and synchronous, and a timer syncs
 * with Redis once per interval (one script call). While Redis is not ready, a sync fails or takes too
 * long, the budget decides from its local fallback and says so (`mode`, `mode$`, metrics).
 * @module
 */
import { MAX_DELAY_MS } from '../../backoff/backoff.js';
import { randomUUID } from 'node:crypto';
import { BehaviorSubject, type Observable, type SchedulerLike, type Subscription, distinctUntilChanged } from 'rxjs';
import { runGuarded } from '../../internal/report-unhandled-error.js';
import { unrefScheduler } from '../../internal/unref-scheduler.js';
import { formatDuration } from '../../internal/format-duration.js';
import type {
  CounterLike,
  MeterLike,
  MetricAttributes,
  ObservableGaugeLike,
  ObservableResultLike,
  RetryBudget,
} from '../retry/index.js';
import { scheduleTimer } from '../../internal/schedule-timer.js';
import {
  checkOptionsObject,
  checkText,
  describeValue,
  optionalNumber,
  optionalObject,
  schedulerOption,
} from '../../internal/validate.js';
import { type LuaScript, runScript } from './budget-scripts.js';
import type { RedisClientLike } from './redis-client-like.js';

/** `shared`: decisions use the fleet's counts from Redis; `local`: Redis is unreachable, the local fallback decides. */
export type SharedBudgetMode = 'shared' | 'local';

/** What a shared budget knows about its link to Redis. */
export interface SharedBudgetStatus {
  readonly mode: SharedBudgetMode;
  /** The processes that synced within the last three intervals (this one included), at the last sync. */
  readonly members: number;
  /** Successful syncs. */
  readonly syncs: number;
  /** Syncs that failed, timed out or were skipped because Redis was not ready. */
  readonly syncFailures: number;
  /** Epoch ms of the last successful sync (by the budget's scheduler), or undefined. */
  readonly lastSyncAt: number | undefined;
  /** Why the budget is local, when it is. */
  readonly lastError: unknown;
}

/** Options every shared budget takes. */
export interface SharedBudgetOptions {
  /** An ioredis client (not a blocking one); the budget never closes it. */
  readonly redis: RedisClientLike;
  /** The budget's name in Redis; every process that passes the same key shares one budget. */
  readonly key: string;
  /** How often to sync with Redis, in ms. @defaultValue 1000 */
  readonly syncInterval?: number;
  /** How long a sync may take before the budget falls back to local, in ms. @defaultValue 1000 */
  readonly syncTimeout?: number;
  /** This process's id in the members set. @defaultValue a random UUID */
  readonly id?: string;
  /** The scheduler for the sync timer. @defaultValue `unrefScheduler` (never holds a Node process open) */
  readonly scheduler?: SchedulerLike;
  /**
   * An OpenTelemetry meter (or any `MeterLike`): counters `redialer.retry_budget.syncs` and
   * `.sync_failures`, and the gauge `redialer.retry_budget.shared` (1 shared, 0 local). @defaultValue none
   */
  readonly meter?: MeterLike;
  /** Attributes added to every measurement; `redialer.budget.key` is always added. @defaultValue {} */
  readonly attributes?: MetricAttributes;
}

/** A retry budget shared through Redis by every process that uses the same key. */
export interface SharedRetryBudget extends RetryBudget {
  /** Whether decisions use the fleet's counts right now. */
  readonly mode: SharedBudgetMode;
  /** The mode, replayed to new subscribers, on every change; completes on close(). */
  readonly mode$: Observable<SharedBudgetMode>;
  /** The link's counters. */
  readonly status: SharedBudgetStatus;
  /** Syncs now (the timer does it every interval); never rejects. */
  sync(): Promise<void>;
  /** Stops the timer and detaches from the meter; leaves the Redis client open. Idempotent. */
  close(): void;
}

/**
 * This process's counts that the fleet's, as of the last sync, do not include yet: the ones not sent
 * and the ones on their way. The decisions read `local`; each sync takes what is unsent.
 */
export interface PendingCounts<K extends string> {
  /** The counts the fleet's do not include yet (unsent or in flight). */
  readonly local: Readonly<Record<K, number>>;
  /** Counts one more `name` (or `by` more). */
  add(name: K, by?: number): void;
  /**
   * Takes the counts not yet sent, and `settle()`, called once their sync is over (applied or lost),
   * after which `local` stops counting them.
   */
  take(): { readonly batch: Readonly<Record<K, number>>; readonly settle: () => void };
}

/** Counts named `names`, all zero, kept as {@link PendingCounts}. */
export function pendingCounts<K extends string>(names: readonly K[]): PendingCounts<K> {
  const zero = (): Record<K, number> => Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>;
  let unsent = zero();
  let local = zero();
  return {
    get local() {
      return local;
    },
    add(name, by = 1) {
      unsent = { ...unsent, [name]: unsent[name] + by };
      local = { ...local, [name]: local[name] + by };
    },
    take() {
      const batch = unsent;
      unsent = zero();
      return {
        batch,
        settle: () => {
          const left = { ...local };
          for (const name of names) left[name] -= batch[name];
          local = left;
        },
      };
    },
  };
}

/** Checks that a script replied with `length` finite numbers. */
function checkReply(raw: unknown, length: number): readonly number[] {
  if (!Array.isArray(raw) || raw.length !== length || !raw.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new Error(`unexpected reply from the budget script: ${JSON.stringify(raw)}`);
  }
  return raw as readonly number[];
}

/** What a budget kind plugs into the engine. */
export interface SyncPlan<K extends string, Reply extends { readonly members: number }> {
  /** The script; its keys are the budget's state and members ({@link budgetKeys}). */
  readonly script: LuaScript;
  /** The counts each sync sends; settled once the sync is over (applied or lost). */
  readonly pending: PendingCounts<K>;
  /** The script's arguments after the member id, for the counts a sync sends. */
  args(batch: Readonly<Record<K, number>>): readonly (string | number)[];
  /** How many numbers the script replies with; any other reply fails the sync. */
  readonly replyLength: number;
  /** Reads the script's reply (`replyLength` finite numbers); `members` counts the fleet. */
  parse(reply: readonly number[]): Reply;
  /** The fleet's counts until the first sync. */
  readonly initial: Reply;
}

/** The validated common options. */
export interface ResolvedSharedOptions {
  readonly redis: RedisClientLike;
  readonly key: string;
  readonly syncInterval: number;
  readonly syncTimeout: number;
  readonly id: string;
  readonly scheduler: SchedulerLike;
  readonly meter: MeterLike | undefined;
  readonly attributes: MetricAttributes;
}

function hasMembers(value: unknown, members: Readonly<Record<string, 'function' | 'string'>>): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return Object.entries(members).every(([name, type]) => typeof record[name] === type);
}

/** Validates the options every shared budget takes. */
export function resolveSharedOptions(
  what: string,
  options: unknown,
): ResolvedSharedOptions & { readonly raw: Readonly<Record<string, unknown>> } {
  const raw = checkOptionsObject(what, options);
  const redis = raw['redis'];
  if (!hasMembers(redis, { evalsha: 'function', eval: 'function', status: 'string' })) {
    throw new TypeError(
      `redialer: option "redis" must be an ioredis client (status, evalsha(), eval()), got ${describeValue(redis)}`,
    );
  }
  const key = checkText('key', raw['key']);
  const id = checkText('id', raw['id'] ?? randomUUID());
  const scheduler = schedulerOption(raw['scheduler'], unrefScheduler);
  const meter = raw['meter'];
  if (meter !== undefined && !hasMembers(meter, { createCounter: 'function', createObservableGauge: 'function' })) {
    throw new TypeError(
      `redialer: option "meter" must have createCounter() and createObservableGauge(), got ${describeValue(meter)}`,
    );
  }
  const attributes = optionalObject<MetricAttributes>('attributes', raw['attributes'] ?? undefined, {});
  return {
    raw,
    redis: redis as RedisClientLike,
    key,
    syncInterval: optionalNumber('syncInterval', raw['syncInterval'], 1000, { min: 1, max: MAX_DELAY_MS }),
    syncTimeout: optionalNumber('syncTimeout', raw['syncTimeout'], 1000, { min: 1, max: MAX_DELAY_MS }),
    id,
    scheduler,
    meter: meter as MeterLike | undefined,
    attributes: { ...attributes, 'redialer.budget.key': key },
  };
}

/** The Redis keys of a budget: one hash tag, so that a Cluster keeps them on one slot. */
function budgetKeys(key: string): { readonly state: string; readonly members: string } {
  return { state: `{${key}}:state`, members: `{${key}}:members` };
}

class Timeout extends Error {
  override readonly name = 'SyncTimeoutError';
}

/**
 * Runs the sync loop of a shared budget: the first sync at once, then one per interval, never two at
 * a time. Returns the budget's link-facing half and the fleet's counts as of the last sync; the
 * caller adds the decisions.
 */
export function startSync<K extends string, Reply extends { readonly members: number }>(
  options: ResolvedSharedOptions,
  plan: SyncPlan<K, Reply>,
): SyncLink & { readonly fleet: Reply } {
  const { redis, scheduler } = options;
  const keys = budgetKeys(options.key);
  let fleet = plan.initial;
  const subject = new BehaviorSubject<SharedBudgetMode>('local');
  let members = 1;
  let syncs = 0;
  let syncFailures = 0;
  let lastSyncAt: number | undefined;
  let lastError: unknown = new Error('not synced with Redis yet');
  let closed = false;
  let inFlight: Promise<void> | undefined;
  let timer: Subscription | undefined;
  let counters: { syncs: CounterLike; failures: CounterLike } | undefined;
  let gauge: { instrument: ObservableGaugeLike; callback: (result: ObservableResultLike) => void } | undefined;

  if (options.meter !== undefined) {
    counters = {
      syncs: options.meter.createCounter('redialer.retry_budget.syncs', {
        description: 'Syncs of a shared retry budget with Redis',
        unit: '{sync}',
      }),
      failures: options.meter.createCounter('redialer.retry_budget.sync_failures', {
        description: 'Syncs that failed or were skipped because Redis was unreachable',
        unit: '{sync}',
      }),
    };
    const instrument = options.meter.createObservableGauge('redialer.retry_budget.shared', {
      description: '1 while the budget decides from the fleet counts in Redis, 0 while it falls back to local',
      unit: '1',
    });
    const callback = (result: ObservableResultLike): void => {
      result.observe(subject.value === 'shared' ? 1 : 0, options.attributes);
    };
    instrument.addCallback(callback);
    gauge = { instrument, callback };
  }

  const count = (counter: CounterLike | undefined): void => {
    runGuarded(() => counter?.add(1, options.attributes), undefined);
  };

  const fail = (error: unknown): void => {
    syncFailures += 1;
    lastError = error;
    count(counters?.failures);
    if (subject.value !== 'local') subject.next('local');
  };

  const attempt = async (): Promise<void> => {
    if (redis.status !== 'ready') {
      fail(new Error(`Redis is not ready (status: ${redis.status})`));
      return;
    }
    const { batch, settle } = plan.pending.take();
    let cancel: Subscription | undefined;
    try {
      const timeout = new Promise<never>((_resolve, reject) => {
        cancel = scheduleTimer(scheduler, options.syncTimeout, () => {
          reject(new Timeout(`the sync took longer than ${formatDuration(options.syncTimeout)}`));
        });
      });
      const raw = await Promise.race([
        runScript(redis, plan.script, [keys.state, keys.members], [options.id, ...plan.args(batch)]),
        timeout,
      ]);
      const reply = plan.parse(checkReply(raw, plan.replyLength));
      settle();
      if (closed) return;
      fleet = reply;
      members = Math.max(1, reply.members);
      syncs += 1;
      lastSyncAt = scheduler.now();
      lastError = undefined;
      count(counters?.syncs);
      if (subject.value !== 'shared') subject.next('shared');
    } catch (error) {
      // The counts may or may not have reached Redis; dropping them never counts twice.
      settle();
      if (!closed) fail(error);
    } finally {
      cancel?.unsubscribe();
    }
  };

  const sync = (): Promise<void> => {
    if (closed) return Promise.resolve();
    inFlight ??= attempt().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const arm = (delay: number): void => {
    if (closed) return;
    timer = scheduleTimer(scheduler, delay, () => {
      void sync().then(() => {
        arm(options.syncInterval);
      });
    });
  };
  arm(0);

  return {
    get fleet() {
      return fleet;
    },
    get mode() {
      return subject.value;
    },
    mode$: subject.pipe(distinctUntilChanged()),
    get status(): SharedBudgetStatus {
      return Object.freeze({ mode: subject.value, members, syncs, syncFailures, lastSyncAt, lastError });
    },
    sync,
    close() {
      if (closed) return;
      closed = true;
      timer?.unsubscribe();
      if (gauge !== undefined) gauge.instrument.removeCallback(gauge.callback);
      gauge = undefined;
      subject.complete();
    },
  };
}

/** The link half of a shared budget, as {@link startSync} returns it. */
export type SyncLink = Pick<SharedRetryBudget, 'mode' | 'mode$' | 'status' | 'sync' | 'close'>;

/** Completes a budget kind's decisions with the link's mode, status, sync() and close(). */
export function withLink<D extends object>(link: SyncLink, decisions: D): D & SyncLink {
  return Object.defineProperties(decisions, {
    mode: { get: () => link.mode, enumerable: true },
    status: { get: () => link.status, enumerable: true },
    mode$: { value: link.mode$, enumerable: true },
    sync: { value: link.sync, enumerable: true },
    close: { value: link.close, enumerable: true },
  }) as D & SyncLink;
}
