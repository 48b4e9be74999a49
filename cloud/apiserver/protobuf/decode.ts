import { KedgeError } from '../../../shared/errors.js';
import { authSchemas } from './auth-schemas.js';
import { batchSchemas } from './batch-schemas.js';
import { kindSchemas, type FieldSpec, type FieldType, type Scalar, type Schema } from './schemas.js';
import { readFields, signedInt, WireError, type WireField } from './wire.js';

/**
 * Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf) as the JSON objects
 * the apiserver stores. The body is the magic "k8s\0" then a runtime.Unknown
 * {1: TypeMeta{1: apiVersion, 2: kind}, 2: raw, 3: contentEncoding, 4: contentType}; raw is
 * the object's own message, read with the schemas of the kinds kubectl's generators send.
 */

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
}

export function decodeKubeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new KedgeError('BadRequest', 'the protobuf request body does not start with the Kubernetes magic number "k8s\\x00"');
  }
  try {
    const envelope = readEnvelope(body.subarray(MAGIC.length));
    if (envelope.contentEncoding !== '') throw unsupported(`content encoding "${envelope.contentEncoding}"`);
    const type = `${envelope.apiVersion} ${envelope.kind}`;
    const schema = kindSchemas[type] ?? batchSchemas[type] ?? authSchemas[type];
    if (!schema) throw unsupported(`kind ${envelope.kind} (apiVersion ${envelope.apiVersion || '""'})`);
    return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...decodeMessage(envelope.raw, schema) };
  } catch (err) {
    if (err instanceof WireError) throw new KedgeError('BadRequest', `the protobuf request body is malformed: ${err.message}`);
    throw err;
  }
}

function unsupported(what: string): KedgeError {
  return new KedgeError('UnsupportedMediaType', `kedge does not decode ${what} from ${PROTOBUF_MEDIA_TYPE}; send it as application/json`);
}

function readEnvelope(buf: Uint8Array): Envelope {
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(), contentEncoding: '' };
  for (const f of readFields(buf)) {
    if (f.field === 1) {
      for (const t of readFields(bytesOf(f))) {
        if (t.field === 1) envelope.apiVersion = text(t);
        if (t.field === 2) envelope.kind = text(t);
      }
    }
    if (f.field === 2) envelope.raw = bytesOf(f);
    if (f.field === 3) envelope.contentEncoding = text(f);
  }
  return envelope;
}

/** One message: known fields collected (lists and maps accumulate), then zero values dropped. */
export function decodeMessage(buf: Uint8Array, schema: Schema): Record<string, unknown> {
  const byNumber = new Map(schema.map((spec) => [spec[0], spec]));
  const seen = new Map<number, unknown>();
  for (const f of readFields(buf)) {
    const spec = byNumber.get(f.field);
    if (spec) seen.set(f.field, accumulate(seen.get(f.field), f, spec[2]));
  }
  const out: Record<string, unknown> = {};
  for (const spec of schema) {
    if (!seen.has(spec[0])) continue;
    const value = seen.get(spec[0]);
    if (isPointer(spec) ? value !== undefined : !isEmpty(value)) out[spec[1]] = value;
  }
  return out;
}

function accumulate(previous: unknown, f: WireField, type: FieldType): unknown {
  if (typeof type === 'string' || Array.isArray(type)) return valueOf(f, type as Scalar | Schema);
  const collection = type as { list: Scalar | Schema } | { map: Scalar }; // readonly arrays do not narrow
  if ('list' in collection) return [...((previous as unknown[] | undefined) ?? []), valueOf(f, collection.list)];
  const [key, value] = mapEntry(f, collection.map);
  return { ...(previous as Record<string, unknown> | undefined), [key]: value };
}

/** A map entry: a message {1: key, 2: value}; a missing value is the type's zero value. */
function mapEntry(f: WireField, valueType: Scalar): [string, unknown] {
  let key = '';
  let value: unknown = zeroOf(valueType);
  for (const e of readFields(bytesOf(f))) {
    if (e.field === 1) key = text(e);
    if (e.field === 2) value = valueOf(e, valueType);
  }
  return [key, value];
}

function zeroOf(type: Scalar): unknown {
  return type === 'int' ? 0 : type === 'bool' ? false : '';
}

function valueOf(f: WireField, type: Scalar | Schema): unknown {
  if (typeof type !== 'string') return decodeMessage(bytesOf(f), type);
  switch (type) {
    case 'string': return text(f);
    case 'bytes': return Buffer.from(bytesOf(f)).toString('base64');
    case 'int': return signedInt(varintOf(f));
    case 'bool': return varintOf(f) !== 0n;
    case 'quantity': return (decodeMessage(bytesOf(f), [[1, 'string', 'string']]).string as string | undefined) ?? '';
    case 'intOrString': return intOrString(bytesOf(f));
    case 'time': return time(bytesOf(f));
  }
}

/** intstr.IntOrString {1: type (0 int, 1 string), 2: intVal, 3: strVal}; int 0 is unset. */
function intOrString(bytes: Uint8Array): number | string | undefined {
  const v = decodeMessage(bytes, [[1, 'type', 'int'], [2, 'intVal', 'int'], [3, 'strVal', 'string']]);
  if (v.type === 1) return (v.strVal as string | undefined) ?? '';
  return (v.intVal as number | undefined) || undefined;
}

/** meta/v1 Time {1: seconds, 2: nanos} as RFC 3339 in UTC (second precision, as Time marshals). */
function time(bytes: Uint8Array): string | undefined {
  const v = decodeMessage(bytes, [[1, 'seconds', 'int'], [2, 'nanos', 'int']]);
  if (v.seconds === undefined && v.nanos === undefined) return undefined;
  const date = new Date(((v.seconds as number | undefined) ?? 0) * 1000);
  if (Number.isNaN(date.getTime())) throw new WireError(`timestamp out of range: ${String(v.seconds)} seconds`);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function isPointer(spec: FieldSpec): boolean {
  return spec[3] === 'pointer';
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

function bytesOf(f: WireField): Uint8Array {
  if (f.wire !== 2) throw new WireError(`field ${f.field}: expected a length-delimited value, got wire type ${f.wire}`);
  return f.value;
}

function varintOf(f: WireField): bigint {
  if (f.wire !== 0) throw new WireError(`field ${f.field}: expected a varint, got wire type ${f.wire}`);
  return f.value;
}

function text(f: WireField): string {
  return Buffer.from(bytesOf(f)).toString('utf8');
}
