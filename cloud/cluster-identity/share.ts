import type { Secret } from '../../shared/config-types.js';
import { isKedgeError, KedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { loadOrCreateLocalIdentity, mirrorIdentity, type ClusterIdentity } from '../apiserver/index.js';
import { IDENTITY_NAMESPACE, IDENTITY_SECRET, identityOf, identitySecret } from './identity-secret.js';

export interface ShareDeps {
  /** A client of the store with the cloud's rights (before the cloud's own credentials are known). */
  api: ApiClient;
  dataDir: string;
  now: number;
  logger: Logger;
}

const secretsRef = { resource: 'secrets', namespace: IDENTITY_NAMESPACE };
const where = `${IDENTITY_NAMESPACE}/${IDENTITY_SECRET}`;

/**
 * The cluster's identity, the same for every cloud on one store: the one in the store when
 * there is one (written into the data dir where it differs); otherwise the data dir's own
 * (made on its first start, as ever) put into the store with a create, so that of two clouds
 * starting at once one wins and the other loads the winner's. The store is read first and is
 * what counts: a start cut short anywhere starts again from it.
 */
export async function shareClusterIdentity(deps: ShareDeps): Promise<ClusterIdentity> {
  const stored = await readStored(deps.api);
  if (stored) return adopt(deps, stored);
  const local = await loadOrCreateLocalIdentity(deps.dataDir, deps.now, deps.logger);
  try {
    await deps.api.create<Secret>(secretsRef, identitySecret(local));
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) throw err;
    return adopt(deps, (await readStored(deps.api))!);
  }
  deps.logger.info(`kept this data dir's CA and credentials in the store as ${where}: clouds started on this store share them`, { dataDir: deps.dataDir });
  return local;
}

async function readStored(api: ApiClient): Promise<ClusterIdentity | undefined> {
  const secret = await getOrUndefined(() => api.get<Secret>({ ...secretsRef, name: IDENTITY_SECRET }));
  if (!secret) return undefined;
  try {
    return identityOf(secret);
  } catch (err) {
    // Never replaced silently: a new CA and tokens would cut off every kubeconfig and edge of the cluster.
    throw new KedgeError('Internal', `${(err as Error).message}: restore it from a backup, or delete it to make this cloud's identity the cluster's`);
  }
}

async function adopt(deps: ShareDeps, identity: ClusterIdentity): Promise<ClusterIdentity> {
  const result = await mirrorIdentity(deps.dataDir, identity);
  if (result === 'new') deps.logger.info(`took the cluster's CA and credentials from the store (${where})`, { dataDir: deps.dataDir });
  if (result === 'replaced') {
    deps.logger.warn(`this data dir's CA and credentials differed from the cluster's (${where}): replaced by the cluster's; kubeconfigs and join tokens made from the old ones no longer work`, { dataDir: deps.dataDir });
  }
  return identity;
}
