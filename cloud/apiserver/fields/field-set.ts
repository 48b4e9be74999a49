/**
 * A set of field paths as structured-merge-diff keeps it, in the shape of its fieldsV1
 * encoding: a tree whose edges are path elements (`f:<field>`, `k:<json of a list item's
 * keys>`, `v:<json of a set's value>`, `i:<index>`) and whose nodes are members of the set
 * when marked (`.` in fieldsV1 for a node that also has children).
 */
export interface FieldSet {
  member: boolean;
  readonly children: Map<string, FieldSet>;
}

export function emptySet(): FieldSet {
  return { member: false, children: new Map() };
}

export function isEmpty(set: FieldSet): boolean {
  return !set.member && set.children.size === 0;
}

/** The node at `element` below `set`, created when missing. */
export function childOf(set: FieldSet, element: string): FieldSet {
  let child = set.children.get(element);
  if (!child) {
    child = emptySet();
    set.children.set(element, child);
  }
  return child;
}

/** Marks the path as a member, creating the nodes on the way. */
export function insert(set: FieldSet, path: readonly string[]): void {
  let node = set;
  for (const element of path) node = childOf(node, element);
  node.member = true;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member || b.member, children: new Map(a.children) };
  for (const [element, child] of b.children) {
    const mine = out.children.get(element);
    out.children.set(element, mine ? union(mine, child) : child);
  }
  return out;
}

/** The members of `a` that are not members of `b`; `a` itself when `b` takes none of them (sets are not changed once built). */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  const member = a.member && !b.member;
  let children: Map<string, FieldSet> | undefined; // copied at the first child that changes
  for (const [element, child] of a.children) {
    const other = b.children.get(element);
    if (!other) continue;
    const kept = difference(child, other);
    if (kept === child) continue;
    children ??= new Map(a.children);
    if (isEmpty(kept)) children.delete(element);
    else children.set(element, kept);
  }
  if (!children && member === a.member) return a;
  return { member, children: children ?? a.children };
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { member: a.member && b.member, children: new Map() };
  for (const [element, child] of a.children) {
    const other = b.children.get(element);
    if (!other) continue;
    const both = intersection(child, other);
    if (!isEmpty(both)) out.children.set(element, both);
  }
  return out;
}

/** Whether `set` has a member at `path` or anywhere below it. */
export function touches(set: FieldSet, path: readonly string[]): boolean {
  let node: FieldSet | undefined = set;
  for (const element of path) {
    node = node.children.get(element);
    if (!node) return false;
  }
  return !isEmpty(node);
}

/** Every member's path, parents before children. */
export function members(set: FieldSet, prefix: string[] = []): string[][] {
  const out: string[][] = set.member ? [prefix] : [];
  for (const [element, child] of sortedChildren(set)) out.push(...members(child, [...prefix, element]));
  return out;
}

/** The path as structured-merge-diff prints it: `.spec.containers[name="web"].image`. */
export function pathString(path: readonly string[]): string {
  return path.map(elementString).join('');
}

function elementString(element: string): string {
  const body = element.slice(2);
  switch (element[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const keys = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    }
    case 'v':
      return `[=${body}]`;
    default:
      return `[${body}]`;
  }
}

const ELEMENT_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function sortedChildren(set: FieldSet): [string, FieldSet][] {
  return [...set.children].sort(([a], [b]) => (ELEMENT_RANK[a.charAt(0)] ?? 4) - (ELEMENT_RANK[b.charAt(0)] ?? 4) || (a < b ? -1 : a > b ? 1 : 0));
}

/** fieldsV1 as kube serializes it: `.` first, then the children in structured-merge-diff's order. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (set.member && set.children.size > 0) out['.'] = {};
  for (const [element, child] of sortedChildren(set)) out[element] = toFieldsV1(child);
  return out;
}

/** Reads fieldsV1; undefined when it is not a fieldsV1 tree. */
export function fromFieldsV1(value: unknown, top = true): FieldSet | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  const set: FieldSet = { member: !top && entries.length === 0, children: new Map() };
  for (const [element, child] of entries) {
    if (element === '.') {
      set.member = true;
      continue;
    }
    if (!/^[fkvi]:/.test(element)) return undefined;
    const node = fromFieldsV1(child, false);
    if (!node) return undefined;
    set.children.set(element, node);
  }
  return set;
}
