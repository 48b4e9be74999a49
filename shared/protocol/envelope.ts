import type { Node, PodStatus } from '../types.js';
import type { SyncedObject } from './synced-objects.js';

/**
 * The sync envelope. Every message carries who sent it (`sender`, plus `epoch`, which
 * changes each time the sender process starts), a per-sender sequence number and a
 * message id. Responses and acks carry the id they answer in `parentId`.
 */
export const PROTOCOL_VERSION = 1;

/** Identifies one version of one object: the edge and cloud compare these, never trust order. */
export interface ObjectRef {
  kind: string;
  namespace?: string;
  name: string;
  uid: string;
  resourceVersion?: string;
}

interface Base {
  v: typeof PROTOCOL_VERSION;
  id: string;
  seq: number;
  sender: string;
  epoch: string;
}

// ---- cloud → edge (topic kedge/v1/<node>/down)

/**
 * The newest version of an object this node should hold. The edge acks it once persisted.
 * `keepStatus` (lean sync, pods only): the body has no status, because the edge reported one
 * of its own for this uid and keeps it; an edge that holds none refuses it (`nack`).
 */
export interface ApplyMessage extends Base {
  type: 'apply';
  ref: ObjectRef;
  body: SyncedObject;
  keepStatus?: boolean;
}

/**
 * Lean sync: the newest version of an object as a JSON merge patch (RFC 7386) against the
 * version `base` (a resourceVersion) the edge acknowledged. The edge applies it only to that
 * version of that uid, and only if the result has `digest` (object-patch.ts); otherwise it
 * refuses it (`nack`) and the cloud sends the whole object. Acked as an apply is.
 */
export interface PatchMessage extends Base {
  type: 'patch';
  ref: ObjectRef;
  base: string;
  body: Record<string, unknown>;
  digest: string;
  keepStatus?: boolean;
}

/** A tombstone: the object with this uid is gone. Applies only when the uid matches. */
export interface DeleteMessage extends Base {
  type: 'delete';
  ref: ObjectRef;
}

/**
 * Ends the answer to a hello: the edge now holds exactly what the cloud wants it to.
 * `resendStatuses` [SYNC-15]: the cloud wrote its own view of some of the node's pods while it
 * was away, so the edge is to report every pod's status again.
 */
export interface SyncedMessage extends Base {
  type: 'synced';
  parentId: string;
  body: { applies: number; deletes: number; resendStatuses?: boolean; accepts?: string[] };
}

/** What `kubectl logs` asks for, as the edge needs it. */
export interface LogOptions {
  /** Which container; may be omitted when the pod has exactly one. */
  container?: string;
  /** The last N lines only. */
  tailLines?: number;
  /** Prefix each line with its RFC 3339 time. */
  timestamps?: boolean;
  /** The previous run of the container (after a restart). */
  previous?: boolean;
  /** Only lines written in the last N seconds (by the edge's clock). */
  sinceSeconds?: number;
  /** Only lines written at or after this time (ms since the epoch). */
  sinceTime?: number;
  /** Following: only what that run wrote after this point (tail and since then do not apply). */
  cursor?: LogCursor;
}

/**
 * [SYNC-16] A point in one container run's log: that run, and every line before `time` plus
 * the first `count` lines written at `time` lie behind it.
 */
export interface LogCursor {
  containerId: string;
  time: number;
  count: number;
}

/**
 * [SYNC-16] Asks the edge for a container's log. Not acked or re-sent: the edge answers with
 * a `logResponse` naming this id, or the cloud gives up after a timeout.
 */
export interface LogRequestMessage extends Base {
  type: 'logRequest';
  ref: ObjectRef;
  body: LogOptions;
}

// ---- edge → cloud (topic kedge/v1/<node>/up)

/** Sent on every (re)connect: what the edge holds, so the cloud can answer with the difference. */
export interface HelloMessage extends Base {
  type: 'hello';
  /** `accepts`: the lean forms this edge takes (`deflate-d1`, `patch-v1`); the cloud's `synced` says which it takes. */
  body: { bootId: string; holds: ObjectRef[]; accepts?: string[] };
}

/**
 * Lean sync: the edge cannot apply the `patch` (or `apply` with keepStatus) `parentId`: it
 * does not hold its base, or the result is not the one meant. The cloud sends the whole object.
 */
