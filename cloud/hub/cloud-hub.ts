import { filter, firstValueFrom, type Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { EnvelopeStamper, type DownDraft, type DownMessage, type LogChunk, type LogOptions, type ObjectRef } from '../../shared/protocol/envelope.js';
import { Counters, refusals } from '../../shared/counters.js';
import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { Transport } from '../../shared/transport.js';
import { encode } from '../../shared/protocol/codec.js';
import { topics } from '../../shared/protocol/topics.js';
import { publishOrder, STREAM_FRAME_ORDER } from '../../shared/protocol/publish-order.js';
import { objectKey, type Node, type NodeCondition, type Pod } from '../../shared/types.js';
import { untraced, type PodStartupTrace } from '../../shared/trace/pod-startup-trace.js';
import type { ApiClient } from '../client/client.js';
import { humanDuration } from '../client/human-duration.js';
import type { EventRecorder } from '../controllers/events.js';
import { MemoryAckLedger, type AckLedger } from './ack-ledger.js';
import type { Inbound } from './inbound.js';
import { onBrokerLost, streamFrames, validatedInbound } from './broker-link.js';
import { SharedInformers, type Informers } from '../informer/shared-informers.js';
import { KeyedSerial } from '../../shared/keyed-serial.js';
import { LogRequests, type LogTarget } from './log-requests.js';
import { HubStreams } from './streams/hub-streams.js';
import type { HubPodStream } from './streams/cloud-stream.js';
import type { StreamRequest } from '../../shared/protocol/streams.js';
import { BoundPods } from './bound-pods.js';
import { ReferenceIndex } from './reference-index.js';
import { followReferencedObjects } from './referenced-objects.js';
import { ServiceIndex } from './service-index.js';
import { OwnNodes } from './own-nodes.js';
import { followNetworkObjects } from './network-sync.js';
import { collectLedgers } from './ledger-gc.js';
import type { SessionTransport } from './node-outbox.js';
import { Sessions } from './sessions.js';
import { SentBodies } from './sent-bodies.js';
import { HUB_REJECTED, inboundHandler, type HubStats } from './inbound-handler.js';
import { NodeLeases } from './node-leases.js';
import { NodeUsages, type ReportedUsage } from './node-usages.js';

export interface CloudHubOptions {
  /** The cloud's own client (informers, the node-role label, Events). */
  api: ApiClient;
  /** A client acting as node `node` (ApiServer.loopbackAsNode): what an edge reports is written as that node. */
  apiAsNode(node: string): ApiClient;
  /** The cloud's shared informers (default: the hub's own). */
  informers?: Informers;
  /** The hub's client of the broker (connected as `kedge-cloud-<epoch>`): the hub starts it and closes it. */
  transport: Transport;
  /** This hub's envelope epoch: it changes with every start of the cloud. */
  epoch: string;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  signal?: AbortSignal;
  /** Default: in memory. */
  ledger?: AckLedger;
  /** Where the hub reports pods that ran on after their deletion (see SessionDeps.onStaleStopped). */
  events?: EventRecorder;
  /** Where the hub counts the messages it rejects (default: a private set). */
  counters?: Counters;
  /** Where the hub notes when it first sends each pod and when its node reports it running (default: nowhere). */
  trace?: PodStartupTrace;
}

export type { HubStats } from './inbound-handler.js';

/** How many entries the hub's per-pod and per-node tables hold (each bounded by live pods, nodes or work in flight). */
export interface HubTables {
  /** Live pods, with the node each is bound to and its newest status version. */
  pods: number;
  sessions: number;
  logRequests: number;
  reportedConditions: number;
  /** Streams open or opening to edges [SYNC-20]. */
  streams: number;
  /** Connected nodes' newest usage reports. */
  usages: number;
  /** Keys with inbound messages queued or being handled. */
  inFlight: number;
  /** ConfigMaps, Secrets, claims and volumes (by name) that at least one bound pod needs [SYNC-18]. */
  referenced: number;
}

export interface CloudHubHandle {
  stats(): HubStats;
  tables(): HubTables;
  /** Nodes between their hello and their presence offline, sorted. */
  connectedNodes(): string[];
  /** Whether the hub is subscribed at the broker right now, and since when (epoch ms). */
  brokerLink(): { up: boolean; since: number };
  readonly ledger: AckLedger;
  /** A container's log from the edge that runs the pod [SYNC-16]; Unavailable while that edge is away. */
  podLogs(node: string, ref: ObjectRef, options: LogOptions): Promise<LogChunk>;
  /** Streams (exec, attach, port-forward) to pods on their edges [SYNC-20]. */
  readonly streams: { open(pod: Pod, request: StreamRequest): Promise<HubPodStream> };
  /** The newest usage report of each connected node [SYNC-22]. */
  nodeUsages(): ReportedUsage[];
  /** Closes the transport and releases the pod watch and every timer. Idempotent. */
  close(): Promise<void>;
}

/** The hub writes a node's Ready heartbeat time itself only when the edge's full reports have not moved it for this many report periods. */
const HEARTBEAT_REFRESH_REPORTS = 2;

/**
 * The cloud end of the sync (KubeEdge's CloudHub + SyncController): a client of the broker
 * that watches pods, keeps one NodeSession per node, answers hellos, and writes node and pod
 * status reported by edges. Resolves once connected and the first pod list is in.
 */
export async function startCloudHub(options: CloudHubOptions): Promise<CloudHubHandle> {
  const { api, clock, timing, signal } = options;
  const logger = options.logger.child('hub');
  const ledger = options.ledger ?? new MemoryAckLedger();
  const trace = options.trace ?? untraced;
  const counters: HubStats = { malformed: 0, received: 0, sent: 0, logRequests: 0, resent: 0, acked: 0, sentBytes: 0 };
  const stamper = new EnvelopeStamper('cloud', options.epoch);
  const link = options.transport;
  const publish = (node: string, message: DownMessage): void => {
    if (!link.connectivity.connected) return; // the node re-sends, or we do after its next hello
    const payload = encode(message, sessions.find(node)?.lean.compresses ?? false);
    counters.sentBytes += payload.length;
    link.publish(topics.down(node), payload, publishOrder(message)).catch((err: Error) => logger.warn('publish failed', { node, type: message.type, error: err.message }));
  };
  const transport: SessionTransport = {
    send(node: string, draft: DownDraft): DownMessage {
      const message = stamper.stamp(draft) as DownMessage;
      counters.sent++;
      if (message.type === 'apply' && message.ref.kind === 'Pod') trace.mark(objectKey(message.ref), 'sent');
      if (message.type === 'logRequest') counters.logRequests++;
      publish(node, message);
      return message;
    },
    resend(node: string, message: DownMessage): void {
      counters.resent++;
      publish(node, message);
    },
  };
  const onStaleStopped = (node: string, ref: ObjectRef, deletedAt: number): void =>
    options.events?.record(nodeObject(node), 'Warning', 'StalePodStopped', staleMessage(node, ref, clock.now() - deletedAt));
  const nodes = new Map<string, Node>(); // the Nodes in the cache
  const sessions = new Sessions({ clock, timing, ledger, transport, onStaleStopped, sentBodies: new SentBodies() }, (node) => nodes.has(node));
  const logRequests = new LogRequests(clock, transport);
  const publishStream = (node: string, payload: Buffer): void => {
    if (!link.connectivity.connected) return; // its node counts as away: the stream ends
    link.publish(topics.streamDown(node), payload, STREAM_FRAME_ORDER).catch((err: Error) => logger.warn('publish failed', { node, topic: 'stream-down', error: err.message }));
  };

  let podsSynced!: () => void;
  let nodesSynced!: () => void;
  const podsReady = new Promise<void>((resolve) => (podsSynced = resolve));
  const nodesReady = new Promise<void>((resolve) => (nodesSynced = resolve));
  const informers = options.informers ?? new SharedInformers(api, { clock, logger });
  const pods$ = informers.of<Pod>({ resource: 'pods' });
  const nodes$ = informers.of<Node>({ resource: 'nodes' });
  const references = new ReferenceIndex();
  const referenced = followReferencedObjects(informers, references, sessions);
  const services = new ServiceIndex();
  const network = followNetworkObjects(informers, services, new OwnNodes(), sessions);
  const ready = Promise.all([podsReady, nodesReady, referenced.synced, network.synced]);

  const boundPods = new BoundPods();
  const reportedConditions = new Map<string, NodeCondition[]>();
  const usages = new NodeUsages();
  const reject = refusals(options.counters ?? new Counters(), HUB_REJECTED, logger, 'hub rejected a message', { clock });
  const target = (node: string): LogTarget => sessions.find(node) ?? { node, connected: false, offlineSince: undefined };
  const streams = new HubStreams({ clock, logger, epoch: options.epoch, publish: publishStream, target, reject, onMalformed: () => counters.malformed++ });
  const onNodeAway = (node: string): void => streams.nodeAway(node);
  const nodeUid = (node: string): string | undefined => nodes.get(node)?.metadata.uid;
  const leases = new NodeLeases({ apiAsNode: options.apiAsNode, clock, timing, nodeUid });
  const handle = inboundHandler({ api, apiAsNode: options.apiAsNode, clock, logger, stats: counters, transport, sessions, logRequests, boundPods, reportedConditions, nodeUid, cachedNode: (node) => nodes.get(node), usages, reject, leases, heartbeatRefreshMs: HEARTBEAT_REFRESH_REPORTS * timing.nodeStatusReportMs, onNodeAway, trace });
  const serial = new KeyedSerial();

  const subscriptions: Subscription[] = [
    pods$.subscribe((event) => {
      boundPods.onPodEvent(event);
      // What a pod references (and its namespace's Services) goes down before it, and its tombstones after it.
      const actions = [...references.onPodEvent(event), ...services.onPodEvent(event)];
      sessions.onReferences(actions.filter((a) => a.type === 'want'));
      sessions.onPodEvent(event);
      sessions.onReferences(actions.filter((a) => a.type === 'unwant'));
      if (event.type === 'SYNCED') podsSynced();
    }),
    ...referenced.subscriptions,
    ...network.subscriptions,
    nodes$.subscribe((event) => {
      if (event.type === 'SYNCED') return;
      const name = event.object.metadata.name ?? '';
      if (event.type !== 'DELETED') return void nodes.set(name, event.object);
      nodes.delete(name);
      reportedConditions.delete(name);
      leases.forget(name);
      usages.forget(name);
      sessions.forgetIfGone(name);
    }),
    collectLedgers(nodes$, ledger, (node) => sessions.find(node)?.connected ?? false, nodesSynced),
    // Serial per node (a hello is answered before that node's next message), except pod
    // statuses, which are serial per pod (a node's pods are written concurrently), and Events.
    // Hellos are answered from a complete pod cache, after the ledger's GC.
    // Stream frames go straight to their streams: never queued behind (or ahead of) sync messages.
    streamFrames(link).subscribe((message) => streams.receive(message)),
    validatedInbound(link, { clock, logger, onMalformed: () => counters.malformed++ }).subscribe((inbound) => void serial.run(inboundKey(inbound), () => ready.then(() => handle(inbound)))),
    onBrokerLost(link, () => {
      logger.warn('lost the broker; every node counts as disconnected until its next hello');
      sessions.disconnectAll();
      streams.allAway('the cloud hub lost its broker session');
      usages.clear();
    }),
  ];
  const connected = firstValueFrom(link.connectivity$.pipe(filter((c) => c.connected)), { defaultValue: undefined }); // closed first: the signal says why
  link.start({ subscriptions: [topics.allUp, topics.allPresence, topics.allStreamUp] });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      for (const s of subscriptions) s.unsubscribe();
      sessions.close();
      logRequests.close();
      streams.close();
      await link.close();
    })());
  const onAbort = (): void => void close();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) await close();

  await untilAborted(Promise.all([connected, ready]), signal);
  logger.info('cloud hub started', { epoch: stamper.epoch });
  const podLogs = async (node: string, ref: ObjectRef, options: LogOptions): Promise<LogChunk> => logRequests.ask(target(node), ref, options);
  const tables = (): HubTables => ({ pods: boundPods.size, sessions: sessions.size, logRequests: logRequests.size, streams: streams.size, reportedConditions: reportedConditions.size, usages: usages.size, inFlight: serial.size, referenced: references.size });
  const nodeUsages = (): ReportedUsage[] => usages.reports().filter((r) => sessions.find(r.node)?.connected);
  return { stats: () => ({ ...counters }), tables, connectedNodes: () => sessions.connected(), brokerLink: () => ({ up: link.connectivity.connected, since: link.connectivity.since }), ledger, podLogs, streams, nodeUsages, close };
}

const nodeObject = (name: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });

/** The Event text for a pod that ran on, offline, after the cloud deleted it. */
export function staleMessage(node: string, ref: ObjectRef, ranForMs: number): string {
  return `Pod ${ref.namespace ?? 'default'}/${ref.name} kept running on ${node} for ${humanDuration(ranForMs)} after it was deleted while the node was unreachable (beside any replacement); the edge stopped it on reconnect`;
}

/** Pod statuses are serial per pod, a node's Events in a lane of their own (a backlog sent after a reconnect never holds up its status), the rest per node. */
function inboundKey(inbound: Inbound): string {
  if (inbound.channel !== 'up') return `node/${inbound.node}`;
  if (inbound.message.type === 'podStatus') return `pod/${inbound.message.ref.uid}`;
  return inbound.message.type === 'event' ? `events/${inbound.node}` : `node/${inbound.node}`;
}

/** Resolves with `work`, or rejects with the signal's reason if it aborts first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
