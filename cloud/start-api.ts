import type { HubForward } from './apiserver/index.js';
import type { Clock } from '../shared/clock.js';
import { refusals, type Counters } from '../shared/counters.js';
import type { Logger } from '../shared/log.js';
import type { Timing } from '../shared/timing.js';
import {
  apiTokens,
  clusterResources,
  createApiServer,
  ensureKubernetesService,
  ensureAgentDaemonSets,
  ensureDefaultStorageClass,
  ensureBootstrapPolicy,
  ensureRuntimeClasses,
  ensureSystemNamespaces,
  startApiServer,
  startEventExpiry,
  tokenFileSource,
  type ApiServer,
  type ApiServerDeps,
  type ApiServerOptions,
  type Credentials,
  type EventExpiry,
  type RunningApiServer,
} from './apiserver/index.js';
import type { ApiClient } from './client/client.js';
import type { HubPort, JoinPort } from './api-ports.js';
import type { ComponentSet } from './components/component-set.js';
import { createDashboard } from './dashboard/index.js';
import { API_REFUSED, metricsText } from './metrics.js';
import type { Store } from './store/store.js';

/** Part of the cloud's composition root (main.ts): what its apiserver is built from. */
export interface CloudApiOptions {
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  tls: NonNullable<ApiServerOptions['tls']>;
  tlsOnly: boolean;
  store: Store;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  credentials: Credentials;
  counters: Counters;
  components: ComponentSet;
  hub: HubPort;
  /** Connected once leader election runs: on a standby, the hub's leader serves logs and streams. */
  hubForward?: HubForward;
  join: JoinPort;
  /** Where pod logs come from (default: the hub, from each pod's edge). */
  podLogs?: NonNullable<ApiServerDeps['podLogs']>;
  /** The cloud's own node name, which no node credential may act as. */
  reservedNode?: string;
  /** Create the edge agents' kube-system DaemonSets. */
  agentDaemonSets?: boolean;
  /** The pod startup trace to serve to admins, when the cloud keeps one. */
  podStartups?: () => unknown;
}

export interface CloudApi {
  api: ApiServer;
  /** The cloud's own client (same pipeline as HTTP). */
  loopback: ApiClient;
  server: RunningApiServer;
  /** Deletes Events past timing.eventTtlMs (kube-apiserver's --event-ttl). */
  eventExpiry: EventExpiry;
}

/**
 * The apiserver with every kind, the components, the dashboard, and the hub's logs and the join
 * paths through their ports; bootstrapped through its loopback client (system namespaces, the
 * kubernetes Service, RuntimeClasses), then listening, and expiring Events.
 */
export async function startCloudApi(o: CloudApiOptions): Promise<CloudApi> {
  const logger = o.logger.child('apiserver');
  const dashboard = createDashboard({ dataDir: o.dataDir, timing: o.timing, clock: o.clock, logger: o.logger.child('dashboard') });
  const api = createApiServer({
    store: o.store, clock: o.clock, logger, tokens: apiTokens(o.credentials), tokenSource: tokenFileSource(o.dataDir, logger), resources: clusterResources, components: o.components,
    podLogs: o.podLogs ?? o.hub, podStreams: o.hub, hubForward: o.hubForward, usage: o.hub, dashboard: dashboard.api, join: o.join, reservedNode: o.reservedNode, metrics: () => metricsText(o.counters, o.hub.stats()), podStartups: o.podStartups,
  });
  const loopback = api.loopback(o.credentials.cloud);
  await ensureSystemNamespaces(loopback);
  await ensureKubernetesService(loopback);
  await ensureRuntimeClasses(loopback);
  await ensureBootstrapPolicy(loopback, api.registry.defs);
  await ensureDefaultStorageClass(loopback);
  if (o.agentDaemonSets) await ensureAgentDaemonSets(loopback);
  const refused = refusals(o.counters, API_REFUSED, logger, 'refused a request');
  const server = await startApiServer({ handler: api.handle, gate: api.gate, host: o.host, port: o.port, tls: o.tls, tlsOnly: o.tlsOnly, refused, pages: dashboard.pages, upgrade: api.upgrade, clock: o.clock });
  const eventExpiry = startEventExpiry({ api: loopback, clock: o.clock, logger, ttlMs: o.timing.eventTtlMs });
  return { api, loopback, server, eventExpiry };
}
