/**
 * Durations for people: the one way redialer's messages, trace details and logs show a number of
 * milliseconds (`340 ms`, `1.6 s`, `2 min 5 s`), never raw timer values with float noise.
 * @module
 */

/**
 * A duration in milliseconds as a person reads it, rounded to the nearest shown step: under a second
 * in whole ms (`340 ms`), under 10 s to a tenth without a trailing `.0` (`1.6 s`, `2 s`), under a
 * minute in whole seconds (`24 s`), under an hour in minutes and seconds (`2 min 5 s`, `2 min`), then
 * in hours and minutes (`1 h 3 min`, `1 h`). A value that rounds up to the next step is shown in it
 * (999.6 → `1 s`, 59 999.5 → `1 min`). A negative duration (and -0) is `0 ms`, Infinity `for ever`,
 * NaN `an unknown time`.
 */
export function formatDuration(ms: number): string {
  if (!(ms < Infinity)) return ms > 0 ? 'for ever' : 'an unknown time';
  // Math.round(ms) < 1000 exactly when ms < 999.5, and Math.round(ms / 100) < 100 when ms < 9950.
  if (ms < 999.5) return `${String(Math.max(0, Math.round(ms)))} ms`;
  const s = ms < 9950 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000);
  if (s < 60) return `${String(s)} s`;
  const [n, big, small]: [number, string, string] = s < 3600 ? [s, 'min', 's'] : [Math.round(ms / 60_000), 'h', 'min'];
  const rest = n % 60;
  return `${String(Math.floor(n / 60))} ${big}${rest ? ` ${String(rest)} ${small}` : ''}`;
}

/**
 * When something happens, `ms` from now: `in 1.6 s` (as {@link formatDuration} shows `ms`), `now`
 * for a wait that is over or shows as `0 ms`, `never` for Infinity.
 */
export function formatIn(ms: number): string {
  const text = formatDuration(ms);
  return ms === Infinity ? 'never' : text === '0 ms' ? 'now' : `in ${text}`;
}
