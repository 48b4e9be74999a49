import { itemKey } from './field-schema.js';
import { isMap } from './field-walk.js';

/** Removes the field, list item or set value at a field-set path from `obj`, if it is there. */

type JsonMap = Record<string, unknown>;

export function removePath(obj: JsonMap, path: readonly string[]): void {
  let parent: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    const at = locate(parent, path[i]!);
    if (at === undefined) return;
    if (i === path.length - 1) {
      if (Array.isArray(parent)) parent.splice(at as number, 1);
      else delete (parent as JsonMap)[at as string];
      return;
    }
    parent = (parent as Record<string | number, unknown>)[at];
  }
}

/** Where a path element sits in `node`: a field name, or the index of a list item. */
function locate(node: unknown, element: string): string | number | undefined {
  const body = element.slice(2);
  if (element.startsWith('f:')) return isMap(node) && body in node ? body : undefined;
  if (!Array.isArray(node)) return undefined;
  if (element.startsWith('i:')) return Number(body) < node.length ? Number(body) : undefined;
  if (element.startsWith('v:')) {
    const at = node.findIndex((v) => JSON.stringify(v) === body);
    return at >= 0 ? at : undefined;
  }
  const keys = Object.keys(JSON.parse(body) as JsonMap);
  const at = node.findIndex((item) => isMap(item) && itemKey(item, keys) === element);
  return at >= 0 ? at : undefined;
}
