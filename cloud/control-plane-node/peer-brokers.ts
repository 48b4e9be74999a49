import type { Lease } from '../../shared/config-types.js';
import type { ApiClient } from '../client/client.js';
import { BROKER_URL_ANNOTATION, CLOUD_ANNOTATION, NODE_LEASE_NAMESPACE } from './node-object.js';

/**
 * Pure: the broker URLs the other clouds of the cluster mark on their control-plane node
 * Leases, by node name. Gone clouds' too, while their Node (and so its Lease) is there: an edge
 * keeps the list it joined with, and skips a broker that does not answer.
 */
export function peerBrokerUrlsOf(leases: readonly Lease[], ownCloud: string): string[] {
  return leases
    .filter((l) => l.metadata.annotations?.[CLOUD_ANNOTATION] !== ownCloud)
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!))
    .flatMap((l) => l.metadata.annotations?.[BROKER_URL_ANNOTATION] ?? []);
}

/** The other clouds' broker URLs, from the store. */
export async function peerBrokerUrls(api: ApiClient, ownCloud: string): Promise<string[]> {
  const leases = await api.list<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: NODE_LEASE_NAMESPACE });
  return peerBrokerUrlsOf(leases.items, ownCloud);
}
