import { randomUUID } from 'node:crypto';
import { concat, defer, from, map, mergeMap, type Observable } from 'rxjs';
import type { ApiClient, ApiWatchEvent, ListOptions, PatchType, ResourceRef, WatchOptions } from '../../cloud/client/client.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { KeyValue } from '../../cloud/store/store.js';
import { KedgeError } from '../../shared/errors.js';
import type { KubeObject, ObjectList, Pod } from '../../shared/types.js';

/**
 * TEST DOUBLE. A tiny in-memory ApiClient over MemoryStore: enough of get/list/create/
 * replace/patch(merge)/delete/watch for pods, nodes, ConfigMaps, Secrets, Services and Endpoints, plus pods/status, nodes/status and
 * pods/binding. No authentication, admission, validation or selectors.
 */
const NAMESPACED = new Set(['pods', 'configmaps', 'secrets', 'services', 'endpoints']);
const KINDS: Record<string, string> = { pods: 'Pod', nodes: 'Node', namespaces: 'Namespace', configmaps: 'ConfigMap', secrets: 'Secret', services: 'Service', endpoints: 'Endpoints' };

interface Binding extends KubeObject {
  target: { name: string };
}

export class FakeApiClient implements ApiClient {
  /** Every call, as "verb resource[/subresource] name", for assertions. */
  readonly calls: string[] = [];

  constructor(readonly store: MemoryStore = new MemoryStore()) {}

  async get<T extends KubeObject>(ref: ResourceRef): Promise<T> {
    this.calls.push(`get ${describe(ref)}`);
    return toObject<T>(await this.existing(ref));
  }

  async list<T extends KubeObject>(ref: ResourceRef, _options?: ListOptions): Promise<ObjectList<T>> {
    this.calls.push(`list ${describe(ref)}`);
    const { items, revision } = await this.store.list(prefixOf(ref));
    return { apiVersion: 'v1', kind: `${KINDS[ref.resource] ?? 'Object'}List`, metadata: { resourceVersion: String(revision) }, items: items.map((kv) => toObject<T>(kv)) };
  }

  async create<T extends KubeObject>(ref: ResourceRef, body: T): Promise<T> {
    this.calls.push(`create ${describe(ref)}`);
    if (ref.subresource === 'binding') return this.bind(ref, body as unknown as Binding) as unknown as T;
    const namespace = NAMESPACED.has(ref.resource) ? (ref.namespace ?? body.metadata.namespace ?? 'default') : undefined;
    const metadata = { ...body.metadata, namespace, uid: randomUUID(), creationTimestamp: new Date(0).toISOString() };
    delete metadata.resourceVersion;
    if (!namespace) delete metadata.namespace;
    const object = { ...body, apiVersion: body.apiVersion ?? 'v1', kind: body.kind ?? KINDS[ref.resource], metadata };
    return toObject<T>(await this.store.create(keyOf({ ...ref, namespace, name: metadata.name }), clone(object)));
  }

  async replace<T extends KubeObject>(ref: ResourceRef, body: T): Promise<T> {
    this.calls.push(`replace ${describe(ref)}`);
    const current = await this.existing(ref);
    const expected = body.metadata.resourceVersion ? Number(body.metadata.resourceVersion) : undefined;
    if (expected !== undefined && expected !== current.modRevision) throw new KedgeError('Conflict', `${describe(ref)} has changed`);
    const old = current.value as Record<string, unknown> & KubeObject;
    const next =
      ref.subresource === 'status'
        ? { ...old, status: (body as unknown as { status?: unknown }).status }
        : { ...body, status: old.status, metadata: { ...body.metadata, uid: old.metadata.uid, creationTimestamp: old.metadata.creationTimestamp } };
    return toObject<T>(await this.store.update(current.key, clone(next), current.modRevision));
  }

  async patch<T extends KubeObject>(ref: ResourceRef, patch: unknown, type: PatchType = 'merge'): Promise<T> {
    this.calls.push(`patch ${describe(ref)}`);
    if (type !== 'merge') throw new KedgeError('UnsupportedMediaType', `fake supports merge patches only, not ${type}`);
    const current = await this.existing(ref);
    const old = current.value as Record<string, unknown>;
    const patched = mergePatch(old, patch) as Record<string, unknown>;
    const next = ref.subresource === 'status' ? { ...old, status: patched.status } : { ...patched, status: old.status };
    return toObject<T>(await this.store.update(current.key, clone(next), current.modRevision));
  }

  async delete(ref: ResourceRef): Promise<unknown> {
    this.calls.push(`delete ${describe(ref)}`);
    return toObject(await this.store.delete(keyOf(ref)));
  }

  watch<T extends KubeObject>(ref: ResourceRef, options: WatchOptions = {}): Observable<ApiWatchEvent<T>> {
    const prefix = prefixOf(ref);
    const fromStart = !options.resourceVersion || options.resourceVersion === '0';
    const follow = (after: number): Observable<ApiWatchEvent<T>> =>
      this.store.watch(prefix, after).pipe(
        map((e) => ({
          type: e.type === 'delete' ? 'DELETED' : e.prevKv ? 'MODIFIED' : 'ADDED',
          object: toObject<T>(e.type === 'delete' ? { ...e.prevKv!, modRevision: e.kv.modRevision } : e.kv),
        })),
      );
    if (!fromStart) return follow(Number(options.resourceVersion));
    return defer(() => from(this.store.list(prefix))).pipe(
      mergeMap(({ items, revision }) => concat(from(items.map((kv) => ({ type: 'ADDED' as const, object: toObject<T>(kv) }))), follow(revision))),
    );
  }

  private async bind(ref: ResourceRef, binding: Binding): Promise<Binding> {
    const current = await this.existing({ resource: 'pods', namespace: ref.namespace, name: ref.name });
    const pod = current.value as Pod;
    if (pod.spec.nodeName) throw new KedgeError('Conflict', `pod ${ref.name} is already assigned to node ${pod.spec.nodeName}`);
    await this.store.update(current.key, clone({ ...pod, spec: { ...pod.spec, nodeName: binding.target.name } }), current.modRevision);
    return binding;
  }

  private async existing(ref: ResourceRef): Promise<KeyValue> {
    const kv = await this.store.get(keyOf(ref));
    if (!kv) throw new KedgeError('NotFound', `${ref.resource} "${ref.name}" not found`);
    return kv;
  }
}

function keyOf(ref: ResourceRef): string {
  if (!ref.name) throw new KedgeError('BadRequest', 'name is required');
  return `${prefixOf(ref)}${ref.name}`;
}

function prefixOf(ref: ResourceRef): string {
  if (!NAMESPACED.has(ref.resource)) return `/registry/${ref.resource}/`;
  return ref.namespace ? `/registry/${ref.resource}/${ref.namespace}/` : `/registry/${ref.resource}/`;
}

function describe(ref: ResourceRef): string {
  return `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name ?? ''}`.trim();
}

function toObject<T extends KubeObject>(kv: KeyValue): T {
  const value = clone(kv.value) as T;
  value.metadata = { ...value.metadata, resourceVersion: String(kv.modRevision) };
  return value;
}

const clone = <V>(v: V): V => structuredClone(v);

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
