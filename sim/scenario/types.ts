import type { KubeObject } from '../../shared/types.js';
import type { FlapRequest, ShapeRequest } from '../link-shape/parse.js';

/**
 * A scenario: a script of steps acted out against a demo it starts itself (docs/scenarios.md).
 * Durations are milliseconds of cluster time; the runner divides them by the time scale.
 */
export interface Scenario {
  name: string;
  description: string;
  /** Edges edge-1 … edge-N. */
  nodes: number;
  /** `kedge cloud` processes (default 1); with more, they share an etcd the scenario starts. */
  clouds?: number;
  timeScale: number;
  /** The cloud's store: a real etcd cluster of this many members (etcd-0 …); none: the embedded store. */
  etcd?: number;
  /** The edges' MQTT keepalive, whole seconds of cluster time; none: the demo's (2 s). One cloud only. */
  keepaliveSeconds?: number;
  steps: Step[];
}

export type EdgeAction = 'cut' | 'heal' | 'crash' | 'restart' | 'reboot';
export const EDGE_ACTIONS: readonly EdgeAction[] = ['cut', 'heal', 'crash', 'restart', 'reboot'];

export interface ApplyStep {
  kind: 'apply';
  /** A manifest file relative to the repository (its objects are loaded before the run). */
  path?: string;
  objects: KubeObject[];
}

/** Where a resource lives in the API, as a table entry of the cloud's resources. */
export interface ResourceKind {
  kind: string;
  resource: string;
  group: string;
  namespaced: boolean;
}

export interface DeleteStep {
  kind: 'delete';
  target: ResourceKind;
  namespace: string;
  /** One object by name, or the first `count` (by name) matching `selector`. */
  name?: string;
  selector?: string;
  count?: number;
}

export interface ScaleStep {
  kind: 'scale';
  deployment: string;
  namespace: string;
  replicas: number;
}

export interface EdgeStep {
  kind: EdgeAction;
  /** Acted on at once, together. */
  nodes: string[];
}

export interface ComponentStep {
  kind: 'stop' | 'start';
  component: string;
  /** An edge's own component (kube-proxy, kedge-cni), acted on through its local API; none: a part of the cloud. */
  node?: string;
}

export interface WaitStep {
  kind: 'wait';
  ms: number;
}

export interface ExpectStep {
  kind: 'expect';
  expectation: Expectation;
  /** How long it may take to hold (0: it must hold at once). */
  withinMs: number;
  /** Once it holds, how long it must keep holding. */
  forMs: number;
  /** Records how long after the start of the latest action step it first held. */
  measure?: string;
  /** With `measure`: also records the bytes that crossed this node's link each way meanwhile. */
  bytes?: string;
}

/** Stops (SIGTERM), starts or kills (kill -9) one member of the scenario's etcd cluster. */
export interface EtcdStep {
  kind: 'etcd';
  member: string;
  action: 'stop' | 'start' | 'kill';
}

/** `cloud: { kill: leader }`: kill -9 (or start again) one of several clouds (see cloud-step.ts). */
export interface CloudStep {
  kind: 'cloud';
  action: 'kill' | 'start';
  /** `leader`, `killed` (the last one killed) or a cloud's name (cloud-1 …). */
  target: string;
}

/** `shape: { node: edge-1, profile: satellite }` (or fields, or `clear: true`): the edge's link proxy shapes its bytes. */
export interface ShapeStep {
  kind: 'shape';
  node: string;
  request: ShapeRequest;
}

/** `flap: { node: edge-1, down: 5s, every: 30s }` (or `stop: true`): the link is cut and healed on that schedule. */
export interface FlapStep {
  kind: 'flap';
  node: string;
  request: FlapRequest;
}

export type Step = ApplyStep | DeleteStep | ScaleStep | EdgeStep | ComponentStep | EtcdStep | WaitStep | CloudStep | ShapeStep | FlapStep | ExpectStep;
export type StepKind = Step['kind'];

/** A pod's phase as kubectl's STATUS shows it: a pod being deleted is Terminating. */
export type PodPhaseName = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown' | 'Terminating';
export const POD_PHASES: readonly PodPhaseName[] = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown', 'Terminating'];

