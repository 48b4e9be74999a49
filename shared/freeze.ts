/** Deep-freezes a JSON value, so that what one owner shares with many readers cannot change under them. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    const o = value as Record<string, unknown>;
    for (const key in o) if (Object.hasOwn(o, key)) deepFreeze(o[key]); // no array of values per object
  }
  return value;
}
