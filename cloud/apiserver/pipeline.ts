import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Store } from '../store/store.js';
import { anonymousUser, sessionBearerUser, tokenAuthenticator, unauthorized, type TokenEntry, type UserInfo } from './auth/authn.js';
import { nodeUser, refuseReservedNode } from './auth/node-authz.js';
import { adminOnly, authorize, refuseImpersonation, requestFacts } from './auth/authz.js';
import { apiServerRuleSource, withEscalationChecks } from './auth/rbac/apiserver-rbac.js';
import { reviewResources } from './auth/review-kinds.js';
import { serveReview } from './auth/reviews.js';
import type { ApiClient } from '../client/client.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery/discovery.js';
import { createLoopbackClient } from './loopback-client.js';
import { parseApiPath, type ApiPath } from './rest/paths.js';
import { ResourceRegistry, type ResourceDef } from './kinds/registry.js';
import { errorResponse, jsonResponse, withWarnings, methodNotAllowed, textResponse, type ApiRequest, type ApiResponse, type RequestGate } from './request.js';
import { checkBodySize } from './http/request-body.js';
import { BACKUP_PATH, serveBackup } from './ops/backup-path.js';
import { componentStatusResource, serveComponents } from './ops/components-api.js';
import type { ComponentControl } from '../components/component.js';
import type { DashboardApi } from '../dashboard/dashboard-api.js';
import type { PodStreams } from './subresources/pod-streams.js';
import type { PodLogSource } from './subresources/pod-log.js';
import { metricsResources, type UsageSource } from './metrics/metrics-resources.js';
import type { RestDeps } from './rest/rest-context.js';
import { notFoundPath, route, serve } from './rest/rest-handler.js';
import { coreResources } from './kinds/resources.js';
import { ObjectStorage } from './rest/storage.js';
import { reloadingAuthenticator, type TokenSource } from './auth/token-reload.js';
import { openApiV3 } from './discovery/openapi.js';
import { registrySchemas } from './schemas/field-validation.js';
import { writeRuleDeps, type WriteRules } from './write-rules.js';
import { KUBE_INFLIGHT_LIMITS, type InflightLimits } from './http/inflight.js';
import { requestGate, trimmedPath } from './http/request-gate.js';
import { streamUpgrade, type StreamUpgrade } from './streams/stream-upgrade.js';
import type { HubForward } from './forward/hub-forward.js';

export interface ApiServerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The bearer tokens the server accepts (see credentials.ts apiTokens()). */
  tokens: readonly TokenEntry[];
  /** More tokens, re-read while the server runs (`<dataDir>/tokens.json`, see token-file.ts tokenFileSource). */
  tokenSource?: TokenSource;
  /** The resource table; defaults to the core kinds (namespaces, nodes, pods). */
  resources?: readonly ResourceDef[];
  /** Container logs from the edges, for pods/log. */
  podLogs?: PodLogSource;
  /** Streams to pods on the edges, for pods/exec, pods/attach and pods/portforward (absent: they answer Unavailable). */
  podStreams?: PodStreams;
  /** On a standby cloud: the hub's leader, which serves pods' logs and streams instead. */
  hubForward?: HubForward;
  /** The edges' usage reports: serves metrics.k8s.io/v1beta1 (`kubectl top`); absent, the Metrics API is not available. */
  usage?: UsageSource;
  /** The cloud's stoppable components: adds componentstatuses and /kedge/v1/components. */
  components?: ComponentControl;
  /** The dashboard: its session cookie authenticates too, and it serves its /kedge/v1 paths. */
  dashboard?: DashboardApi;
  /** Paths served before authentication, for edges joining (cloud/join/join-service.ts). */
  join?: PreAuthPaths;
  /** The cloud's own node name: requests from system:node:<it> are refused. */
  reservedNode?: string;
  /** Requests served at once, reads and writes apart (default kube's 400 and 200). */
  inflight?: InflightLimits;
  /** GET /metrics: counters in Prometheus' text format (admins and viewers). */
  metrics?: () => string;
  /** Each recent pod's startup trace, served at POD_STARTUP_PATH to admins (a cloud started with --trace-pod-startup). */
  podStartups?: () => unknown;
  /** A number in [0, 1) (default Math.random): when a watch that names no timeout ends (rest-read.ts). */
  random?: () => number;
  /** kube-apiserver's validation and field ownership on writes (default all on): only benchmarks turn them off (write-rules.ts). */
  rules?: Partial<WriteRules>;
}

