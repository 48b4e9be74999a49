import { KedgeError } from '../shared/errors.js';
import type { Lease } from '../shared/config-types.js';
import type { Pod } from '../shared/types.js';
import { FORWARDED_HEADER, type ApiRequest, type ForwardTarget } from './apiserver/index.js';
import { getOrUndefined, type ApiClient } from './client/client.js';
import { API_URL_ANNOTATION, HUB_LOCK } from './leaderelection/cloud-election.js';

export interface HubForwardingDeps {
  /** The cloud's own client. */
  api: ApiClient;
  /** This cloud's identity in the hub's Lease. */
  identity: string;
  /** Whether this cloud's hub runs, or is starting because it leads: then it serves the request itself. */
  servesHere(): boolean;
  /** Why this cloud's hub serves no edge (the standby message). */
  whyNot(): string;
  /** The cloud's own node: its pods' logs are the cloud's own, served here. */
  controlPlaneNode?: string;
}

/**
 * Where a standby cloud sends pods' logs and streams, and the edges' usage (`kubectl top`): the API of the cloud that holds the hub's
 * Lease, as that cloud marks it on the Lease. A request forwarded already is not forwarded
 * again (a loop while the Lease changes hands): it is answered Unavailable.
 */
export function hubForwarding(deps: HubForwardingDeps): (req: ApiRequest, pod?: Pod) => Promise<ForwardTarget | undefined> {
  return async (req, pod) => {
    if (deps.servesHere() || (pod !== undefined && pod.spec.nodeName === deps.controlPlaneNode)) return undefined;
    const standby = deps.whyNot();
    if (req.headers[FORWARDED_HEADER] !== undefined) throw new KedgeError('Unavailable', `${standby}: a forwarded request is not forwarded again`);
    const lease = await getOrUndefined(() => deps.api.get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', ...HUB_LOCK }));
    const holder = lease?.spec?.holderIdentity;
    const url = lease?.metadata.annotations?.[API_URL_ANNOTATION];
    if (!holder || holder === deps.identity || !url) throw new KedgeError('Unavailable', `${standby}: the leader's API URL is unknown`);
    return { url: new URL(url), standby };
  };
}
