/** Every `$ref` in an OpenAPI document (or part of one), as written: #/components/schemas/… or #/definitions/…. */
export function refsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' ? [v as string] : refsOf(v)));
}
