import { randomBytes } from 'node:crypto';
import { filter, merge, Subject } from 'rxjs';
import { lockDataDir } from '../shared/data-dir-lock.js';
import { join } from 'node:path';
import { realClock, type Clock } from '../shared/clock.js';
import { createLogger, type Logger } from '../shared/log.js';
import { defaultTiming, keepaliveSeconds, type Timing } from '../shared/timing.js';
import { followCloudSessions } from './cloud-session.js';
import { Edged } from './edged/edged.js';
import { answerLogRequests } from './edged/pod-logs.js';
import { startNodeHeartbeat } from './edged/node-heartbeat.js';
import { stopProcessPods } from './edged/node-shutdown.js';
import { startNodeUsage } from './metrics/node-usage.js';
import { buildNode } from './edged/node-status.js';
import { MqttTransport } from '../shared/mqtt-transport.js';
import type { Transport } from '../shared/transport.js';
import type { Node, Pod } from '../shared/types.js';
import type { EdgeHandle, EdgeOptions } from './edge-options.js';
import { edgeRefusalMessages } from './hub/broker-refusals.js';
import { EdgeHub } from './hub/edge-hub.js';
import { StatusSender } from './hub/status-sender.js';
import { StreamServer } from './streams/stream-server.js';
import { EdgeEventRecorder } from './events/event-recorder.js';
import { EVENTS_FILE, FileEventOutbox, MemoryEventOutbox, type EventOutbox } from './events/event-outbox.js';
import { EventSender } from './events/event-sender.js';
import { nodeReadyEvents, recordNodeStart } from './events/node-events.js';
import { loadIdentity, type EdgeIdentity } from './identity.js';
import { startLocalApi } from './local-api.js';
import { CloudMessageHandler } from './metamanager/cloud-message-handler.js';
import { podsIn, refOf } from './metamanager/local-cache.js';
import { CACHE_FILE, openLowdbCache } from './metamanager/lowdb-cache.js';
import { SpacedWrites } from './json-state-file.js';
import { openKubeProxy, serviceEnvFrom } from './network/proxy/kube-proxy.js';
import type { Runtime } from './runtime/runtime.js';
import { AgentRuntime, BUILT_IN_COMPONENTS } from './runtime/agent-runtime.js';
import { ComponentLogs } from './component-logs.js';
import type { EdgeComponent } from './network/edge-component.js';
import { loadLocalApiToken } from './local-api-token.js';
import type { LocalCache } from './metamanager/local-cache.js';
import type { NetworkPlugin } from './network/cni/network-plugin.js';
import { cachedPodCIDR } from './network/cni/node-pod-cidr.js';
import { memoryNetworkPlugin, openHostLocalPlugin } from './network/cni/plugins.js';
import { validAttachments } from './runtime/sandbox-network.js';
import { ProcessRuntime } from './runtime/process-runtime.js';
import { RuntimeByHandler } from './runtime/runtime-by-handler.js';
import { SimRuntime } from './runtime/sim-runtime.js';
import { edgeVolumeHosts } from './volumes/volume-hosts.js';
import { defaultHostRoot } from './volumes/volume-paths.js';

export type { EdgeHandle, EdgeOptions } from './edge-options.js';

const DEFAULT_NODE_IP = '127.0.0.1';
/** A log line names this many released addresses at most (and counts them all). */
const RELEASED_ADDRESSES_LOGGED = 10;

