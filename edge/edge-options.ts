import type { PodStartupTrace } from '../shared/trace/pod-startup-trace.js';
import type { Observable } from 'rxjs';
import type { Clock } from '../shared/clock.js';
import type { DataDirLock } from '../shared/data-dir-lock.js';
import type { Logger } from '../shared/log.js';
import type { SyncedMessage } from '../shared/protocol/envelope.js';
import type { Timing } from '../shared/timing.js';
import type { Connectivity, TransportFactory } from '../shared/transport.js';
import type { CrashPoint } from './crash-point.js';
import type { Edged } from './edged/edged.js';
import type { EventOutbox } from './events/event-outbox.js';
import type { EdgeHub } from './hub/edge-hub.js';
import type { LocalCache } from './metamanager/local-cache.js';
import type { EdgeComponent } from './network/edge-component.js';
import type { UsageMode } from './metrics/node-usage.js';
import type { NetworkPlugin } from './network/cni/network-plugin.js';
import type { Runtime } from './runtime/runtime.js';
import type { SimVolumes, VolumeHosts } from './volumes/volume-hosts.js';

/** What startEdge (edge/main.ts) takes and gives back. */

export interface EdgeOptions {
  nodeName: string;
  /** The broker, or several comma-separated (one per cloud): the transport tries them in turn. */
  brokerUrl: string;
  token: string;
  /** The CA to trust for an mqtts:// broker. */
  ca?: string;
  dataDir: string;
  /** Port of the local API on 127.0.0.1; 0 picks a free one; null runs none (hollow edges). */
  localApiPort: number | null;
  timing?: Timing;
  clock?: Clock;
  logger?: Logger;
  /** Start as after a node reboot: containers from before are gone (a plain restart adopts them). */
  reboot?: boolean;
  /** Jitter source for reconnect backoff (tests make it deterministic). */
  random?: () => number;
  /** The node's capacity in pods, as the kubelet's --max-pods (default 110). Pod IPs come from the podCIDR (a /24 holds 253). */
  maxPods?: number;
  /** 'host-local' (default): pod addresses reserved in files in the data dir; 'memory': in memory (hollow fleets: cheap). */
  networkPlugin?: 'host-local' | 'memory';
  /** The kubelet's --pod-cidr: pod addresses from it while the node's own spec.podCIDR is not known (a cloud that assigns none). */
  podCIDR?: string;
  /** Where hostPath volumes (and claims' volumes) resolve: default `<dataDir>/host`; `/` for the real host paths. */
  /** Environment every container on this node gets, under its own and its Services' (`--pod-env`; the demo sets KEDGE_LINK_SINK). */
  podEnv?: Record<string, string>;
  hostRoot?: string;
  /** The node's address (the kubelet's --node-ip): its InternalIP, and the pod IP of hostNetwork pods (default 127.0.0.1). */
  nodeIp?: string;
  /** At most this many pod statuses per timing.statusResendMs window (default 100). */
  statusFlushBatch?: number;
  /** false: cache and sim state replaced atomically, not durably (WriteOptions.durable). Hollow fleets only: a thousand edges share one process and disk. */
  durableWrites?: boolean;
  /** Fault injection: kills the process at a step of a pod's start (KEDGE_CRASH_AT; durability tests). */
  crashPoint?: CrashPoint;
  /** The data dir's lock, taken by the caller (before joining) and released by the edge's stop; none: the edge takes it. */
  lock?: DataDirLock;
  /** Makes the node's client of the broker (sim passes an in-memory one); default an MqttTransport to `brokerUrl`. */
  transport?: TransportFactory;
  /** Where the edge notes when each pod reached its cache and when it sent the status saying it runs (shared/trace). */
  podStartups?: PodStartupTrace;
  /** Where Events not yet acked wait: 'file' (default, `<dataDir>/events.json`, kept across restarts) or 'memory' (hollow fleets). */
  eventOutbox?: 'file' | 'memory';
  /** Run kube-proxy (its agent and its listeners on the node address); default true. Hollow fleets and in-process clusters pass false unless asked. */
  serviceProxy?: boolean;
  /** Usage reports for `kubectl top` (edge/metrics/node-usage.ts): default 'measured'; hollow fleets pass 'simulated'. */
  usage?: UsageMode;
  /** Sim pods' volumes: 'disk' (default: directories in the data dir, as a process pod's) or 'memory' (records; hollow fleets). */
  simVolumes?: SimVolumes;
}

export interface EdgeHandle {
  nodeName: string;
  /** null when the edge runs no local API (localApiPort: null). */
  localApiUrl: string | null;
  /** Changes with every start of the edge process. */
  epoch: string;
  bootId: string;
  cache: LocalCache;
  runtime: Runtime;
  /** The network plugin (kedge-cni) its runtimes address sandboxes with. */
  network: NetworkPlugin;
  /** What a user may stop and start on this edge. */
  components: EdgeComponent[];
  hub: EdgeHub;
  edged: Edged;
  /** Where its pods' volumes are materialised (directories; records for sim pods with `simVolumes: 'memory'`). */
  volumeHosts: VolumeHosts;
  /** The Events recorded and not yet acked by the cloud (edge/events). */
  events: Pick<EventOutbox, 'entries' | 'dropped'>;
  connectivity$: Observable<Connectivity>;
  synced$: Observable<SyncedMessage>;
  /** Inbound payloads dropped as malformed [SYNC-1]. */
  malformed(): number;
  /** Lean messages refused (a patch on a base not held, or whose result is not the one meant), each answered with a nack. */
  leanRefused(): number;
  /** Releases every socket, timer and file; containers run on, to be adopted by the next edge process. */
  stop(): Promise<void>;
  /** As a node shutdown: stops every process pod's container (each given at most `graceMs` after SIGTERM), then as stop(). */
  shutdown(graceMs: number): Promise<void>;
}
