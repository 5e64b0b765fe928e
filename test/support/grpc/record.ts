import { filter, firstValueFrom, type Observable, timeout } from 'rxjs';
import type { ConnectionSnapshot } from '../../../src/index.js';

/** Records every snapshot of `state$`. */
export function record<C>(state$: Observable<ConnectionSnapshot<C>>) {
  const snapshots: ConnectionSnapshot<C>[] = [];
  const subscription = state$.subscribe((s) => snapshots.push(s));
  return {
    snapshots,
    states: () => snapshots.map((s) => s.state),
    /** One line per snapshot (state, connected, last error), for an assertion's message. */
    describe: () =>
      snapshots
        .map((s) => {
          const error = s.lastError instanceof Error ? ` ${s.lastError.name}: ${s.lastError.message}` : '';
          return `${s.state}${'connected' in s && s.connected ? ' (connected)' : ''}${error}`;
        })
        .join('\n'),
    /** CONNECTING snapshots (attempt starts) after index `from`. */
    starts: (from = 0) => snapshots.slice(from).filter((s) => s.state === 'CONNECTING'),
    stop: () => {
      subscription.unsubscribe();
    },
  };
}

/** The first snapshot matching `predicate`, or a rejection after `ms` (so that a test fails instead of hanging). */
export function until<C>(
  state$: Observable<ConnectionSnapshot<C>>,
  predicate: (s: ConnectionSnapshot<C>) => boolean,
  ms = 5000,
): Promise<ConnectionSnapshot<C>> {
  return firstValueFrom(state$.pipe(filter(predicate), timeout(ms)));
}

/**
 * The backoff wait that followed each failed attempt, in order: nextAttemptAt minus the attempt's
 * start. An attempt that took longer than its wait to fail is followed at once (nextAttemptAt is the
 * failure time); such an attempt (rare, on a loaded machine) reports its wait as `undefined`, so that
 * assertions check the schedule, never the machine's speed.
 */
export function waitsAfterAttempts<C>(snapshots: readonly ConnectionSnapshot<C>[]): (number | undefined)[] {
  const waits: (number | undefined)[] = [];
  let start: number | undefined;
  for (const s of snapshots) {
    if (s.state === 'CONNECTING') start = s.since;
    else if (s.state === 'TRANSIENT_FAILURE' && start !== undefined) {
      waits.push(s.nextAttemptAt === s.since ? undefined : s.nextAttemptAt - start);
      start = undefined;
    } else if (s.state === 'READY') start = undefined;
  }
  return waits;
}

/**
 * The first `nominal.length` waits from {@link waitsAfterAttempts}, a slow attempt's `undefined`
 * replaced by the nominal value it could not be checked against; compare the result with `nominal`.
 */
export function onSchedule(waits: readonly (number | undefined)[], nominal: readonly number[]): (number | undefined)[] {
  return waits.slice(0, nominal.length).map((wait, i) => wait ?? nominal[i]);
}
