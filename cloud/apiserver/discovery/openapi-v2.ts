import type { Schema } from '../schemas/schema-generator.js';
import { versionInfo } from './discovery.js';

/**
 * GET /openapi/v2: the swagger 2.0 document of every served kind's definitions, in JSON, or in
 * the protobuf kubectl asks for (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`:
 * gnostic's openapi_v2.Document). kubectl 1.32 reads it only to validate on the client what
 * the v3 documents cannot tell it about: the items of a `kind: List`, and kinds it cannot find
 * (which it then skips, so the resource mapper reports `no matches for kind`). Paths are left
 * out: kubectl takes the fieldValidation support from the v3 documents.
 */

export const OPENAPI_V2 = '/openapi/v2';
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** The v3 component schemas as v2 definitions: refs to #/definitions/, a single allOf ref as the ref itself. */
export function swaggerDocument(schemas: Record<string, Schema>): Schema {
  const definitions = Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, toV2(s) as Schema]));
  return { swagger: '2.0', info: { title: 'Kubernetes', version: versionInfo.gitVersion }, paths: {}, definitions };
}

function toV2(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toV2);
  if (value === null || typeof value !== 'object') return value;
  const s = value as Schema;
  if (Array.isArray(s.allOf) && s.allOf.length === 1) {
    const { allOf, ...rest } = s;
    return toV2({ ...rest, ...(allOf[0] as Schema) });
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/definitions/') : toV2(v)]));
}

/** Protobuf writing: varints, tags and length-delimited fields, enough for gnostic's messages. */
class Writer {
  private readonly parts: Buffer[] = [];

  private varint(n: number): void {
    const bytes: number[] = [];
    while (n > 0x7f) {
      bytes.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    bytes.push(n);
    this.parts.push(Buffer.from(bytes));
  }

  bytes(field: number, data: Buffer): this {
    this.varint((field << 3) | 2);
    this.varint(data.length);
    this.parts.push(data);
    return this;
  }

  string(field: number, value: unknown): this {
    return typeof value === 'string' && value !== '' ? this.bytes(field, Buffer.from(value, 'utf8')) : this;
  }

  bool(field: number, value: boolean): this {
    this.varint(field << 3);
    this.varint(value ? 1 : 0);
    return this;
  }

  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.done());
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** gnostic openapi_v2.Schema: the fields kube's definitions use; vendor extensions as YAML (JSON is YAML). */
function writeSchema(w: Writer, s: Schema): void {
  w.string(1, s.$ref).string(2, s.format).string(4, s.description);
  for (const r of (s.required as string[] | undefined) ?? []) w.string(19, r);
  for (const e of (s.enum as unknown[] | undefined) ?? []) w.message(20, (any) => any.string(2, JSON.stringify(e)));
  const extra = s.additionalProperties;
  if (extra !== undefined) w.message(21, (item) => (typeof extra === 'boolean' ? item.bool(2, extra) : item.message(1, (inner) => writeSchema(inner, extra as Schema))));
  if (typeof s.type === 'string') w.message(22, (t) => t.string(1, s.type));
  if (s.items) w.message(23, (items) => items.message(1, (inner) => writeSchema(inner, s.items as Schema)));
  for (const part of (s.allOf as Schema[] | undefined) ?? []) w.message(24, (inner) => writeSchema(inner, part));
  const properties = s.properties as Record<string, Schema> | undefined;
  if (properties) w.message(25, (p) => Object.entries(properties).forEach(([name, value]) => p.message(1, (named) => named.string(1, name).message(2, (inner) => writeSchema(inner, value)))));
  for (const [key, value] of Object.entries(s)) {
    if (key.startsWith('x-')) w.message(31, (named) => named.string(1, key).message(2, (any) => any.string(2, JSON.stringify(value))));
  }
}

/** The document as gnostic's openapi_v2.Document protobuf. */
export function swaggerProtobuf(doc: Schema): Buffer {
  const info = doc.info as { title: string; version: string };
  const definitions = doc.definitions as Record<string, Schema>;
  return new Writer()
    .string(1, doc.swagger)
    .message(2, (i) => i.string(1, info.title).string(2, info.version))
    .message(8, () => undefined)
    .message(9, (d) => Object.entries(definitions).forEach(([name, s]) => d.message(1, (named) => named.string(1, name).message(2, (inner) => writeSchema(inner, s)))))
    .done();
}
