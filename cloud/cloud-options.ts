import type { Observable } from 'rxjs';
import type { Clock } from '../shared/clock.js';
import type { Counters } from '../shared/counters.js';
import type { DataDirLock } from '../shared/data-dir-lock.js';
import type { Logger } from '../shared/log.js';
import type { Timing } from '../shared/timing.js';
import type { PodStartupRecorder } from '../shared/trace/pod-startup-trace.js';
import type { TransportFactory } from '../shared/transport.js';
import type { Credentials } from './apiserver/index.js';
import type { ApiClient } from './client/client.js';
import type { ComponentSet } from './components/component-set.js';
import type { AckLedger, CloudHubHandle, InProcessBrokerMaker } from './hub/index.js';
import type { Store } from './store/store.js';
import type { EtcdSettings } from './store/etcd/open-etcd-store.js';

/** What startCloud (cloud/main.ts) takes and gives back. */

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
  /** A Store instance: one shared with other clouds (tests), which this cloud's stop leaves open. */
  store?: 'durable' | 'memory' | 'etcd' | Store;
  /** With store 'etcd': where etcd is and how to reach it (kube-apiserver's --etcd-* flags). */
  etcd?: EtcdSettings;
  timing?: Timing;
  clock?: Clock;
  logger?: Logger;
  /**
   * For a cloud reachable from other machines: the API refuses plain HTTP and the embedded
   * broker speaks MQTT over TLS only, both with a certificate signed by the data dir's CA.
   */
  tlsOnly?: boolean;
  /**
   * The IP the cloud tells the cluster it is at (kube-apiserver's --advertise-address): listed in
   * `default/kubernetes` Endpoints, the other clouds' way to its API, its control-plane Node's
   * InternalIP. Default: `apiHost` when it is an IP, 127.0.0.1 for loopback, else this machine's
   * first non-loopback IPv4 address.
   */
  advertiseAddress?: string;
  /** More names and addresses for the serving certificate (the API and host addresses always are). */
  tlsSans?: readonly string[];
  /** The pod network node IPAM cuts into node ranges (kube's --cluster-cidr; default 127.64.0.0/10, loopback). IPv4 only. */
  clusterCidr?: string;
  /** The prefix length of each node's range (--node-cidr-mask-size; default 24). */
  nodeCidrMaskSize?: number;
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
  /**
   * Registers the cloud as a control-plane Node of this name, with mirror pods of its components
   * in kube-system and their logs (`kedge cloud --node-name`); none: the cloud is no node.
   */
  controlPlaneNode?: string;
  /** Creates the edge agents' kube-system DaemonSets (kube-proxy, kedge-cni) at start, as `kedge cloud` does. */
  agentDaemonSets?: boolean;
  /**
   * Where the cloud notes when each pod is created, bound, sent to its node, reported running and
   * seen Running (`--trace-pod-startup`); admins read it at /debug/kedge/pod-startups. None: nowhere.
   */
  podStartups?: PodStartupRecorder;
  /**
   * Leader election (`--leader-elect`, default true): the scheduler, the controller-manager and
   * the hub each campaign for their Lease in kube-system; false: they run unconditionally.
   */
  leaderElect?: boolean;
  /** Leader election's retry jitter (tests fix it); default Math.random. */
  electionRandom?: () => number;
  /**
   * Whether the embedded broker admits nodes (default: always): with several clouds, true while
   * this cloud's hub leads. While false, nodes are refused at CONNECT (CONNACK 3); when it turns
   * false, their connections are closed. Not applied to an in-process or external broker.
   */
  nodesAdmitted$?: Observable<boolean>;
}

export interface Cloud {
  /** https:// URL (plain http:// answers on the same port too). */
  readonly apiUrl: string;
  readonly brokerUrl: string;
  readonly kubeconfigPath: string;
  readonly credentials: Credentials;
  /** The hub that runs now: this cloud's while it leads the hub's Lease; while it stands by, no node, zero figures, logs and streams Unavailable. */
  readonly hub: CloudHubHandle;
  /** The store behind its on/off switch (`kedge component stop store`). */
  readonly store: Store;
  /** An in-process client with the cloud's own identity (same pipeline as HTTP). */
  readonly api: ApiClient;
  /** What was refused or dropped, by reason (also at GET /metrics). */
  readonly counters: Counters;
  /** The CA clients trust (PEM); its fingerprint is in every join token. */
  readonly caPem: string;
  /** The running hub's durable ack ledger (one NodeSync per node); empty and read-only while this cloud's hub stands by. */
  readonly ledger: AckLedger;
  /** Every part with its state: apiserver, store, broker, hub (cloud-parts.ts), scheduler, controller-manager and its controllers. */
  readonly components: ComponentSet;
  /** Whether this cloud's hub leads (Lease kube-system/kedge-hub); always true with leaderElect false. */
  readonly hubLeading$: Observable<boolean>;
  /** The hub Lease's holder last seen; undefined with leaderElect false. */
  hubLeader(): string | undefined;
  /**
   * Stops the cloud's own broker, embedded or in-process (every client drops, every retained
   * message is gone), runs `whileDown`, then starts a fresh one (the embedded one on the same
   * port). For tests and demos; throws with an external broker.
   */
  restartBroker(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}