/** The edge's composition root: hub + cache + edged + runtime + local API, on a data dir it alone holds. */
export async function startEdge(options: EdgeOptions): Promise<EdgeHandle> {
  const componentLogs = new ComponentLogs(BUILT_IN_COMPONENTS, options.clock ?? realClock);
  const logger = componentLogs.tap(options.logger ?? createLogger(`edge/${options.nodeName}`));
  const lock = options.lock ?? (await lockDataDir(options.dataDir, { command: `kedge edge ${options.nodeName}`, logger }));
  try {
    const edge = await startHolding(options, logger, componentLogs);
    return { ...edge, stop: () => edge.stop().finally(() => lock.release()), shutdown: (graceMs) => edge.shutdown(graceMs).finally(() => lock.release()) };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

async function startHolding(options: EdgeOptions, logger: Logger, componentLogs: ComponentLogs): Promise<EdgeHandle> {
  const { nodeName, dataDir } = options;
  const timing = options.timing ?? defaultTiming;
  const clock = options.clock ?? realClock;
  const reboot = options.reboot ?? false;
  const hostIP = options.nodeIp ?? DEFAULT_NODE_IP;

  const identity = await loadIdentity(dataDir, reboot, logger);
  // Hollow edges write their state files not durably and spaced; the stop settles them.
  const spaced = options.durableWrites === false ? new SpacedWrites() : undefined;
  const cache = await openLowdbCache(join(dataDir, CACHE_FILE), { logger: logger.child('metamanager'), spaced });
  const { crashPoint } = options;
  // The parts a user may stop and start (kube-proxy, kedge-cni): the local API and the kedge-agent runtime follow them.
  const network = await openNetwork(options, { cache, clock, logger });
  const components: EdgeComponent[] = [network];
  const agents = new AgentRuntime({ components: () => components, clock, hostIp: hostIP, logs: (name) => componentLogs.lines(name) });
  const { runtime, processes } = await openRuntimes(options, { timing, clock, reboot, hostIP, spaced, logger, agents, network });
  const epoch = randomBytes(4).toString('hex');
  const readySince = clock.now();

  const hub = new EdgeHub({
    nodeName,
    transport: nodeTransport(options, timing, clock, logger.child('hub')),
    epoch,
    bootId: identity.bootId,
    clock,
    logger: logger.child('hub'),
    holds: () => cache.objects().map(refOf),
  });
  const isConnected = (): boolean => hub.connectivity.connected;
  const statuses = new StatusSender({
    cache,
    hub,
    isConnected,
    clock,
    timing,
    logger: logger.child('status'),
    ...(options.statusFlushBatch !== undefined ? { batch: options.statusFlushBatch } : {}),
    trace: options.podStartups,
  });
  const eventOutbox = await openEventOutbox(options, logger.child('events'), spaced);
  const events = new EventSender({ outbox: eventOutbox, hub, isConnected, clock, timing, logger: logger.child('events') });
  const recorder = new EdgeEventRecorder({ outbox: eventOutbox, clock, logger: logger.child('events'), onRecorded: () => events.flush() });
  const handler = new CloudMessageHandler({
    cache,
    send: (draft) => hub.send(draft),
    logger: logger.child('metamanager'),
    onAck: (parentId) => statuses.onAck(parentId) || events.onAck(parentId),
    onLogRequest: answerLogRequests({ cache, runtime, clock, send: (draft) => hub.send(draft) }),
    trace: options.podStartups,
  });
  // A lost cache holds no pods (an older copy: not the newest), but the runtime may still run
  // them: they run on, through restarts, until the cloud's answer to a hello says which.
  const volumeHosts = edgeVolumeHosts({ dataDir, hostRoot: options.hostRoot ?? defaultHostRoot(dataDir), clock, simVolumes: options.simVolumes ?? 'disk' });
  const podStatuses = new Subject<void>();
  const kubeProxy = options.serviceProxy === false ? undefined
    : await openKubeProxy({ dataDir, nodeName, nodeAddress: hostIP, cache, changes$: merge(handler.changes$, podStatuses), clock, logger: logger.child('kube-proxy'), spaced });
  const servicesEnv = serviceEnvFrom(cache, kubeProxy ? (key) => kubeProxy.rules.portalOf(key) : undefined);
  const nodeEnv = Object.entries(options.podEnv ?? {});
  const serviceEnv = nodeEnv.length === 0 ? servicesEnv : (pod: Pod) => new Map([...nodeEnv, ...servicesEnv(pod)]);
  const onStatusQueued = (): void => {
    statuses.flush();
    podStatuses.next();
  };
  const edged = new Edged({ cache, runtime, network, clock, timing, logger: logger.child('edged'), hostIP, onStatusQueued, keepUnheldPods: () => cache.awaitingRelist(), crashPoint, volumeHosts, serviceEnv, events: recorder });

  // Listening first: if the port is taken, startEdge fails before any timer or socket exists.
  const localApi =
    options.localApiPort === null
      ? undefined
      : await startLocalApi({ port: options.localApiPort, cache, connectivity: () => hub.connectivity, ready: () => edged.ready(), logger: logger.child('local-api'), clock,
          lastHeardFromBroker: () => hub.lastHeardFromBroker, keepaliveSeconds: keepaliveSeconds(timing.keepaliveMs),
          token: await loadLocalApiToken(dataDir), components: () => components, runtime, onComponentChange: () => void edged.sync(),
          ...(kubeProxy ? { metrics: () => kubeProxy.rules.counters.text() } : {}) });

  const stopSessions = followCloudSessions({ inbound$: hub.inbound$, connectivity$: hub.connectivity$, handler, cache, edged, statuses, timing, logger });
  const streams = new StreamServer({ nodeName, cache, runtime, clock, logger: logger.child('streams'), frames$: hub.streamFrames$, publish: (frame) => hub.publishStreamFrame(frame), connectivity$: hub.connectivity$ });
  const stopEventSessions = events.followSessions(hub.connectivity$);
  recordNodeStart(recorder, nodeName, identity);
  const stopHeartbeat = heartbeat(options, { hub, runtime, identity, hostIP, readySince, clock, timing, logger, readiness: nodeReadyEvents(recorder, nodeName) });
  const stopUsage = startNodeUsage(options.usage ?? 'measured', { runtime, pods: () => podsIn(cache), isConnected, resets$: merge(hub.connectivity$.pipe(filter((c) => c.connected)), handler.synced$), send: (draft) => hub.send(draft), clock, timing, logger: logger.child('metrics') });

  // From the cache as read: an edge restarted offline routes at once.
  if (kubeProxy) components.push(kubeProxy.agent);
  await kubeProxy?.agent.start();
  edged.start(handler.changes$);
  statuses.start();
  events.start();
  hub.start();
  logger.info('edge started', { node: nodeName, localApi: localApi?.url ?? 'none', bootId: identity.bootId, reboot });

  let stopping: Promise<void> | undefined;
  const stop = async (shutdownGraceMs?: number): Promise<void> => {
    await localApi?.close();
    await kubeProxy?.close();
    stopHeartbeat();
    stopUsage();
    statuses.stop();
    events.stop();
    stopEventSessions();
    await edged.stop();
    // Simulated containers hold nothing real: they are left for the next edge process to adopt.
    if (shutdownGraceMs !== undefined) await stopProcessPods({ runtime: processes, pods: () => podsIn(cache), timing, logger: logger.child('edged') }, shutdownGraceMs);
    stopSessions();
    streams.close();
    await hub.stop();
    handler.stop();
    await cache.flush();
    await eventOutbox.flush();
    await spaced?.settle(); // nothing lands in the data dir after the stop
    processes.close(); // what still runs runs on, to be adopted by the next edge process
    logger.info('edge stopped');
  };

  return {
    nodeName,
    localApiUrl: localApi?.url ?? null,
    epoch,
    bootId: identity.bootId,
    cache,
    runtime,
    network,
    hub,
    edged,
    components,
    volumeHosts,
    events: eventOutbox,
    connectivity$: hub.connectivity$,
    synced$: handler.synced$,
    malformed: () => hub.malformed,
    leanRefused: () => handler.refused,
    stop: () => (stopping ??= stop()),
    shutdown: (graceMs) => (stopping ??= stop(graceMs)),
  };
}

/** The node's client of the broker: it connects as the node (client id and user name), with its token. */
function nodeTransport(options: EdgeOptions, timing: Timing, clock: Clock, logger: Logger): Transport {
  const identity = { clientId: options.nodeName, username: options.nodeName, password: options.token };
  return options.transport?.(identity) ?? new MqttTransport({
    ...identity,
    brokerUrl: options.brokerUrl,
    ...(options.ca ? { ca: options.ca } : {}),
    keepaliveMs: timing.keepaliveMs,
    connectTimeoutMs: Math.max(1000, timing.connectTimeoutMs),
    reconnectMinMs: timing.reconnectMinMs,
    reconnectMaxMs: timing.reconnectMaxMs,
    clock,
    logger,
    random: options.random ?? Math.random,
    refusals: edgeRefusalMessages,
  });
}

/** The network plugin (kedge-cni): host-local IPAM in the data dir, or in memory (hollow fleets); pod addresses from the node's podCIDR. */
async function openNetwork(options: EdgeOptions, deps: { cache: LocalCache; clock: Clock; logger: Logger }): Promise<NetworkPlugin> {
  const { nodeName, dataDir } = options;
  const plugin = { nodeName, clock: deps.clock, podCIDR: cachedPodCIDR(deps.cache, nodeName, options.podCIDR) };
  if (options.networkPlugin === 'memory') return memoryNetworkPlugin(plugin);
  return openHostLocalPlugin({ ...plugin, dataDir, logger: deps.logger.child('kedge-cni') });
}

/**
 * The node's runtimes by RuntimeClass handler: `sim` (the default), `process` and `kedge-agent`,
 * their sandboxes addressed by the one network plugin; once they have put right what a crash
 * left, the plugin releases the addresses no sandbox of theirs holds (GC).
 */
async function openRuntimes(
  options: EdgeOptions,
  deps: { timing: Timing; clock: Clock; reboot: boolean; hostIP: string; spaced: SpacedWrites | undefined; logger: Logger; agents: AgentRuntime; network: NetworkPlugin },
): Promise<{ runtime: Runtime; processes: ProcessRuntime }> {
  const { dataDir } = options;
  const { timing, clock, reboot, spaced, logger, network } = deps;
  const addressing = { network, hostIp: deps.hostIP };
  const sim = await SimRuntime.open({ ...addressing, dataDir, clock, defaultStartMs: timing.containerStartMs, timeScale: timing.timeScale, reboot, logger: logger.child('sim'), spaced });
  const processes = await ProcessRuntime.open({ ...addressing, dataDir, clock, reboot, logger: logger.child('process'), crashPoint: options.crashPoint });
  const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', sim], ['process', processes], [deps.agents.name, deps.agents]]), 'sim');
  const released = await network.gc(validAttachments(await runtime.listSandboxes()));
  // After a reboot every address is released (the runtime lost its sandboxes): said, not warned of.
  const said = { count: released.length, addresses: released.slice(0, RELEASED_ADDRESSES_LOGGED) };
  if (released.length > 0) logger.child('kedge-cni')[reboot ? 'info' : 'warn']('released pod addresses no sandbox holds', said);
  return { runtime, processes };
}

/** The Events not yet acked: in `<dataDir>/events.json`, or in memory (hollow fleets). */
async function openEventOutbox(options: EdgeOptions, logger: Logger, spaced: SpacedWrites | undefined): Promise<EventOutbox> {
  if (options.eventOutbox === 'memory') return new MemoryEventOutbox();
  return FileEventOutbox.open(join(options.dataDir, EVENTS_FILE), { logger, spaced });
}

/** Node status to the cloud: every nodeStatusIntervalMs when it changed, every nodeStatusReportMs regardless. */
function heartbeat(
  options: EdgeOptions,
  deps: { hub: EdgeHub; runtime: Runtime; identity: EdgeIdentity; hostIP: string; readySince: number; clock: Clock; timing: Timing; logger: Logger; readiness: (node: Node) => Node },
): () => void {
  const { hub, runtime, identity, clock, timing } = deps;
  return startNodeHeartbeat({
    connectivity$: hub.connectivity$,
    isConnected: () => hub.connectivity.connected,
    send: (draft) => hub.send(draft),
    buildNode: () =>
      deps.readiness(buildNode({ nodeName: options.nodeName, hostIP: deps.hostIP, runtimeName: runtime.name, runtimeVersion: runtime.version, ...identity, readySince: deps.readySince, ...(options.maxPods ? { maxPods: options.maxPods } : {}) }, clock.now())),
    clock,
    intervalMs: timing.nodeStatusIntervalMs,
    reportMs: timing.nodeStatusReportMs,
    logger: deps.logger.child('heartbeat'),
  });
}
