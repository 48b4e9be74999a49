import { sameSecret } from '../shared/digest.js';
import type { Credentials } from './apiserver/index.js';
import { CLOUD_USERNAME, type Authenticate } from './hub/index.js';
import type { NodeCredentials } from './join/index.js';
import { isLoopbackAddress } from './network.js';

/**
 * Who the embedded broker admits: the cloud hub with its own broker password (not an API
 * token: the cloud's loopback token and the admin's are refused here); a node with its own
 * credential (obtained by joining); and, from this machine only, a node with the shared edge
 * token (the demo, fleets, benchmarks).
 */
export function brokerAccess(credentials: Pick<Credentials, 'hub' | 'edge'>, nodes: Pick<NodeCredentials, 'verify'>): Authenticate {
  return async (user, password, peer) => {
    if (user === CLOUD_USERNAME) return sameSecret(password, credentials.hub) ? 'cloud' : false;
    if (sameSecret(password, credentials.edge) && isLoopbackAddress(peer.address)) return 'node';
    return (await nodes.verify(user, password)) ? 'node' : false;
  };
}
