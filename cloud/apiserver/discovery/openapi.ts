import { createHash } from 'node:crypto';
import { versionInfo } from './discovery.js';
import { resourcePaths, type PathItem } from './openapi-paths.js';
import { componentSchemas } from './openapi-schemas.js';
import type { Schema } from '../schemas/schema-generator.js';
import type { ResourceDef, ResourceRegistry } from '../kinds/registry.js';
import type { SchemaSet } from '../schemas/schema-set.js';
import type { ApiResponse } from '../request.js';
import { OPENAPI_V2, OPENAPI_V2_PROTOBUF, swaggerDocument, swaggerProtobuf } from './openapi-v2.js';

/**
 * A minimal OpenAPI v3, generated from the resource table, so that kubectl's validated
 * `apply`, `create -f` and `replace` work without `--validate=false`:
 *
 *   GET /openapi/v3                 → {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"},…}}
 *   GET /openapi/v3/apis/apps/v1    → one document per group-version: paths and open schemas
 *
 * kubectl finds `fieldValidation` on each kind's PATCH operation and leaves validation to
 * the server (see openapi-paths.ts). /openapi/v2 (openapi-v2.ts) carries the same schemas.
 * The hash is the document's digest, so a client cache keyed by URL sees every change.
 */

export const OPENAPI_V3 = '/openapi/v3';

export interface GroupVersion {
  group: string;
  version: string;
}

export interface OpenApiIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiV3 {
  /** The body for GET `path`, or undefined when `path` is not an OpenAPI v3 document (404). */
  serve(path: string): unknown;
  /** GET `path` answered from documents encoded once (v3, and v2 in JSON or protobuf as `accept` asks), or undefined (404). */
  response(path: string, accept: string | undefined): ApiResponse | undefined;
}

/** "api/v1", "apis/apps/v1": how the index names a group-version, and its document's path under /openapi/v3/. */
export function groupVersionPath(gv: GroupVersion): string {
  return gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}

/** The group-versions of the table, core first, then in table order. */
export function groupVersionsOf(defs: readonly ResourceDef[]): GroupVersion[] {
  const seen = new Map<string, GroupVersion>();
  const ordered = [...defs.filter((d) => d.group === ''), ...defs.filter((d) => d.group !== '')];
  for (const d of ordered) seen.set(groupVersionPath(d), { group: d.group, version: d.version });
  return [...seen.values()];
}

/** The OpenAPI v3 document of one group-version. */
export function groupVersionDocument(defs: readonly ResourceDef[], set?: SchemaSet): Schema {
  const paths: Record<string, PathItem> = {};
  for (const def of defs) Object.assign(paths, resourcePaths(def));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: versionInfo.gitVersion },
    paths,
    components: { schemas: componentSchemas(defs, set) },
  };
}

export function openApiV3(registry: ResourceRegistry, schemas?: () => SchemaSet): OpenApiV3 {
  let built: { index: OpenApiIndex; documents: Map<string, Schema> } | undefined;

  // The table does not change while a server runs: build everything once, on first use.
  function build(): NonNullable<typeof built> {
    const index: OpenApiIndex = { paths: {} };
    const documents = new Map<string, Schema>();
    for (const gv of groupVersionsOf(registry.defs)) {
      const key = groupVersionPath(gv);
      const doc = groupVersionDocument(registry.inGroupVersion(gv.group, gv.version), schemas?.());
      documents.set(key, doc);
      index.paths[key] = { serverRelativeURL: `${OPENAPI_V3}/${key}?hash=${digest(doc)}` };
    }
    return { index, documents };
  }

  const encoded = new Map<string, ApiResponse>();
  const once = (key: string, make: () => ApiResponse): ApiResponse => {
    if (!encoded.has(key)) encoded.set(key, make());
    return encoded.get(key)!;
  };
  const bytes = (body: Buffer, contentType: string): ApiResponse => ({ type: 'bytes', status: 200, body, contentType });
  const serve = (path: string): unknown => {
    if (path !== OPENAPI_V3 && !path.startsWith(`${OPENAPI_V3}/`)) return undefined;
    built ??= build();
    if (path === OPENAPI_V3) return built.index;
    return built.documents.get(path.slice(OPENAPI_V3.length + 1));
  };
  /** Every component schema of every group-version document: the v2 definitions. */
  const v2 = (): Schema => {
    built ??= build();
    return swaggerDocument(Object.assign({}, ...[...built.documents.values()].map((d) => (d.components as { schemas: Record<string, Schema> }).schemas)) as Record<string, Schema>);
  };

  return {
    serve,
    response(path, accept) {
      if (path === OPENAPI_V2) {
        if (accept?.includes(OPENAPI_V2_PROTOBUF)) return once('v2.pb', () => bytes(swaggerProtobuf(v2()), 'application/octet-stream'));
        return once('v2.json', () => bytes(Buffer.from(JSON.stringify(v2())), 'application/json'));
      }
      const doc = serve(path);
      return doc === undefined ? undefined : once(path, () => bytes(Buffer.from(JSON.stringify(doc)), 'application/json'));
    },
  };
}

function digest(doc: Schema): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}