export interface NackMessage extends Base {
  type: 'nack';
  parentId: string;
  body: { reason: string };
}

/** The node's registration and heartbeat: the Node object as the edge sees itself. */
export interface NodeStatusMessage extends Base {
  type: 'nodeStatus';
  body: Node;
}

/**
 * "Still here": sent every nodeStatusIntervalMs between full node statuses, so that an idle
 * node costs ~100 bytes of uplink per interval. Not acked; the next one supersedes it.
 */
export interface HeartbeatMessage extends Base {
  type: 'heartbeat';
}

/**
 * A pod's status; the cloud applies it only to the pod with the same uid. `statusVersion`
 * grows with every status the edge reports for any pod (across edge restarts), so the cloud
 * can drop one that arrives after a newer one for the same uid.
 */
export interface PodStatusMessage extends Base {
  type: 'podStatus';
  ref: ObjectRef;
  body: PodStatus;
  statusVersion?: number;
}

/** A part of a container run's log: the text, where it ends, and whether that run has exited (nothing more will come). */
export interface LogChunk {
  text: string;
  cursor: LogCursor;
  exited: boolean;
}

/** The answer to a logRequest: the log text, or why there is none. */
export interface LogResponseMessage extends Base {
  type: 'logResponse';
  parentId: string;
  body: LogChunk | { error: string; code: 'NotFound' | 'BadRequest' };
}

/**
 * [SYNC-21] One Event the edge recorded (the kubelet's Events), under the name the edge gave
 * it: a repeat of the same event carries the same name with a higher `count` and a later
 * `lastTimestamp`. Acked; the edge keeps it (bounded) and sends it again until acked, so
 * Events recorded offline arrive after reconnect with their own timestamps.
 */
export interface EventMessage extends Base {
  type: 'event';
  body: EdgeEvent;
}

export interface EdgeEvent {
  /** The Event's metadata.name: `<object name>.<hex>`, chosen by the edge, stable across repeats. */
  name: string;
  /** The node's own Node, or a pod bound to it. */
  involvedObject: { kind: 'Pod' | 'Node'; namespace?: string; name: string; uid: string; fieldPath?: string };
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  /** How many times it happened (the event correlator's count); at least 1. */
  count: number;
  /** RFC 3339, by the edge's clock. */
  firstTimestamp: string;
  lastTimestamp: string;
}

/**
 * [SYNC-22] What the node's pods and the node use now (metrics.k8s.io's view, as the kubelet's
 * resource metrics). Sent every metrics resolution; not acked: the next one supersedes it.
 */
export interface UsageMessage extends Base {
  type: 'usage';
  body: NodeUsage;
}

export interface NodeUsage {
  /** When it was measured (ms since the epoch, the edge's clock), and over how long (ms). */
  time: number;
  windowMs: number;
  /** Quantities as metrics-server writes them: cpu in nanocores (`"123456n"`), memory in Ki (`"2048Ki"`). */
  node: { cpu: string; memory: string };
  pods: { namespace: string; name: string; uid: string; containers: { name: string; cpu: string; memory: string }[] }[];
}

// ---- both directions

/** Acknowledges the message whose id is `parentId`. */
export interface AckMessage extends Base {
  type: 'ack';
  parentId: string;
}

export type DownMessage = ApplyMessage | PatchMessage | DeleteMessage | SyncedMessage | LogRequestMessage | AckMessage;
export type UpMessage = HelloMessage | NackMessage | NodeStatusMessage | HeartbeatMessage | PodStatusMessage | LogResponseMessage | EventMessage | UsageMessage | AckMessage;
export type Envelope = DownMessage | UpMessage;

/** Retained presence payload on kedge/v1/<node>/presence. */
export interface Presence {
  online: boolean;
  epoch: string;
}

type Without<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type UpDraft = Without<UpMessage, keyof Base>;
export type DownDraft = Without<DownMessage, keyof Base>;

/** Stamps drafts with sender, epoch, sequence number and id. One per sending process. */
export class EnvelopeStamper {
  private seq = 0;
  constructor(
    readonly sender: string,
    readonly epoch: string,
  ) {}

  stamp<D extends UpDraft | DownDraft>(draft: D): D & Base {
    const seq = ++this.seq;
    return { v: PROTOCOL_VERSION, id: `${this.epoch}.${seq}`, seq, sender: this.sender, epoch: this.epoch, ...draft };
  }
}
