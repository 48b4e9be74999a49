import type { DownMessage, Envelope, ObjectRef, Presence, UpMessage } from './envelope.js';
import { PROTOCOL_VERSION } from './envelope.js';
import { bracketDepth } from '../json-depth.js';
import { MAX_PAYLOAD_BYTES, MAX_PAYLOAD_NESTING } from './limits.js';
import { isSyncedKind, syncedBodyProblem } from './synced-objects.js';
import { compressPayload, inflatePayload, isCompressed } from './wire-compression.js';

/**
 * Inbound payloads larger or deeper than the limits (limits.ts: the API's object limits plus
 * the envelope) are rejected before parsing: deep values overflow the stack of recursive code.
 */
export { MAX_PAYLOAD_BYTES, MAX_PAYLOAD_NESTING };

export type Decoded<T> = { ok: true; message: T } | { ok: false; reason: string };

/** The payload of a message; `compress`: in the compressed form when that is smaller (only for a peer that takes it). */
export function encode(message: Envelope | Presence, compress = false): Buffer {
  const json = Buffer.from(JSON.stringify(message));
  return compress ? compressPayload(json) : json;
}

type Check = (m: Record<string, unknown>) => string | undefined;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isText = (x: unknown, max = 256): x is string => typeof x === 'string' && x.length > 0 && x.length <= max;
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

export function refProblem(x: unknown): string | undefined {
  if (!isObject(x)) return 'ref must be an object';
  if (!isText(x.kind, 64)) return 'ref.kind must be a string';
  if (!isText(x.name, 253)) return 'ref.name must be a string';
  if (!isText(x.uid, 128)) return 'ref.uid must be a string';
  if (x.namespace !== undefined && !isText(x.namespace, 63)) return 'ref.namespace must be a string';
  if (x.resourceVersion !== undefined && !isText(x.resourceVersion, 32)) return 'ref.resourceVersion must be a string';
  return undefined;
}

const checkAck: Check = (m) => (isText(m.parentId) ? undefined : 'parentId must be a string');
const checkKeepStatus: Check = (m) => (m.keepStatus === undefined || typeof m.keepStatus === 'boolean' ? undefined : 'keepStatus must be a boolean');

/** The lean forms a peer says it takes: a few short names. */
function acceptsProblem(accepts: unknown): string | undefined {
  if (accepts === undefined) return undefined;
  return Array.isArray(accepts) && accepts.length <= 16 && accepts.every((a) => isText(a, 64)) ? undefined : 'body.accepts must list at most 16 names';
}

const patchProblem: Check = (m) =>
  refProblem(m.ref) ??
  (isSyncedKind((m.ref as ObjectRef).kind) ? undefined : 'ref.kind must be a synced kind') ??
  (isText(m.base, 32) ? undefined : 'base must be a resourceVersion') ??
  (isObject(m.body) ? undefined : 'body must be a merge patch (an object)') ??
  (isText(m.digest, 64) ? undefined : 'digest must be a string') ??
  checkKeepStatus(m);

const downChecks: Record<DownMessage['type'], Check> = {
  apply: (m) => refProblem(m.ref) ?? syncedBodyProblem(m.ref as ObjectRef, m.body) ?? checkKeepStatus(m),
  patch: patchProblem,
  delete: (m) => refProblem(m.ref),
  logRequest: (m) => refProblem(m.ref) ?? logOptionsProblem(m.body),
  synced: (m) =>
    checkAck(m) ??
    (isObject(m.body) && isCount(m.body.applies) && isCount(m.body.deletes) ? undefined : 'body must count applies and deletes') ??
    (isObject(m.body) && m.body.resendStatuses !== undefined && typeof m.body.resendStatuses !== 'boolean' ? 'body.resendStatuses must be a boolean' : undefined) ??
    acceptsProblem((m.body as Record<string, unknown>).accepts),
  ack: checkAck,
};

