import { KedgeError } from '../../../shared/errors.js';
import { patchStrategies } from './patch-strategies.js';
import { strategicMerge } from './strategic-merge.js';

/** JSON merge patch (RFC 7386) and JSON patch (RFC 6902) over plain JSON values. */
type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386: objects merge recursively, null deletes, everything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

/** RFC 6902: add, remove, replace, move, copy, test. Fails with Invalid/Conflict as kube-apiserver does. */
export function jsonPatch(target: Json, operations: Json): Json {
  if (!Array.isArray(operations)) throw new KedgeError('BadRequest', 'json patch must be an array of operations');
  let doc = structuredClone(target);
  for (const raw of operations as Operation[]) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new KedgeError('BadRequest', `invalid json patch operation: ${JSON.stringify(raw)}`);
    }
    doc = applyOperation(doc, raw);
  }
  return doc;
}

function applyOperation(doc: Json, op: Operation): Json {
  switch (op.op) {
    case 'add':
      return add(doc, op.path, structuredClone(op.value));
    case 'remove':
      return remove(doc, op.path);
    case 'replace':
      return add(remove(doc, op.path), op.path, structuredClone(op.value));
    case 'move': {
      const value = get(doc, from(op));
      return add(remove(doc, from(op)), op.path, value);
    }
    case 'copy':
      return add(doc, op.path, structuredClone(get(doc, from(op))));
    case 'test':
      if (JSON.stringify(get(doc, op.path)) !== JSON.stringify(op.value)) {
        throw new KedgeError('Invalid', `the server rejected our request due to an error in our request: testing value ${op.path} failed`);
      }
      return doc;
    default:
      throw new KedgeError('BadRequest', `unknown json patch operation: ${op.op}`);
  }
}

function from(op: Operation): string {
  if (typeof op.from !== 'string') throw new KedgeError('BadRequest', `json patch ${op.op} needs "from"`);
  return op.from;
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new KedgeError('BadRequest', `invalid json pointer: ${pointer}`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(doc: Json, pointer: string): Json {
  let node = doc;
  for (const t of tokens(pointer)) {
    node = child(node, t, pointer);
  }
  return node;
}

function child(node: Json, token: string, pointer: string): Json {
  if (Array.isArray(node)) {
    const i = Number(token);
    if (!Number.isInteger(i) || i < 0 || i >= node.length) throw missing(pointer);
    return node[i];
  }
  if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) return node[token];
  throw missing(pointer);
}

function missing(pointer: string): KedgeError {
  return new KedgeError('Invalid', `the server rejected our request due to an error in our request: path ${pointer} does not exist`);
}

/** Returns the parent container of `pointer` and the last token, cloning nothing (doc is already a copy). */
function parentOf(doc: Json, pointer: string): { parent: Json; last: string } {
  const ts = tokens(pointer);
  if (ts.length === 0) return { parent: undefined, last: '' };
  const last = ts.pop()!;
  let node = doc;
  for (const t of ts) node = child(node, t, pointer);
  return { parent: node, last };
}

function add(doc: Json, pointer: string, value: Json): Json {
  if (pointer === '') return value;
  const { parent, last } = parentOf(doc, pointer);
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw missing(pointer);
    parent.splice(i, 0, value);
  } else if (isObject(parent)) parent[last] = value;
  else throw missing(pointer);
  return doc;
}

function remove(doc: Json, pointer: string): Json {
  if (pointer === '') return undefined;
  const { parent, last } = parentOf(doc, pointer);
  child(parent, last, pointer);
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete (parent as Record<string, Json>)[last];
  return doc;
}

export type PatchKind = 'merge' | 'strategic' | 'json';

/** Content-Type → patch kind; undefined for types the server does not support. */
export function patchKindOf(contentType: string): PatchKind | undefined {
  if (contentType === 'application/merge-patch+json') return 'merge';
  if (contentType === 'application/strategic-merge-patch+json') return 'strategic';
  if (contentType === 'application/json-patch+json') return 'json';
  return undefined;
}

/**
 * Applies a patch document to an object of `kind`. A strategic merge patch uses the kind's
 * merge keys (patch-strategies.ts); a kind without a schema (a custom kind) gets a merge
 * patch with the `$`-directives dropped, so they are never stored.
 */
export function applyPatch(kind: PatchKind, target: Json, patch: Json, objectKind?: string): Json {
  if (kind === 'json') return jsonPatch(target, patch);
  if (!isObject(patch)) throw new KedgeError('BadRequest', 'a merge patch must be a JSON object');
  if (kind === 'merge') return mergePatch(target, patch);
  const schema = objectKind === undefined ? undefined : patchStrategies[objectKind];
  return schema ? strategicMerge(target, patch, schema) : mergePatch(target, dropDirectives(patch));
}

function dropDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(dropDirectives);
  if (!isObject(value)) return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith('$')) out[k] = dropDirectives(v);
  return out;
}
