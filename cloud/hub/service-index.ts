import type { Endpoints, Service } from '../../shared/service-types.js';
import type { Node, Pod } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import { audienceOf, trimEndpoints, trimService, type Audience } from './network-objects.js';
import type { ReferenceAction } from './reference-index.js';
import { desiredOf, type Desired } from './resync.js';

export type RoutedKind = 'Service' | 'Endpoints';

/** A Service's name: the Service and the Endpoints under it. */
interface Named {
  namespace: string;
  name: string;
  Service?: Desired;
  Endpoints?: Desired;
}

const other = (kind: RoutedKind): RoutedKind => (kind === 'Service' ? 'Endpoints' : 'Service');
const trimmed = (kind: RoutedKind, object: Service | Endpoints): Desired => desiredOf(kind, kind === 'Service' ? trimService(object as Service) : trimEndpoints(object));

/**
 * [SYNC-19] Which nodes hold which Services and Endpoints (network-objects.ts audienceOf): the
 * nodes running a pod of the namespace, counted per node and namespace, or every Node. A pod
 * event costs O(1), but for the first pod of a namespace on a node (or its last), which wants
 * (or unwants) that namespace's ClusterIP Services; a Service or Endpoints event costs O(the
 * nodes it reaches), and a Service whose type moves its audience also moves its Endpoints; a
 * Node added or deleted costs O(the Services every node holds). A plan only: it returns what
 * the sessions are to do.
 */
export class ServiceIndex {
  /** Bound pods: their node and namespace. */
  private readonly pods = new Map<string, { node: string; namespace: string }>();
  /** namespace → node → how many of the namespace's pods it runs. */
  private readonly podsOf = new Map<string, Map<string, number>>();
  /** namespace → name → what the informers hold under that name. */
  private readonly names = new Map<string, Map<string, Named>>();
  /** Names whose audience is every node. */
  private readonly everyone = new Set<Named>();
  /** Every Node. */
  private readonly nodes = new Set<string>();

  onPodEvent(event: CacheEvent<Pod>): ReferenceAction[] {
    if (event.type === 'SYNCED') return [];
    const uid = event.object.metadata.uid;
    if (!uid) return [];
    const node = event.type === 'DELETED' ? undefined : event.object.spec.nodeName;
    const namespace = event.object.metadata.namespace ?? 'default';
    const before = this.pods.get(uid);
    if (before ? before.node === node && before.namespace === namespace : !node) return [];
    const actions: ReferenceAction[] = [];
    if (node) {
      this.pods.set(uid, { node, namespace });
      this.countPod(node, namespace, +1, actions);
    } else this.pods.delete(uid);
    if (before) this.countPod(before.node, before.namespace, -1, actions);
    return actions;
  }

  onObjectEvent(kind: RoutedKind, event: CacheEvent<Service | Endpoints>): ReferenceAction[] {
    if (event.type === 'SYNCED') return [];
    const { namespace = 'default', name = '', uid } = event.object.metadata;
    const named = this.named(namespace, name);
    const before = named[kind];
    if (event.type === 'DELETED' && before && before.ref.uid !== uid) return []; // an older life of the name
    const reachedBefore = this.reached(named);
    const audienceBefore = this.audience(named);
    named[kind] = event.type === 'DELETED' ? undefined : trimmed(kind, event.object);
    const audienceNow = this.audience(named);
    const reachedNow = audienceNow === audienceBefore ? reachedBefore : this.reached(named);
    this.keep(named, audienceNow);
    const actions: ReferenceAction[] = [];
    const now = named[kind];
    for (const node of reachedBefore.keys()) {
      if (before && (!reachedNow.has(node) || before.ref.uid !== now?.ref.uid)) actions.push({ type: 'unwant', node, uid: before.ref.uid });
    }
    if (now) for (const node of reachedNow.keys()) actions.push({ type: 'want', node, object: now });
    const sibling = named[other(kind)];
    if (sibling && audienceNow !== audienceBefore) moved(sibling, reachedBefore, reachedNow, actions);
    return actions;
  }

  /** A Node added holds what every node holds; one deleted holds it no more. */
  onNodeEvent(event: CacheEvent<Node>): ReferenceAction[] {
    if (event.type === 'SYNCED' || event.type === 'MODIFIED') return [];
    const node = event.object.metadata.name ?? '';
    const adding = event.type === 'ADDED';
    if (adding === this.nodes.has(node)) return [];
    if (adding) this.nodes.add(node);
    else this.nodes.delete(node);
    const actions: ReferenceAction[] = [];
    for (const named of this.everyone) {
      // A node that runs a pod of the namespace keeps a name its namespace would give it anyway: no matter here.
      for (const object of objectsOf(named)) actions.push(adding ? { type: 'want', node, object } : { type: 'unwant', node, uid: object.ref.uid });
    }
    return actions;
  }

  private countPod(node: string, namespace: string, delta: 1 | -1, actions: ReferenceAction[]): void {
    let counts = this.podsOf.get(namespace);
    if (!counts) this.podsOf.set(namespace, (counts = new Map()));
    const count = (counts.get(node) ?? 0) + delta;
    if (count > 0) counts.set(node, count);
    else counts.delete(node);
    if (counts.size === 0) this.podsOf.delete(namespace);
    if (count !== (delta > 0 ? 1 : 0)) return; // not the first (or last) of its namespace there
    for (const named of this.names.get(namespace)?.values() ?? []) {
      if (this.audience(named) !== 'namespace') continue;
      for (const object of objectsOf(named)) actions.push(delta > 0 ? { type: 'want', node, object } : { type: 'unwant', node, uid: object.ref.uid });
    }
  }

  /** Files the name under its audience; forgets it once neither object is left. */
  private keep(named: Named, audience: Audience): void {
    const gone = !named.Service && !named.Endpoints;
    if (audience === 'everyone' && !gone) this.everyone.add(named);
    else this.everyone.delete(named);
    if (!gone) return;
    const byName = this.names.get(named.namespace);
    byName?.delete(named.name);
    if (byName?.size === 0) this.names.delete(named.namespace);
  }

  private named(namespace: string, name: string): Named {
    let byName = this.names.get(namespace);
    if (!byName) this.names.set(namespace, (byName = new Map()));
    let named = byName.get(name);
    if (!named) byName.set(name, (named = { namespace, name }));
    return named;
  }

  private audience(named: Named): Audience {
    return audienceOf(named.namespace, named.name, named.Service?.object as Service | undefined);
  }

  /** The nodes a name reaches now (the index's own tables: read, not kept). */
  private reached(named: Named): NodeSet {
    const audience = this.audience(named);
    if (audience === 'everyone') return this.nodes;
    return (audience === 'namespace' && this.podsOf.get(named.namespace)) || EMPTY;
  }
}

/** A set of node names, or a map keyed by them. */
type NodeSet = Pick<ReadonlySet<string> | ReadonlyMap<string, unknown>, 'has' | 'keys'>;
const EMPTY: NodeSet = new Set<string>();
/** An object whose name changed audience: wanted where it reaches now only, unwanted where it reached before only. */
function moved(object: Desired, before: NodeSet, now: NodeSet, actions: ReferenceAction[]): void {
  for (const node of now.keys()) if (!before.has(node)) actions.push({ type: 'want', node, object });
  for (const node of before.keys()) if (!now.has(node)) actions.push({ type: 'unwant', node, uid: object.ref.uid });
}

const objectsOf = (named: Named): Desired[] => [named.Service, named.Endpoints].filter((o): o is Desired => o !== undefined);