const upChecks: Record<UpMessage['type'], Check> = {
  hello: (m) => {
    if (!isObject(m.body) || !isText(m.body.bootId, 128)) return 'body.bootId must be a string';
    if (!Array.isArray(m.body.holds)) return 'body.holds must be an array';
    for (const ref of m.body.holds) {
      const bad = refProblem(ref);
      if (bad) return `body.holds: ${bad}`;
    }
    return acceptsProblem(m.body.accepts);
  },
  nack: (m) => checkAck(m) ?? (isObject(m.body) && typeof m.body.reason === 'string' && m.body.reason.length <= 1024 ? undefined : 'body.reason must be a string'),
  nodeStatus: (m) => {
    if (!isObject(m.body) || !isObject(m.body.metadata)) return 'body must be a Node';
    return m.body.metadata.name === m.sender ? undefined : 'a node may only report its own Node';
  },
  heartbeat: () => undefined,
  podStatus: (m) =>
    refProblem(m.ref) ??
    (isObject(m.body) ? undefined : 'body must be a PodStatus') ??
    (m.statusVersion === undefined || isCount(m.statusVersion) ? undefined : 'statusVersion must be a non-negative integer'),
  logResponse: (m) => checkAck(m) ?? logBodyProblem(m.body),
  event: (m) => eventProblem(m.body),
  usage: (m) => usageProblem(m.body),
  ack: checkAck,
};

/** Log text the edge may send in one message (the rest of a longer log is cut from the front). */
export const MAX_LOG_BYTES = 512 * 1024;

function logOptionsProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (body.container !== undefined && !isText(body.container, 63)) return 'body.container must be a string';
  if (body.tailLines !== undefined && !isCount(body.tailLines)) return 'body.tailLines must be a non-negative integer';
  for (const flag of ['timestamps', 'previous'] as const) {
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean') return `body.${flag} must be a boolean`;
  }
  if (body.sinceSeconds !== undefined && !(isCount(body.sinceSeconds) && body.sinceSeconds > 0)) return 'body.sinceSeconds must be a positive integer';
  if (body.sinceTime !== undefined && !isCount(body.sinceTime)) return 'body.sinceTime must be a time in ms';
  return body.cursor === undefined ? undefined : cursorProblem(body.cursor);
}

function cursorProblem(cursor: unknown): string | undefined {
  if (!isObject(cursor) || !isText(cursor.containerId, 128)) return 'body.cursor.containerId must be a string';
  return isCount(cursor.time) && isCount(cursor.count) ? undefined : 'body.cursor must count time and lines';
}

function logBodyProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (typeof body.text === 'string') {
    if (body.text.length > MAX_LOG_BYTES) return 'body.text is too long';
    return typeof body.exited === 'boolean' ? cursorProblem(body.cursor) : 'body.exited must be a boolean';
  }
  return isText(body.error, 1024) && (body.code === 'NotFound' || body.code === 'BadRequest') ? undefined : 'body must carry text, or an error and its code';
}

const isTime = (x: unknown): boolean => typeof x === 'string' && x.length <= 64 && !Number.isNaN(Date.parse(x));
/** A quantity as metrics-server writes it: an integer and a suffix (n, u, m, Ki, Mi, ...). */
const isQuantity = (x: unknown): boolean => typeof x === 'string' && /^[0-9]{1,20}(n|u|m|k|Ki|Mi|Gi|Ti|M|G|T)?$/.test(x);

function eventProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (!isText(body.name, 253)) return 'body.name must be a string';
  const o = body.involvedObject;
  if (!isObject(o) || (o.kind !== 'Pod' && o.kind !== 'Node')) return 'body.involvedObject must be a Pod or a Node';
  if (!isText(o.name, 253) || !isText(o.uid, 128)) return 'body.involvedObject must name an object and its uid';
  if (o.namespace !== undefined && !isText(o.namespace, 63)) return 'body.involvedObject.namespace must be a string';
  if (o.fieldPath !== undefined && !isText(o.fieldPath, 256)) return 'body.involvedObject.fieldPath must be a string';
  if (!isText(body.reason, 128)) return 'body.reason must be a string';
  if (typeof body.message !== 'string' || body.message.length > 4096) return 'body.message must be a string of at most 4096 characters';
  if (body.type !== 'Normal' && body.type !== 'Warning') return 'body.type must be Normal or Warning';
  if (!isCount(body.count) || body.count < 1) return 'body.count must be a positive integer';
  return isTime(body.firstTimestamp) && isTime(body.lastTimestamp) ? undefined : 'body must carry firstTimestamp and lastTimestamp';
}

/** The most pods one usage report may carry (far above what one node runs). */
export const MAX_USAGE_PODS = 5000;

