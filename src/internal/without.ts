/** A shallow copy of `object` without `keys` (to pass an options object on minus the caller's own keys). */
export function without<T extends object, K extends keyof T>(object: T, ...keys: readonly K[]): Omit<T, K> {
  const copy = { ...object } as Record<PropertyKey, unknown>;
  for (const key of keys) Reflect.deleteProperty(copy, key);
  return copy as Omit<T, K>;
}
