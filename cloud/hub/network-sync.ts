import type { Subscription } from 'rxjs';
import type { Endpoints, Service } from '../../shared/service-types.js';
import type { KubeObject, Node } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import type { Informers } from '../informer/shared-informers.js';
import type { OwnNodes } from './own-nodes.js';
import type { ReferenceAction } from './reference-index.js';
import type { RoutedKind, ServiceIndex } from './service-index.js';
import type { Sessions } from './sessions.js';

const RESOURCES: readonly [RoutedKind, string][] = [
  ['Service', 'services'],
  ['Endpoints', 'endpoints'],
];

/**
 * [SYNC-19] Follows Services, Endpoints and Nodes (through the hub's own informers) into the
 * service index and each node's own Node, and what they plan into the sessions. Pods reach the
 * service index through the hub's pod handler, which orders its wants before the pod. `synced`
 * resolves once every first list is in: hellos are answered only after.
 */
export function followNetworkObjects(informers: Informers, services: ServiceIndex, ownNodes: OwnNodes, sessions: Sessions): { subscriptions: Subscription[]; synced: Promise<unknown> } {
  const followed = [
    ...RESOURCES.map(([kind, resource]) => followListed<Service | Endpoints>(informers, resource, sessions, (event) => services.onObjectEvent(kind, event))),
    followListed<Node>(informers, 'nodes', sessions, (event) => [...services.onNodeEvent(event), ...ownNodes.onNodeEvent(event)]),
  ];
  return { subscriptions: followed.map((f) => f.subscription), synced: Promise.all(followed.map((f) => f.listed)) };
}

/** A resource's events, planned into the sessions; `listed` resolves once its first list is in. */
function followListed<T extends KubeObject>(informers: Informers, resource: string, sessions: Sessions, plan: (event: CacheEvent<T>) => ReferenceAction[]): { subscription: Subscription; listed: Promise<void> } {
  let done!: () => void;
  const listed = new Promise<void>((resolve) => (done = resolve));
  const subscription = informers.of<T>({ resource }).subscribe((event) => {
    sessions.onReferences(plan(event));
    if (event.type === 'SYNCED') done();
  });
  return { subscription, listed };
}
