export { ComponentLogs } from './component-logs.js';
export { cloudLogRouter } from './log-routes.js';
export { mirrorPodLogs, podLogsByNode, type PodLogs } from './mirror-pod-logs.js';
export { startControlPlaneNode, type ControlPlaneNodeHandle } from './node-agent.js';
export { nodeAddress } from './node-address.js';
export { BROKER_URL_ANNOTATION, CLOUD_ANNOTATION, CONTROL_PLANE_ROLE_LABEL, DEFAULT_CONTROL_PLANE_NODE, nodeLeaseSeconds } from './node-object.js';
export { claimNodeName, nodeNameTaken } from './node-name-claim.js';
export { peerBrokerUrls, peerBrokerUrlsOf } from './peer-brokers.js';