/** Paths served before authentication: their callers have no credential yet. */
export interface PreAuthPaths {
  /** The most body a request to `path` may send (read before anything checks it), or undefined when it is not one of these paths. */
  bodyLimit(path: string): number | undefined;
  /** Answers a request to one of these paths (undefined for any other path). */
  serve(req: ApiRequest, path: string): Promise<ApiResponse> | undefined;
}

export interface ApiServer {
  /** The whole pipeline: authentication → authorization → admission → storage. Never rejects. */
  handle(req: ApiRequest): Promise<ApiResponse>;
  /** Authentication and the in-flight limits from a request's head, for a transport to run before it reads the body. */
  gate: RequestGate;
  /** WebSocket upgrades to pods' exec, attach and portforward, for the HTTP server's 'upgrade' event. */
  upgrade: StreamUpgrade;
  /** An in-process ApiClient that runs every call through `handle` as the given token's user. */
  loopback(token: string): ApiClient;
  /**
   * An in-process ApiClient acting as node `node` (user system:node:<node>, group
   * system:nodes), through the whole pipeline: what the hub writes for an edge meets the same
   * authorization and NodeRestriction as that node's own token would. No token stands for it.
   */
  loopbackAsNode(node: string): ApiClient;
  readonly registry: ResourceRegistry;
}

/** Where a tracing cloud serves its pod startup marks (as kube serves its own /debug paths, to admins only). */
export const POD_STARTUP_PATH = '/debug/kedge/pod-startups';

const healthPaths = new Set(['/healthz', '/livez', '/readyz']);
/** Paths an anonymous caller may read (as system:public-info-viewer allows). */
const publicPaths = new Set(['/version', '/version/']);
/** The most body a health or public path takes: they read none. */
const PUBLIC_BODY_BYTES = 4096;
const isHealthPath = (path: string): boolean => healthPaths.has(path) || /^\/(healthz|livez|readyz)\/[\w-]+$/.test(path);