function usagePodProblem(pod: unknown): string | undefined {
  if (!isObject(pod) || !isText(pod.namespace, 63) || !isText(pod.name, 253) || !isText(pod.uid, 128)) return 'a pod must name its namespace, name and uid';
  if (!Array.isArray(pod.containers) || pod.containers.length > 64) return 'a pod must list its containers';
  const bad = pod.containers.some((c: unknown) => !isObject(c) || !isText(c.name, 63) || !isQuantity(c.cpu) || !isQuantity(c.memory));
  return bad ? 'a container must name itself and its cpu and memory' : undefined;
}

function usageProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'body must be an object';
  if (!isCount(body.time) || !isCount(body.windowMs)) return 'body must carry time and windowMs';
  if (!isObject(body.node) || !isQuantity(body.node.cpu) || !isQuantity(body.node.memory)) return 'body.node must carry cpu and memory';
  if (!Array.isArray(body.pods) || body.pods.length > MAX_USAGE_PODS) return `body.pods must be a list of at most ${MAX_USAGE_PODS}`;
  for (const pod of body.pods) {
    const bad = usagePodProblem(pod);
    if (bad) return `body.pods: ${bad}`;
  }
  return undefined;
}

/** The JSON text of a payload in either form, the compressed one inflated to at most MAX_PAYLOAD_BYTES. */
function payloadText(payload: Buffer | string): Decoded<string> {
  const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  if (size > MAX_PAYLOAD_BYTES) return { ok: false, reason: `payload of ${size} bytes exceeds ${MAX_PAYLOAD_BYTES}` };
  if (!isCompressed(payload)) return { ok: true, message: payload.toString() };
  const inflated = inflatePayload(payload, MAX_PAYLOAD_BYTES);
  return inflated.ok ? { ok: true, message: inflated.text } : inflated;
}

function parse(payload: Buffer | string): Decoded<Record<string, unknown>> {
  const read = payloadText(payload);
  if (!read.ok) return read;
  const text = read.message;
  if (bracketDepth(text) > MAX_PAYLOAD_NESTING) return { ok: false, reason: `payload nested more than ${MAX_PAYLOAD_NESTING} levels deep` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not JSON: ${(err as Error).message}` };
  }
  return isObject(value) ? { ok: true, message: value } : { ok: false, reason: 'payload must be a JSON object' };
}

function decodeWith<T>(payload: Buffer | string, checks: Record<string, Check>): Decoded<T> {
  const parsed = parse(payload);
  if (!parsed.ok) return parsed;
  const m = parsed.message;
  if (m.v !== PROTOCOL_VERSION) return { ok: false, reason: `unsupported protocol version ${String(m.v)}` };
  if (!isText(m.id, 128)) return { ok: false, reason: 'id must be a string' };
  if (!isCount(m.seq)) return { ok: false, reason: 'seq must be a non-negative integer' };
  if (!isText(m.sender, 253)) return { ok: false, reason: 'sender must be a string' };
  if (!isText(m.epoch, 128)) return { ok: false, reason: 'epoch must be a string' };
  const check = typeof m.type === 'string' && Object.hasOwn(checks, m.type) ? checks[m.type] : undefined;
  if (!check) return { ok: false, reason: `unknown message type ${JSON.stringify(m.type)}` };
  const problem = check(m);
  return problem ? { ok: false, reason: `${m.type}: ${problem}` } : { ok: true, message: m as T };
}

/** Validates a message received by the edge on its down topic. */
export function decodeDown(payload: Buffer | string): Decoded<DownMessage> {
  return decodeWith<DownMessage>(payload, downChecks);
}

/** Validates a message received by the cloud on a node's up topic. */
export function decodeUp(payload: Buffer | string): Decoded<UpMessage> {
  return decodeWith<UpMessage>(payload, upChecks);
}

export function decodePresence(payload: Buffer | string): Decoded<Presence> {
  const parsed = parse(payload);
  if (!parsed.ok) return parsed;
  const m = parsed.message;
  if (typeof m.online !== 'boolean') return { ok: false, reason: 'online must be a boolean' };
  if (!isText(m.epoch, 128)) return { ok: false, reason: 'epoch must be a string' };
  return { ok: true, message: { online: m.online, epoch: m.epoch } };
}
