import type { Authenticate } from '../../cloud/hub/broker.js';
import { identify, ownsClientId, type BrokerIdentity } from '../../cloud/hub/acl.js';
import { MAX_KEEPALIVE_SECONDS } from '../../cloud/hub/connection-guard.js';
import { CONNACK, type ClientPacket } from './packets.js';

type ConnectPacket = Extract<ClientPacket, { cmd: 'connect' }>;

/** Where a client connecting in this process comes from: loopback, as far as credentials go. */
const PEER = { address: '127.0.0.1' };

export interface AdmissionDeps {
  authenticate: Authenticate;
  /** Nodes wait (CONNACK 3) while no cloud client listens to every node's up topic. */
  nodesMustWait(): boolean;
  refused(reason: string, message: string, clientId: string): void;
}

/**
 * As the embedded broker's Admission: a bounded keepalive, a good credential, then the client
 * id of that credential. Resolves to who the client is, or to the CONNACK return code refusing it.
 */
export async function admit(deps: AdmissionDeps, connect: ConnectPacket): Promise<BrokerIdentity | number> {
  const { clientId, username, keepaliveSeconds } = connect;
  if (keepaliveSeconds < 1 || keepaliveSeconds > MAX_KEEPALIVE_SECONDS) {
    deps.refused('keepalive', `keepalive ${keepaliveSeconds} s is not from 1 to ${MAX_KEEPALIVE_SECONDS} s`, clientId);
    return CONNACK.identifierRejected;
  }
  let verdict: Awaited<ReturnType<Authenticate>>;
  try {
    verdict = await deps.authenticate(username, connect.password, PEER);
  } catch (err) {
    deps.refused('auth-error', `authentication failed: ${err instanceof Error ? err.message : String(err)}`, clientId);
    return CONNACK.badCredentials;
  }
  const who = identify(username, verdict);
  if (!who) {
    deps.refused('bad-credentials', 'bad user name or password', clientId);
    return CONNACK.badCredentials;
  }
  if (!ownsClientId(who, clientId)) {
    deps.refused('client-id', `client id "${clientId}" does not belong to ${who.role === 'cloud' ? 'the cloud' : `node ${who.node}`}`, clientId);
    return CONNACK.identifierRejected;
  }
  if (who.role === 'node' && deps.nodesMustWait()) {
    deps.refused('no-hub-yet', 'no cloud hub is listening yet', clientId);
    return CONNACK.unavailable;
  }
  return who;
}
