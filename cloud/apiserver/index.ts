/** The apiserver's public surface, for the composition root, the handlers it mounts (dashboard, join) and tests. */
export { createApiServer, type ApiServer, type ApiServerDeps } from './pipeline.js';
export { startApiServer, type ApiServerOptions, type RunningApiServer } from './http/http-server.js';
export { createLoopbackClient } from './loopback-client.js';
export { startEventExpiry, type EventExpiry } from './expiry/event-expiry.js';
export { apiserverId } from './reconcilers/apiserver-lease.js';
export { startEndpointReconciler, type EndpointReconciler } from './reconcilers/endpoint-reconciler.js';
export type { MasterLeaseStore } from './reconcilers/master-leases.js';
export { AGENT_RUNTIME_CLASS, ensureAgentDaemonSets, KUBE_SYSTEM_AGENTS } from './kinds/agent-daemonsets.js';
export { DEFAULT_RUNTIME_CLASSES, ensureDefaultStorageClass, ensureKubernetesService, ensureRuntimeClasses, ensureSystemNamespaces, SYSTEM_NAMESPACES } from './kinds/bootstrap.js';
export {
  apiTokens,
  buildKubeconfig,
  loadOrCreateCredentials,
  readCredentials,
  readEdgeBootstrapToken,
  readEdgeToken,
  loadOrCreateServingCert,
  LOOPBACK_HOSTS,
  newToken,
  writeKubeconfig,
  CLOUD_USER,
  type Credentials,
} from './auth/credentials.js';
export { loadOrCreateLocalIdentity, mirrorIdentity, type ClusterIdentity, type MirrorResult } from './auth/identity-files.js';
export type { TokenEntry, UserInfo } from './auth/authn.js';
export { addApiToken, newTokenEntry, tokenFileSource, TOKEN_ROLES, type TokenRole } from './auth/token-file.js';
export type { ApiRequest, ApiResponse, ApiHandler, WireWatchEvent } from './request.js';
export { FORWARDED_HEADER, type ForwardTarget, type HubForward } from './forward/hub-forward.js';
export type { ResourceDef } from './kinds/registry.js';
export type * from '../client/client.js';
export { generateServingCert, type ServingCert } from './auth/tls-cert.js';
export { clusterResources, coreResources } from './kinds/resources.js';
export { resourcePrefixes } from './kinds/registry.js';
export { appsResources, deploymentResource, replicaSetResource, APPS_GROUP } from './kinds/apps-resources.js';
export { NODESYNC_GROUP, type AckedObject, type NodeSync } from '../client/nodesync.js';
export { nodeSyncResource } from './kinds/nodesync-resource.js';
export { createRemoteClient, remoteHandler } from './http/remote-handler.js';

// What a handler mounted beside the API (the dashboard, joining) answers and checks with.
export { jsonResponse, methodNotAllowed, textResponse } from './request.js';
export type { PageHandler } from './http/http-server.js';
export { bearerOf, DASHBOARD_SESSION_GROUP, type SessionLookup } from './auth/authn.js';
export { adminOnly, adminTokenOnly } from './auth/authz.js';
export { ensureBootstrapPolicy } from './auth/rbac/stored-rules.js';
