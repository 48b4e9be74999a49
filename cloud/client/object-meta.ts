/** How Kubernetes writes metadata values, for whoever writes or compares objects: client and server alike. */

/** RFC 3339 without fractions, as Kubernetes writes timestamps. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** JSON with object keys sorted, so that key order does not count as a change. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
  );
}

/**
 * `value` without what Go holds as a zero value in a pointer, slice or map: null, [] and {}
 * (recursively; an item of a list that empties stays as `{}`). Go omits them, so two objects
 * that differ only there are the same (apimachinery's Semantic.DeepEqual).
 */
export function withoutEmpty(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => withoutEmpty(v) ?? {});
    return items.length > 0 ? items : undefined;
  }
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, withoutEmpty(v)] as const).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
