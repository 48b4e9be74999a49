/** The apiserver's public surface, for the composition root and tests. */
export { createApiServer, type ApiServer, type ApiServerDeps } from './pipeline.js';
export { startApiServer, type ApiServerOptions, type RunningApiServer } from './http-server.js';
export { createLoopbackClient } from './loopback-client.js';
export { DEFAULT_RUNTIME_CLASSES, ensureKubernetesService, ensureRuntimeClasses, ensureSystemNamespaces, SYSTEM_NAMESPACES } from './bootstrap.js';
export {
  apiTokens,
  buildKubeconfig,
  loadOrCreateCredentials,
  readCredentials,
  readEdgeBootstrapToken,
  readEdgeToken,
  loadOrCreateServingCert,
  LOOPBACK_HOSTS,
  writeKubeconfig,
  type Credentials,
} from './credentials.js';
export type { TokenEntry, UserInfo } from './authn.js';
export { addApiToken, newTokenEntry, tokenFileSource, TOKEN_ROLES, type TokenRole } from './token-file.js';
export type { ApiRequest, ApiResponse, ApiHandler, WireWatchEvent } from './request.js';
export type { ResourceDef } from './registry.js';
export type * from './client.js';
export { generateServingCert, type ServingCert } from './tls-cert.js';
export { clusterResources, coreResources } from './resources.js';
export { appsResources, deploymentResource, replicaSetResource, APPS_GROUP } from './apps-resources.js';
export { NODESYNC_GROUP, nodeSyncResource, type AckedObject, type NodeSync } from './nodesync.js';
export { createRemoteClient, remoteHandler } from './remote-handler.js';
