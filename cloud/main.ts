import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock, type Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import { defaultTiming, type Timing } from '../shared/timing.js';
import {
  apiTokens,
  clusterResources,
  createApiServer,
  ensureKubernetesService,
  ensureRuntimeClasses,
  ensureSystemNamespaces,
  loadOrCreateCredentials,
  loadOrCreateServingCert,
  LOOPBACK_HOSTS,
  startApiServer,
  tokenFileSource,
  writeKubeconfig,
  type Credentials,
} from './apiserver/index.js';
import type { ApiClient } from './apiserver/client.js';
import { CLOUD_USERNAME, NodeSyncLedger, startCloudHub, type BrokerOptions, type CloudHubHandle } from './hub/index.js';
import { ComponentSet } from './components/component-set.js';
import { addApiServer, addEmbeddedBroker, addExternalBroker, addHub, addStore, BROKER } from './components/cloud-parts.js';
import { addControlPlane } from './components/control-plane.js';
import { apiEventRecorder } from './controllers/events.js';
import { createDashboard } from './dashboard/index.js';
import { defaultControllers } from './controllers/index.js';
import { SharedInformers } from './informer/shared-informers.js';
import { podRef } from './hub/resync.js';
import { KedgeError } from '../shared/errors.js';
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
  /** Port of the embedded broker; 0 picks a free one. Ignored with `brokerUrl`. */
  mqttPort: number;
  /** An external MQTT broker instead of the embedded one. */
  brokerUrl?: string;
  store?: 'durable' | 'memory';
  timing?: Timing;
  clock?: Clock;
  logger?: Logger;
  /** Components registered but left stopped: "scheduler", "controller-manager", or a controller's name. */
  disable?: readonly string[];
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
  /** The durable ack ledger (one NodeSync per node). */
  readonly ledger: NodeSyncLedger;
  /** Every part with its state: apiserver, store, broker, hub (cloud-parts.ts), scheduler, controller-manager and its controllers. */
  readonly components: ComponentSet;
  /**
   * Stops the embedded broker (every client drops, every retained message is gone), runs
   * `whileDown`, then starts a fresh one on the same port. For tests and demos; throws with
   * an external broker.
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
    await mkdir(options.dataDir, { recursive: true });
    const credentials = await loadOrCreateCredentials(options.dataDir);
    const store = new GatedStore(await openStore(options));
    stops.push(() => store.close());

    const components = new ComponentSet(clock, logger.child('components'));
    // The apiserver comes first, the hub later: logs go through the hub once it is there.
    const started: { hub?: CloudHubHandle } = {};
    const podLogs = {
      logs: (pod: Pod, o: LogOptions) => started.hub?.podLogs(pod.spec.nodeName!, podRef(pod), o) ?? Promise.reject(new KedgeError('Unavailable', 'the cloud hub is starting')),
    };
    const dashboard = createDashboard({ dataDir: options.dataDir, timing, clock, logger: logger.child('dashboard') });
    const api = createApiServer({
      store, clock, logger: logger.child('apiserver'), tokens: apiTokens(credentials), tokenSource: tokenFileSource(options.dataDir), resources: clusterResources, components, podLogs,
      dashboard: dashboard.api,
    });
    const loopback = api.loopback(credentials.cloud);
    await ensureSystemNamespaces(loopback);
    await ensureKubernetesService(loopback);
    await ensureRuntimeClasses(loopback);
    const apiHost = options.apiHost ?? '127.0.0.1';
    const tls = await loadOrCreateServingCert(options.dataDir, [...new Set([...LOOPBACK_HOSTS, apiHost])], clock.now());
    const server = await startApiServer({ handler: api.handle, host: apiHost, port: options.apiPort, tls, pages: dashboard.pages });
    stops.push(() => server.close());
    const kubeconfigPath = await writeKubeconfig(options.dataDir, server.url, credentials.admin, tls.certPem);
    addApiServer(components);
    addStore(components, store);

    let brokerUrl = options.brokerUrl;
    const brokerOptions: BrokerOptions = {
      host: options.mqttHost ?? '127.0.0.1',
      port: options.mqttPort,
      authenticate: (user, password) => brokerRole(credentials, user, password),
      logger: logger.child('broker'),
      nodesWaitForCloud: true,
    };
    if (!brokerUrl) {
      const broker = await addEmbeddedBroker(components, brokerOptions);
      stops.push(() => broker.close());
      brokerUrl = broker.url;
    }
    const restartBroker = async (whileDown?: () => Promise<void>): Promise<void> => {
      if (options.brokerUrl) throw new Error('the cloud uses an external broker');
      await components.stop(BROKER);
      await whileDown?.();
      const state = await components.start(BROKER);
      if (!state.running) throw new Error(`the broker did not start again: ${state.message}`);
    };
    const informers = new SharedInformers(loopback, { clock, logger: logger.child('informers') });
    const common = { api: loopback, informers, clock, signal: abort.signal };
    const ledger = await NodeSyncLedger.load({ api: loopback, clock, logger: logger.child('ledger') });
    stops.push(() => ledger.close());
    const events = apiEventRecorder(loopback, clock, 'cloudhub', logger.child('hub'));
    const hub = await startCloudHub({ ...common, brokerUrl, password: credentials.cloud, timing, logger: logger.child('hub'), ledger, events });
    stops.push(() => hub.close());
    started.hub = hub;
    if (options.brokerUrl) addExternalBroker(components, brokerUrl, hub);
    addHub(components, hub, brokerUrl);
    addControlPlane(components, { api: loopback, informers, clock, timing, logger, controllers: defaultControllers(clusterResources), disabled: new Set(options.disable) });
    stops.push(() => components.close());
    await components.startAll();

    logger.info('cloud started', { api: server.url, mqtt: brokerUrl, dataDir: options.dataDir });
    return { apiUrl: server.url, brokerUrl, kubeconfigPath, credentials, hub, store, api: loopback, ledger, components, restartBroker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The embedded broker admits the cloud hub with the cloud token and nodes with the edge token. */
function brokerRole(credentials: Credentials, user: string, password: string): 'cloud' | 'node' | false {
  if (user === CLOUD_USERNAME) return password === credentials.cloud ? 'cloud' : false;
  return password === credentials.edge ? 'node' : false;
}
