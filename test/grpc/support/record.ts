import { filter, firstValueFrom, type Observable, timeout } from 'rxjs';
import type { ConnectionSnapshot } from '../../../src/index.js';

/** Records every snapshot of `state$`. */
export function record<C>(state$: Observable<ConnectionSnapshot<C>>) {
  const snapshots: ConnectionSnapshot<C>[] = [];
  const subscription = state$.subscribe((s) => snapshots.push(s));
  return {
    snapshots,
    states: () => snapshots.map((s) => s.state),
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

/** The wait that followed each failed attempt: nextAttemptAt minus the attempt's start, in order. */
export function waitsAfterAttempts<C>(snapshots: readonly ConnectionSnapshot<C>[]): number[] {
  const waits: number[] = [];
  let start: number | undefined;
  for (const s of snapshots) {
    if (s.state === 'CONNECTING') start = s.since;
    else if (s.state === 'TRANSIENT_FAILURE' && start !== undefined) {
      waits.push(s.nextAttemptAt - start);
      start = undefined;
    } else if (s.state === 'READY') start = undefined;
  }
  return waits;
}
