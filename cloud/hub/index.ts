export { startBroker, type Authenticate, type BrokerHandle, type BrokerOptions } from './broker.js';
export { startCloudHub, type CloudHubHandle, type CloudHubOptions, type HubStats } from './cloud-hub.js';
export { HUB_REJECTED } from './inbound-handler.js';
export { MemoryAckLedger, type AckLedger } from './ack-ledger.js';
export { NodeSyncLedger, type NodeSyncLedgerOptions } from './nodesync-ledger.js';
export { CLOUD_USERNAME, cloudClientId, type BrokerIdentity, type BrokerRole } from './acl.js';
export { planResync, type ResyncPlan } from './resync.js';
export type { BrokerAccess, InProcessBroker, InProcessBrokerMaker } from './in-process-broker.js';