/** Builds the apiserver core around its collaborators. No sockets: see http-server.ts for those. */
export function createApiServer(deps: ApiServerDeps): ApiServer {
  const resources = deps.resources ?? coreResources;
  const storage = new ObjectStorage(deps.store);
  const served = [...resources, ...computedResources(deps, storage, resources), ...reviewResources];
  const rules = apiServerRuleSource(storage, served);
  const registry = new ResourceRegistry(withEscalationChecks(served, rules));
  const schemas = registrySchemas(registry);
  const openApi = openApiV3(registry, schemas.set);
  const graphDefs = { pods: registry.find('', 'v1', 'pods'), claims: registry.find('', 'v1', 'persistentvolumeclaims') };
  const authenticate = deps.tokenSource
    ? reloadingAuthenticator(deps.tokens, deps.tokenSource, { clock: deps.clock, logger: deps.logger.child('authn') })
    : tokenAuthenticator(deps.tokens);
  const restDeps: RestDeps = { store: deps.store, storage, clock: deps.clock, podLogs: deps.podLogs, hubForward: deps.hubForward, random: deps.random ?? Math.random, ...writeRuleDeps(deps.rules, schemas) };
  const log = deps.logger.child('apiserver');
  const credentialsOf = async (req: ApiRequest): Promise<UserInfo | undefined> =>
    (deps.dashboard && sessionBearerUser(req.headers.authorization, deps.dashboard.sessionUser)) ?? (await authenticate(req.headers.authorization));
  const gate = requestGate({
    authenticate: credentialsOf,
    anonymousBodyLimit: (path) => (isHealthPath(path) || publicPaths.has(path) ? PUBLIC_BODY_BYTES : deps.join?.bodyLimit(path)),
    inflight: deps.inflight ?? KUBE_INFLIGHT_LIMITS,
  });

  async function dispatch(req: ApiRequest, asUser: UserInfo | undefined): Promise<ApiResponse> {
    const path = trimmedPath(req.path);
    if (isHealthPath(path)) return textResponse(200, 'ok');
    checkBodySize(req);
    const joining = deps.join?.serve(req, path);
    if (joining) return joining;
    const user = asUser ?? (await credentialsOf(req)) ?? (publicPaths.has(path) ? anonymousUser : undefined);
    if (!user) throw unauthorized();
    refuseImpersonation(user, req.headers);
    if (publicPaths.has(path)) return readOnly(req, () => versionInfo);
    refuseReservedNode(user, deps.reservedNode);
    const parsed = parseApiPath(path);
    if (parsed.kind === 'resource') {
      const call = route(registry, parsed.path, req, user);
      const p = parsed.path;
      const attrs = { verb: call.verb, resource: p.resource, subresource: p.subresource, group: p.group, namespace: p.namespace, name: p.name, path };
      await authorize(user, attrs, requestFacts(restDeps.storage, call, graphDefs), rules);
      const review = await serveReview(call, rules);
      if (review) return review;
      if (call.def.deprecation === undefined) return serve(restDeps, registry, call);
      // A deprecated kind warns on every answer about it, a refusal too.
      return withWarnings(await serve(restDeps, registry, call).catch(errorResponse), [call.def.deprecation]);
    }
    await authorize(user, { verb: verbForPath(req.method), path }, undefined, rules);
    if (path === BACKUP_PATH) return serveBackup(user, req.method.toUpperCase(), deps.store);
    if (path === '/metrics' && deps.metrics) {
      if (user.role !== 'viewer') adminOnly(user, path); // not nodes: what others were refused is none of theirs
      return readOnlyText(req, deps.metrics);
    }
    if (path === POD_STARTUP_PATH && deps.podStartups) {
      adminOnly(user, path);
      return readOnly(req, deps.podStartups);
    }
    const components = deps.components && (await serveComponents(deps.components, req.method.toUpperCase(), path));
    if (components) return components;
    const dashboard = deps.dashboard && (await deps.dashboard.serve(user, req, path));
    if (dashboard) return dashboard;
    const document = checkReadOnly(req, () => openApi.response(path, req.headers.accept));
    return document ?? readOnly(req, () => nonResource(parsed));
  }

  function nonResource(parsed: ApiPath): unknown {
    if (parsed.kind === 'discovery') {
      if (parsed.version !== undefined) return apiResourceList(registry, parsed.group ?? '', parsed.version);
      if (parsed.legacy) return apiVersions();
      if (parsed.group !== undefined) return apiGroup(registry, parsed.group);
      return apiGroupList(registry);
    }
    throw notFoundPath();
  }

  async function handle(req: ApiRequest, asUser?: UserInfo): Promise<ApiResponse> {
    try {
      return await dispatch(req, asUser);
    } catch (err) {
      const res = errorResponse(err);
      if (res.status >= 500) log.error('request failed', { method: req.method, path: req.path, error: String(err) });
      return res;
    }
  }

  const upgrade = streamUpgrade({
    authenticate: credentialsOf, storage: restDeps.storage, pods: graphDefs.pods, podStreams: deps.podStreams, hubForward: deps.hubForward, clock: deps.clock, reservedNode: deps.reservedNode, rules,
  });
  const server: ApiServer = {
    handle: (req) => handle(req),
    gate,
    upgrade,
    registry,
    loopback: (token) => createLoopbackClient((req) => handle(req), token),
    loopbackAsNode: (node) => createLoopbackClient((req) => handle(req, nodeUser(node))),
  };
  return server;
}

/** The read-only kinds computed in memory that the deps make possible: componentstatuses, metrics.k8s.io. */
function computedResources(deps: ApiServerDeps, storage: ObjectStorage, resources: readonly ResourceDef[]): ResourceDef[] {
  const out = deps.components ? [componentStatusResource(deps.components)] : [];
  const core = (resource: string): ResourceDef | undefined => resources.find((d) => d.group === '' && d.resource === resource);
  const [nodes, pods] = [core('nodes'), core('pods')];
  if (deps.usage && nodes && pods) out.push(...metricsResources({ source: deps.usage, storage, clock: deps.clock, nodes, pods }));
  return out;
}

function readOnly(req: ApiRequest, body: () => unknown): ApiResponse {
  return jsonResponse(200, checkReadOnly(req, body));
}

function readOnlyText(req: ApiRequest, body: () => string): ApiResponse {
  return textResponse(200, checkReadOnly(req, body));
}

function checkReadOnly<T>(req: ApiRequest, body: () => T): T {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, req.path);
  return body();
}

function verbForPath(method: string): string {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' ? 'get' : m === 'POST' ? 'create' : m === 'PUT' ? 'update' : m === 'PATCH' ? 'patch' : m === 'DELETE' ? 'delete' : m.toLowerCase();
}
