import type { ResourceDef, SubresourceDef } from '../kinds/registry.js';
import { ref, schemaName, type GroupVersionKind, type Schema } from '../schemas/schema-generator.js';
import { kindOf, patchName, statusName } from './openapi-schemas.js';

/**
 * The `paths` of an OpenAPI v3 group-version document, generated from the resource table the
 * way kube-apiserver lays them out: collection, item, all-namespaces list, subresources.
 *
 * What kubectl 1.32 reads here: its field-validation check takes the first PATCH operation
 * whose `x-kubernetes-group-version-kind` is the manifest's kind and looks for a
 * `fieldValidation` query parameter; finding it, validated apply/create/replace leave the
 * validation to the server. So every PATCH operation that carries a GVK lists that parameter.
 *
 * PATCH deliberately does not list application/strategic-merge-patch+json, although the
 * server accepts it: when it is listed, client-side apply builds its strategic merge patch
 * from these schemas, which carry no merge keys (client-node's models have none; with open schemas kubectl prints
 * "warning: error calculating patch from openapi v3 spec"; with fields but no merge keys it
 * would replace whole lists). Without it, kubectl uses its compiled-in Go types, which carry
 * the real merge keys, and still sends a strategic merge patch for every built-in kind.
 */

type Action = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type PathItem = Partial<Record<Method, Schema>> & { parameters?: Schema[] };

const methodOf: Record<Action, Method> = {
  get: 'get', list: 'get', create: 'post', update: 'put', patch: 'patch', delete: 'delete', deletecollection: 'delete',
};
const operationWord: Record<Action, string> = {
  get: 'read', list: 'list', create: 'create', update: 'replace', patch: 'patch', delete: 'delete', deletecollection: 'deleteCollection',
};

