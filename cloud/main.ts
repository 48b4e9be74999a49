import { randomUUID } from 'node:crypto';
import { lockDataDir } from '../shared/data-dir-lock.js';
import { hostname, networkInterfaces, release } from 'node:os';
import { join, resolve } from 'node:path';
import { realClock, type Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import { defaultTiming } from '../shared/timing.js';
import { MqttTransport } from '../shared/mqtt-transport.js';
import type { TransportFactory } from '../shared/transport.js';
import type { Cloud, CloudOptions } from './cloud-options.js';
import { clusterResources, resourcePrefixes, ensureSystemNamespaces, loadOrCreateServingCert, writeKubeconfig, type Credentials, type ServingCert } from './apiserver/index.js';
import { borrowed, brokerUrlsAsSeenFrom, joinBrokerList, storeClient } from './several-clouds.js';
import { shareClusterIdentity } from './cluster-identity/share.js';
import type { BrokerOptions } from './hub/index.js';
import { HubRunning, runHubWhileLeading } from './hub-terms.js';
import { ComponentSet } from './components/component-set.js';
import { addApiServer, addExternalBroker, addHub, addOwnBroker, addStore, BROKER } from './components/cloud-parts.js';
import { addControlPlane } from './components/control-plane.js';
import { addEtcdMembers } from './components/etcd-members.js';
import { claimNodeName, ComponentLogs, cloudLogRouter, nodeLeaseSeconds, mirrorPodLogs, nodeAddress, podLogsByNode, startControlPlaneNode } from './control-plane-node/index.js';
import { apiEventRecorder } from './controllers/events.js';
import { defaultControllers } from './controllers/index.js';
import { clusterCidrConfig, DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE } from './controllers/nodeipam/index.js';
import { SharedInformers } from './informer/shared-informers.js';
import { Counters } from '../shared/counters.js';
import { brokerUrlAsSeenFrom, certificateHosts, isLoopbackHost } from './network.js';
import { brokerAccess } from './broker-access.js';
import { ForwardPort, HubPort, JoinPort } from './api-ports.js';
import { hubForwarding } from './hub-forwarding.js';
import { startJoining, type NodeCredentials } from './join/index.js';
import { startCloudElection } from './leaderelection/index.js';
import { followPodStartups } from './tracing/follow-pod-startups.js';
import { startCloudApi } from './start-api.js';
import { startApiserverEndpoints } from './apiserver-endpoints.js';
import { describeCounters } from './metrics.js';
import { DurableStore } from './store/durable-store.js';
import { GatedStore } from './store/gated-store.js';
import { EtcdStore } from './store/etcd/etcd-store.js';
import { openCloudEtcdStore } from './store/etcd/open-etcd-store.js';
import { MemoryStore } from './store/memory-store.js';
import type { Store } from './store/store.js';

export type { Cloud, CloudOptions } from './cloud-options.js';

async function openStore(options: CloudOptions, clock: Clock, logger: Logger): Promise<Store> {
  // Another's store (clouds sharing one in a test): this cloud's stop leaves it open.
  if (typeof options.store === 'object') return borrowed(options.store);
  const history = { clock, resourcePrefixes: resourcePrefixes(clusterResources) };
  if (options.store === 'etcd') return openCloudEtcdStore(options.etcd!, { clock, logger, history });
  return options.store === 'memory' ? new MemoryStore(history) : DurableStore.open(join(options.dataDir, 'store'), history);
}

/** The cloud's composition root: the only place that constructs its concrete parts. */
export async function startCloud(options: CloudOptions): Promise<Cloud> {
  const clock = options.clock ?? realClock;
  const timing = options.timing ?? defaultTiming;
  const podNetwork = clusterCidrConfig(options.clusterCidr ?? DEFAULT_CLUSTER_CIDR, options.nodeCidrMaskSize ?? DEFAULT_NODE_CIDR_MASK_SIZE);
  // The cluster's CA, for the root CA publisher, once the cloud's TLS is loaded.
  let clusterCaPem: string | undefined;
  const controllers = defaultControllers(clusterResources, podNetwork, () => clusterCaPem);
  // The cloud's node keeps its components' logs for their mirror pods: every line passes through them.
  const componentLogs = options.controlPlaneNode === undefined ? undefined : new ComponentLogs(cloudLogRouter(controllers.map((c) => c.name)), () => clock.now());
  const logger = componentLogs?.tee(options.logger ?? silentLogger) ?? options.logger ?? silentLogger;
  const startedAt = clock.now();
  const abort = new AbortController();
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    abort.abort();
    for (const s of stops.reverse()) await s().catch((err: unknown) => logger.warn(`stop: ${(err as Error).message}`));
    stops.length = 0;
  };
  try {
    const lock = options.lock ?? (await lockDataDir(options.dataDir, { command: 'kedge cloud', logger }));
    stops.push(() => lock.release());
    const innerStore = await openStore(options, clock, logger);
    const store = new GatedStore(innerStore);
    stops.push(() => store.close());
    const security = await loadSecurity(options, store, clock, logger);
    const { credentials, tls, tlsOnly, apiHost } = security;
    clusterCaPem = tls.caPem;
    const counters = describeCounters(new Counters());

    const components = new ComponentSet(clock, logger.child('components'));
    // The apiserver comes first; the hub and the join service, its clients, connect to its ports once up.
    const hubPort = new HubPort();
    const forwardPort = new ForwardPort(tls.caPem);
    const joinPort = new JoinPort();
    const startups = options.podStartups;
    const podLogs = componentLogs && podLogsByNode(options.controlPlaneNode!, mirrorPodLogs(componentLogs, () => clock.now()), hubPort);
    const { api, loopback, server, eventExpiry } = await startCloudApi({
      dataDir: options.dataDir, host: apiHost, port: options.apiPort, tls, tlsOnly, store, clock, timing, logger, credentials, counters, components, hub: hubPort, hubForward: forwardPort, join: joinPort, podLogs, agentDaemonSets: options.agentDaemonSets, reservedNode: options.controlPlaneNode, podStartups: startups && (() => startups.snapshot()),
    });
    stops.push(() => server.close());
    stops.push(() => eventExpiry.close());
    const cloudIdentity = `${hostname()}:${resolve(options.dataDir)}`;
    if (options.controlPlaneNode !== undefined) await claimNodeName(loopback, options.controlPlaneNode, cloudIdentity, clock.now(), nodeLeaseSeconds(timing));
    const kubeconfigPath = await writeKubeconfig(options.dataDir, server.url, credentials.admin, tls.caPem);
    addApiServer(components);
    addStore(components, store, innerStore instanceof EtcdStore ? innerStore : undefined);
    if (options.store === 'etcd') {
      const members = await addEtcdMembers(components, options.etcd!, clock);
      stops.push(async () => members.close());
    }

    const informers = new SharedInformers(loopback, { clock, logger: logger.child('informers') });
    if (startups) {
      const following = followPodStartups(informers, startups);
      stops.push(async () => following.unsubscribe());
    }
    const ownAddress = options.advertiseAddress ?? nodeAddress(apiHost, networkInterfaces());
    // The other clouds reach the API where the cloud's node says it is (loopback only when it listens there).
    const apiUrl = brokerUrlAsSeenFrom(server.url, ownAddress.includes(':') ? `[${ownAddress}]` : ownAddress);
    const endpoints = await startApiserverEndpoints({ api: loopback, store, clock, timing, logger, cloudIdentity, advertiseAddress: ownAddress, apiUrl: server.url });
    stops.push(() => endpoints.close());
    const election = await startCloudElection({ enabled: options.leaderElect ?? true, dataDir: options.dataDir, api: loopback, clock, timing, logger: logger.child('leaderelection'), apiUrl, ...(options.electionRandom && { random: options.electionRandom }) });
    stops.push(() => election.close());
    let brokerUrl = options.brokerUrl;
    const joining = startJoining({
      api: loopback, informers, clock, logger: logger.child('join'), counters, caPem: tls.caPem, brokerUrlFor: (host) => joinBrokerList(brokerUrl!, host, loopback, cloudIdentity), reservedNode: options.controlPlaneNode,
    });
    stops.push(async () => joining.close());
    joinPort.connect(joining.handler);
    let hubTransport = options.transport;
    const hubRunning = new HubRunning();
    if (!brokerUrl) {
      const broker = await addOwnBroker(components, embeddedBrokerOptions(options, security, joining.credentials, { counters, clock, logger, hubRunning }), options.inProcessBroker);
      stops.push(() => broker.close());
      brokerUrl = broker.url;
      hubTransport ??= broker.transport;
    }
    const events = apiEventRecorder(loopback, clock, 'cloudhub', logger.child('hub'));
    const makeTransport: TransportFactory = hubTransport ?? ((identity) => new MqttTransport({
      ...identity, brokerUrl: brokerUrl!, ca: tls.caPem, keepaliveMs: timing.keepaliveMs, reconnectMinMs: timing.reconnectMinMs, reconnectMaxMs: timing.reconnectMaxMs, clock, logger: logger.child('hub'), random: Math.random,
    }));
    const { hub, lead, close: closeHub } = await runHubWhileLeading({ api: loopback, apiAsNode: (node) => api.loopbackAsNode(node), informers, clock, timing, logger: logger.child('hub'), events, counters, signal: abort.signal, transport: makeTransport, password: credentials.hub, trace: startups }, election, hubRunning);
    stops.push(closeHub);
    hubPort.connect(hub);
    if (lead && election.identity !== undefined) {
      forwardPort.connect(hubForwarding({ api: loopback, identity: election.identity, servesHere: () => lead.servesHere(), whyNot: () => lead.whyNot(), controlPlaneNode: options.controlPlaneNode }));
    }
    if (options.brokerUrl) addExternalBroker(components, brokerUrl, hub, lead);
    addHub(components, hub, brokerUrl, lead);
    addControlPlane(components, { api: loopback, informers, clock, timing, logger, controllers, disabled: new Set(options.disable), elect: election.elect });
    stops.push(() => components.close());
    await components.startAll();
    if (options.controlPlaneNode !== undefined) {
      const advertised = { cloud: cloudIdentity, brokerUrl: brokerUrlsAsSeenFrom(brokerUrl, ownAddress.includes(':') ? `[${ownAddress}]` : ownAddress) };
      const facts = { name: options.controlPlaneNode, address: ownAddress, bootId: randomUUID().slice(0, 8), kernelVersion: release(), startedAt, ...advertised };
      const node = await startControlPlaneNode({ api: loopback, informers, clock, timing, logger: logger.child('kubelet'), components, facts, embeddedBroker: !options.brokerUrl });
      stops.push(() => node.close());
    }

    logger.info('cloud started', { api: server.url, mqtt: brokerUrl, dataDir: options.dataDir });
    return { apiUrl: server.url, brokerUrl, kubeconfigPath, credentials, counters, caPem: tls.caPem, hub, store, api: loopback, get ledger() {
      return hub.ledger;
    }, components, hubLeading$: election.hubLeading$, hubLeader: () => election.hubLeader(), restartBroker: (whileDown) => restartEmbeddedBroker(components, options.brokerUrl, whileDown), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface Security {
  credentials: Credentials;
  /** The serving certificate, and the CA that signed it. */
  tls: ServingCert & { caPem: string };
  tlsOnly: boolean;
  apiHost: string;
  mqttHost: string;
}

/**
 * The cluster's credentials and CA (shared through the store by every cloud on it), this cloud's
 * serving certificate signed by that CA; a warning where plain text would cross the network.
 */
async function loadSecurity(options: CloudOptions, store: Store, clock: Clock, logger: Logger): Promise<Security> {
  const api = storeClient(store, clock, logger);
  await ensureSystemNamespaces(api);
  const { credentials, ca } = await shareClusterIdentity({ api, dataDir: options.dataDir, now: clock.now(), logger });
  const apiHost = options.apiHost ?? '127.0.0.1';
  const mqttHost = options.mqttHost ?? '127.0.0.1';
  const tls = await loadOrCreateServingCert(options.dataDir, certificateHosts([apiHost, mqttHost, ...(options.advertiseAddress ? [options.advertiseAddress] : []), ...(options.tlsSans ?? [])]), clock.now(), logger, ca);
  const tlsOnly = options.tlsOnly ?? false;
  if (!tlsOnly && !isLoopbackHost(apiHost)) logger.warn('the API serves plain HTTP beyond loopback (--insecure): tokens and objects cross the network readable', { apiHost });
  if (!tlsOnly && !options.brokerUrl && !isLoopbackHost(mqttHost)) logger.warn('the broker speaks plain MQTT beyond loopback (--insecure): node passwords and pods cross the network readable', { mqttHost });
  return { credentials, tls, tlsOnly, apiHost, mqttHost };
}

/** The embedded broker: on mqttHost, over TLS only with tlsOnly; it lets in the cloud's hub and the nodes with credentials. */
function embeddedBrokerOptions(
  options: CloudOptions,
  security: Security,
  nodes: NodeCredentials,
  deps: { counters: Counters; clock: Clock; logger: Logger; hubRunning: HubRunning },
): BrokerOptions & { clock: Clock } {
  return {
    host: security.mqttHost,
    port: options.mqttPort,
    authenticate: brokerAccess(security.credentials, nodes),
    revoked$: nodes.revoked$,
    nodesAdmitted$: deps.hubRunning.nodesAdmitted$(options.nodesAdmitted$),
    keepNodesWithoutCloud: () => deps.hubRunning.holdsNodes,
    logger: deps.logger.child('broker'),
    nodesWaitForCloud: true,
    counters: deps.counters,
    clock: deps.clock,
    ...(security.tlsOnly ? { tls: security.tls } : {}),
  };
}

/** Stops the embedded broker, runs `whileDown`, starts it again (see Cloud.restartBroker). */
async function restartEmbeddedBroker(components: ComponentSet, externalBrokerUrl: string | undefined, whileDown?: () => Promise<void>): Promise<void> {
  if (externalBrokerUrl) throw new Error('the cloud uses an external broker');
  await components.stop(BROKER);
  await whileDown?.();
  const state = await components.start(BROKER);
  if (!state.running) throw new Error(`the broker did not start again: ${state.message}`);
}
