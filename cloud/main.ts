import { randomUUID } from 'node:crypto';
import { lockDataDir, type DataDirLock } from '../shared/data-dir-lock.js';
import { join } from 'node:path';
import { realClock, type Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import { defaultTiming, type Timing } from '../shared/timing.js';
import { MqttTransport } from '../shared/mqtt-transport.js';
import type { Transport, TransportFactory } from '../shared/transport.js';
import {
  apiTokens,
  clusterResources,
  createApiServer,
  ensureKubernetesService,
  ensureRuntimeClasses,
  ensureSystemNamespaces,
  loadOrCreateCredentials,
  loadOrCreateServingCert,
  startApiServer,
  tokenFileSource,
  writeKubeconfig,
  type Credentials,
} from './apiserver/index.js';
import type { ApiClient } from './client/client.js';
import { CLOUD_USERNAME, cloudClientId, NodeSyncLedger, startCloudHub, type BrokerOptions, type CloudHubHandle, type InProcessBrokerMaker } from './hub/index.js';
import { ComponentSet } from './components/component-set.js';
import { addApiServer, addExternalBroker, addHub, addOwnBroker, addStore, BROKER } from './components/cloud-parts.js';
import { addControlPlane } from './components/control-plane.js';
import { apiEventRecorder } from './controllers/events.js';
import { createDashboard } from './dashboard/index.js';
import { defaultControllers } from './controllers/index.js';
import { SharedInformers } from './informer/shared-informers.js';
import { podRef } from './hub/resync.js';
import { KedgeError } from '../shared/errors.js';
import { Counters, refusals } from '../shared/counters.js';
import { brokerUrlAsSeenFrom, certificateHosts, isLoopbackHost } from './network.js';
import { brokerAccess } from './broker-access.js';
import { joinBodyLimit, startJoining, type JoinHandler } from './join/index.js';
import { API_REFUSED, describeCounters, metricsText } from './metrics.js';
import type { LogOptions } from '../shared/protocol/envelope.js';
import type { Pod } from '../shared/types.js';
import { DurableStore } from './store/durable-store.js';
import { GatedStore } from './store/gated-store.js';
import { MemoryStore } from './store/memory-store.js';
import type { Store } from './store/store.js';

export interface CloudOptions {
  dataDir: string;
  apiHost?: string;
  /** 0 picks a free port. */
  apiPort: number;
  mqttHost?: string;
  /** Port of the embedded broker; 0 picks a free one. Ignored with `brokerUrl` or `inProcessBroker`. */
  mqttPort: number;
  /** An external MQTT broker instead of the embedded one. */
  brokerUrl?: string;
  store?: 'durable' | 'memory';
  timing?: Timing;
  clock?: Clock;
  logger?: Logger;
  /**
   * For a cloud reachable from other machines: the API refuses plain HTTP and the embedded
   * broker speaks MQTT over TLS only, both with a certificate signed by the data dir's CA.
   */
  tlsOnly?: boolean;
  /** More names and addresses for the serving certificate (the API and host addresses always are). */
  tlsSans?: readonly string[];
  /** Components registered but left stopped: "scheduler", "controller-manager", or a controller's name. */
  disable?: readonly string[];
  /** The data dir's lock, taken by the caller and released by the cloud's stop; none: the cloud takes it. */
  lock?: DataDirLock;
  /** Makes the hub's client of the broker (sim passes an in-memory one); default an MqttTransport to `brokerUrl` or the embedded broker. */
  transport?: TransportFactory;
  /**
   * Instead of the embedded broker, one in this process that the caller makes (sim's in-memory
   * broker): given the embedded broker's admission, it is the `broker` component and the hub's
   * transport (unless `transport` says otherwise); no MQTT port is opened. Ignored with `brokerUrl`.
   */
  inProcessBroker?: InProcessBrokerMaker;
}

export interface Cloud {
  /** https:// URL (plain http:// answers on the same port too). */
  readonly apiUrl: string;
  readonly brokerUrl: string;
  readonly kubeconfigPath: string;
  readonly credentials: Credentials;
  readonly hub: CloudHubHandle;
  /** The store behind its on/off switch (`kedge component stop store`). */
  readonly store: Store;
  /** An in-process client with the cloud's own identity (same pipeline as HTTP). */
  readonly api: ApiClient;
  /** What was refused or dropped, by reason (also at GET /metrics). */
  readonly counters: Counters;
  /** The CA clients trust (PEM); its fingerprint is in every join token. */
  readonly caPem: string;
  /** The durable ack ledger (one NodeSync per node). */
  readonly ledger: NodeSyncLedger;
  /** Every part with its state: apiserver, store, broker, hub (cloud-parts.ts), scheduler, controller-manager and its controllers. */
  readonly components: ComponentSet;
  /**
   * Stops the cloud's own broker, embedded or in-process (every client drops, every retained
   * message is gone), runs `whileDown`, then starts a fresh one (the embedded one on the same
   * port). For tests and demos; throws with an external broker.
   */
  restartBroker(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

async function openStore(options: CloudOptions): Promise<Store> {
  return options.store === 'memory' ? new MemoryStore() : DurableStore.open(join(options.dataDir, 'store'));
}

/** The cloud's composition root: the only place that constructs its concrete parts. */
export async function startCloud(options: CloudOptions): Promise<Cloud> {
  const clock = options.clock ?? realClock;
  const logger = options.logger ?? silentLogger;
  const timing = options.timing ?? defaultTiming;
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
    const credentials = await loadOrCreateCredentials(options.dataDir, logger);
    const counters = describeCounters(new Counters());
    const apiHost = options.apiHost ?? '127.0.0.1';
    const mqttHost = options.mqttHost ?? '127.0.0.1';
    const tls = await loadOrCreateServingCert(options.dataDir, certificateHosts([apiHost, mqttHost, ...(options.tlsSans ?? [])]), clock.now(), logger);
    const tlsOnly = options.tlsOnly ?? false;
    if (!tlsOnly && !isLoopbackHost(apiHost)) logger.warn('the API serves plain HTTP beyond loopback (--insecure): tokens and objects cross the network readable', { apiHost });
    if (!tlsOnly && !options.brokerUrl && !isLoopbackHost(mqttHost)) logger.warn('the broker speaks plain MQTT beyond loopback (--insecure): node passwords and pods cross the network readable', { mqttHost });
    const store = new GatedStore(await openStore(options));
    stops.push(() => store.close());

    const components = new ComponentSet(clock, logger.child('components'));
    // The apiserver comes first, the hub later: logs go through the hub once it is there.
    const started: { hub?: CloudHubHandle; join?: JoinHandler } = {};
    const podLogs = {
      logs: (pod: Pod, o: LogOptions) => started.hub?.podLogs(pod.spec.nodeName!, podRef(pod), o) ?? Promise.reject(new KedgeError('Unavailable', 'the cloud hub is starting')),
    };
    const dashboard = createDashboard({ dataDir: options.dataDir, timing, clock, logger: logger.child('dashboard') });
    const api = createApiServer({
      store, clock, logger: logger.child('apiserver'), tokens: apiTokens(credentials), tokenSource: tokenFileSource(options.dataDir, logger.child('apiserver')), resources: clusterResources, components, podLogs,
      dashboard: dashboard.api, join: { bodyLimit: joinBodyLimit, serve: (req, path) => started.join?.(req, path) }, metrics: () => metricsText(counters, started.hub?.stats()),
    });
    const loopback = api.loopback(credentials.cloud);
    await ensureSystemNamespaces(loopback);
    await ensureKubernetesService(loopback);
    await ensureRuntimeClasses(loopback);
    const refused = refusals(counters, API_REFUSED, logger.child('apiserver'), 'refused a request');
    const server = await startApiServer({ handler: api.handle, gate: api.gate, host: apiHost, port: options.apiPort, tls, tlsOnly, refused, pages: dashboard.pages });
    stops.push(() => server.close());
    const kubeconfigPath = await writeKubeconfig(options.dataDir, server.url, credentials.admin, tls.caPem);
    addApiServer(components);
    addStore(components, store);

    const informers = new SharedInformers(loopback, { clock, logger: logger.child('informers') });
    let brokerUrl = options.brokerUrl;
    const joining = startJoining({
      api: loopback, informers, clock, logger: logger.child('join'), counters, caPem: tls.caPem, brokerUrlFor: (host) => brokerUrlAsSeenFrom(brokerUrl!, host),
    });
    stops.push(async () => joining.close());
    started.join = joining.handler;
    const brokerOptions = {
      host: mqttHost,
      port: options.mqttPort,
      authenticate: brokerAccess(credentials, joining.credentials),
      revoked$: joining.credentials.revoked$,
      logger: logger.child('broker'),
      nodesWaitForCloud: true,
      counters,
      clock,
      ...(tlsOnly ? { tls } : {}),
    } satisfies BrokerOptions;
    let hubTransport = options.transport;
    if (!brokerUrl) {
      const broker = await addOwnBroker(components, brokerOptions, options.inProcessBroker);
      stops.push(() => broker.close());
      brokerUrl = broker.url;
      hubTransport ??= broker.transport;
    }
    const restartBroker = async (whileDown?: () => Promise<void>): Promise<void> => {
      if (options.brokerUrl) throw new Error('the cloud uses an external broker');
      await components.stop(BROKER);
      await whileDown?.();
      const state = await components.start(BROKER);
      if (!state.running) throw new Error(`the broker did not start again: ${state.message}`);
    };
    const common = { api: loopback, informers, clock, signal: abort.signal };
    const ledger = await NodeSyncLedger.load({ api: loopback, clock, logger: logger.child('ledger') });
    stops.push(() => ledger.close());
    const events = apiEventRecorder(loopback, clock, 'cloudhub', logger.child('hub'));
    const epoch = randomUUID().slice(0, 8);
    const identity = { clientId: cloudClientId(epoch), username: CLOUD_USERNAME, password: credentials.hub };
    const transport: Transport = hubTransport?.(identity) ?? new MqttTransport({
      ...identity, brokerUrl, ca: tls.caPem, keepaliveMs: timing.keepaliveMs, reconnectMinMs: timing.reconnectMinMs, reconnectMaxMs: timing.reconnectMaxMs, clock, logger: logger.child('hub'), random: Math.random,
    });
    const hub = await startCloudHub({ ...common, apiAsNode: (node) => api.loopbackAsNode(node), transport, epoch, timing, logger: logger.child('hub'), ledger, events, counters });
    stops.push(() => hub.close());
    started.hub = hub;
    if (options.brokerUrl) addExternalBroker(components, brokerUrl, hub);
    addHub(components, hub, brokerUrl);
    addControlPlane(components, { api: loopback, informers, clock, timing, logger, controllers: defaultControllers(clusterResources), disabled: new Set(options.disable) });
    stops.push(() => components.close());
    await components.startAll();

    logger.info('cloud started', { api: server.url, mqtt: brokerUrl, dataDir: options.dataDir });
    return { apiUrl: server.url, brokerUrl, kubeconfigPath, credentials, counters, caPem: tls.caPem, hub, store, api: loopback, ledger, components, restartBroker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