function query(name: string, description: string, type = 'string'): Schema {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

function pathParam(name: string, description: string): Schema {
  return { name, in: 'path', required: true, description, schema: { type: 'string', uniqueItems: true } };
}

/** The query parameters the server understands, per action (fieldManager is accepted and recorded nowhere yet). */
const writeParams = [
  query('fieldManager', 'A name for the actor making these changes.'),
  query('fieldValidation', 'Ignore, Warn or Strict: what to do with unknown or duplicate fields. kedge validates every object on the server.'),
  query('dryRun', 'All: admit and validate the write, store nothing, answer what would have been stored.'),
];
const listParams = [
  query('labelSelector', 'Selects objects by their labels (k=v, k!=v).'),
  query('fieldSelector', 'Selects objects by fields (=, ==, !=).'),
  query('resourceVersion', 'List: at least this fresh. Watch: events after this version.'),
  query('watch', 'Stream ADDED, MODIFIED and DELETED events.', 'boolean'),
  query('allowWatchBookmarks', 'Send BOOKMARK events.', 'boolean'),
  query('timeoutSeconds', 'Ends a watch after this many seconds.', 'integer'),
  query('limit', 'Accepted; the whole list is returned in one page.', 'integer'),
];
const deleteParams = [
  query('gracePeriodSeconds', 'Seconds before the object is deleted; 0 deletes at once.', 'integer'),
  query('propagationPolicy', 'Orphan, Background or Foreground: what happens to dependents.'),
  query('dryRun', 'All: check the deletion, delete nothing.'),
];
const paramsOf: Record<Action, Schema[]> = {
  get: [], list: listParams, create: writeParams, update: writeParams, patch: writeParams, delete: deleteParams, deletecollection: [...listParams, ...deleteParams],
};

const patchTypes = ['application/json-patch+json', 'application/merge-patch+json'];

interface OperationTarget {
  def: ResourceDef;
  /** The kind the request and response bodies are in (a subresource may differ: Scale). */
  gvk: GroupVersionKind;
  scopeWord: string;
  /** The subresource's name, or '' for the kind itself. */
  suffix: string;
  /** Appended to the operationId: ForAllNamespaces. */
  idTail?: string;
  /** pods/log answers plain text. */
  text?: boolean;
}

function operation(action: Action, t: OperationTarget): Schema {
  const { gvk } = t;
  const kindWord = action === 'list' || action === 'deletecollection' ? `${gvk.kind} collection` : gvk.kind;
  const body = action === 'list' ? ref(schemaName({ ...gvk, kind: `${gvk.kind}List` })) : action.startsWith('delete') ? ref(statusName) : ref(schemaName(gvk));
  const content = t.text ? { 'text/plain': { schema: { type: 'string' } } } : { 'application/json': { schema: body } };
  const op: Schema = {
    description: `${operationWord[action]} ${kindWord}${t.suffix ? ` (${t.suffix} subresource)` : ''}`,
    operationId: `${operationWord[action]}${groupWord(t.def)}${t.scopeWord}${t.def.kind}${pascal(t.suffix)}${t.idTail ?? ''}`,
    parameters: paramsOf[action],
    responses: action === 'create' ? { '200': { description: 'OK', content }, '201': { description: 'Created', content } } : { '200': { description: 'OK', content } },
    'x-kubernetes-action': action === 'create' ? 'post' : action === 'update' ? 'put' : action,
    'x-kubernetes-group-version-kind': gvk,
  };
  if (action === 'create' || action === 'update') op.requestBody = { required: true, content: { 'application/json': { schema: ref(schemaName(gvk)) } } };
  if (action === 'patch') op.requestBody = { required: true, content: Object.fromEntries(patchTypes.map((m) => [m, { schema: ref(patchName) }])) };
  return op;
}

function pathItem(actions: Action[], t: OperationTarget, parameters: Schema[]): PathItem {
  const item: PathItem = {};
  for (const action of actions) item[methodOf[action]] = operation(action, t);
  if (parameters.length) item.parameters = parameters;
  return item;
}

const subresourceActions = new Set<string>(['get', 'create', 'update', 'patch', 'delete']);

function subresourceTarget(def: ResourceDef, sub: SubresourceDef, scopeWord: string): OperationTarget {
  const gvk = { group: sub.group ?? def.group, version: sub.version ?? def.version, kind: sub.kind ?? def.kind };
  return { def, gvk, scopeWord, suffix: sub.name, text: sub.name === 'log' };
}

/** Every path of one kind: collection, item, all-namespaces list, subresources. */
export function resourcePaths(def: ResourceDef): Record<string, PathItem> {
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
  const item = `${collection}/{name}`;
  const scopeWord = def.namespaced ? 'Namespaced' : '';
  const target: OperationTarget = { def, gvk: kindOf(def), scopeWord, suffix: '' };
  const ns = def.namespaced ? [pathParam('namespace', 'The namespace of the objects.')] : [];
  const named = [pathParam('name', `The name of the ${def.kind}.`), ...ns];
  const computed = def.source !== undefined; // read-only kinds computed in memory
  const paths: Record<string, PathItem> = {
    [collection]: pathItem(computed ? ['list'] : ['list', 'create', 'deletecollection'], target, ns),
    [item]: pathItem(computed ? ['get'] : ['get', 'update', 'patch', 'delete'], target, named),
  };
  if (def.namespaced) paths[`${base}/${def.resource}`] = pathItem(['list'], { ...target, scopeWord: '', idTail: 'ForAllNamespaces' }, []);
  for (const sub of def.subresources) {
    if (sub.connect) continue;
    const actions = sub.verbs.filter((v) => subresourceActions.has(v)) as Action[];
    paths[`${item}/${sub.name}`] = pathItem(actions, subresourceTarget(def, sub, scopeWord), named);
  }
  return paths;
}

/** apps → Apps, coordination.k8s.io → Coordination, sync.kedge.io → SyncKedgeIo; core → Core; then the version. */
function groupWord(def: ResourceDef): string {
  const group = def.group === '' ? 'core' : def.group.replace(/\.k8s\.io$/, '');
  return pascal(group) + pascal(def.version);
}

function pascal(s: string): string {
  return s.split(/[.\-_]/).map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : '')).join('');
}