export type ReadyStatus = 'True' | 'False' | 'Unknown';

/** Counts of pods, as the cloud sees them or as the edges do; filters left out match every pod. */
export interface PodsExpectation {
  kind: 'pods';
  view: 'cloud' | 'edge';
  /** Pods on this node; for the edge's view, without a node: every edge. */
  node?: string;
  namespace?: string;
  selector?: string;
  phase?: PodPhaseName;
  ready?: boolean;
  scheduled?: boolean;
  minRestarts?: number;
  maxRestarts?: number;
  /** A container waits with this reason (ContainerCreating, CrashLoopBackOff, ...). */
  waiting?: string;
  /** A message of the pod's status (its own, a condition's or a container's) contains this text. */
  message?: string;
  min: number;
  max: number;
}

export interface NodeExpectation {
  kind: 'node';
  node: string;
  ready: ReadyStatus;
}

export interface DeploymentExpectation {
  kind: 'deployment';
  name: string;
  namespace: string;
  available: number;
}

/** The edge's own view of its link. */
export interface ConnectionExpectation {
  kind: 'connection';
  node: string;
  connected: boolean;
}

/** Creating the object fails (with this HTTP status, when given). */
export interface RejectedExpectation {
  kind: 'rejected';
  object: KubeObject;
  status?: number;
}

/**
 * A file as a container sees it on its edge (a mounted ConfigMap, say): read from the edge's
 * own disk, so it shows what the pod reads whether or not the cloud is reachable.
 */
export interface FileExpectation {
  kind: 'file';
  node: string;
  /** The one pod on the node that matches (a label selector). */
  selector: string;
  namespace: string;
  /** Default: the pod's first container. */
  container?: string;
  /** The path inside the container (a volume's mountPath and a key, say). */
  path: string;
  contains: string;
}

/** Pods named in a service expectation: one by name, or those a selector matches (only the `newest` N created, when given). */
export type PodRef = { name: string } | { selector: string; newest?: number };

/**
 * A NodePort Service as a client outside the cluster sees it: `requests` HTTP GETs, each on a
 * new connection, to the node's InternalIP and the Service's nodePort, judged on the answers.
 */
export interface ServiceExpectation {
  kind: 'service';
  service: string;
  namespace: string;
  node: string;
  /** Which port of the Service (its number or name); default: its first with a nodePort. */
  port?: number | string;
  path: string;
  requests: number;
  /** true: every request is answered (2xx); false: none is. */
  answers?: boolean;
  /** How many distinct answers (bodies, trimmed). */
  servedBy?: { min: number; max: number };
  /** Every pod named must answer / none may. */
  includes?: PodRef;
  excludes?: PodRef;
}

/**
 * A write through the API (a ConfigMap created in `default`): whether it is acknowledged, or
 * fails (with this HTTP status, when given: 503 etcd unavailable, 504 etcd timed out).
 * Acknowledged writes are remembered for `written`.
 */
export interface WriteExpectation {
  kind: 'write';
  succeeds: boolean;
  status?: number;
}

/** Every write a `write` expectation saw acknowledged is still there (read through the API). */
export interface WrittenExpectation {
  kind: 'written';
}

/**
 * A read of the cloud's keys on each etcd member directly: linearizable (etcd asks its
 * quorum) or serializable (the member answers from its own data). Without `answers` it always
 * holds, recording which members answered; with it, at least one must answer (true) or none (false).
 */
export interface ReadExpectation {
  kind: 'read';
  consistency: 'linearizable' | 'serializable';
  answers?: boolean;
}

/** Who holds the control-plane Leases of several clouds. */
export interface LeadersExpectation {
  kind: 'leaders';
  /** Every Lease is held by a running cloud. */
  held?: boolean;
  /** One cloud holds every Lease. */
  sole?: boolean;
  /** No Lease is held by the cloud killed last, and each is held by a running cloud. */
  moved?: boolean;
}

export type Expectation = PodsExpectation | NodeExpectation | DeploymentExpectation | ConnectionExpectation | RejectedExpectation | FileExpectation | ServiceExpectation | WriteExpectation | WrittenExpectation | ReadExpectation | LeadersExpectation;
