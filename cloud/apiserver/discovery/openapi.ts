import { createHash } from 'node:crypto';
import { versionInfo } from './discovery.js';
import { resourcePaths, type PathItem } from './openapi-paths.js';
import { componentSchemas, type Schema } from './openapi-schemas.js';
import type { ResourceDef, ResourceRegistry } from '../kinds/registry.js';

/**
 * A minimal OpenAPI v3, generated from the resource table, so that kubectl's validated
 * `apply`, `create -f` and `replace` work without `--validate=false`:
 *
 *   GET /openapi/v3                 → {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"},…}}
 *   GET /openapi/v3/apis/apps/v1    → one document per group-version: paths and open schemas
 *
 * kubectl finds `fieldValidation` on each kind's PATCH operation and leaves validation to
 * the server (see openapi-paths.ts). /openapi/v2 stays 404: kubectl 1.32 tolerates that.
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
export function groupVersionDocument(defs: readonly ResourceDef[]): Schema {
  const paths: Record<string, PathItem> = {};
  for (const def of defs) Object.assign(paths, resourcePaths(def));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: versionInfo.gitVersion },
    paths,
    components: { schemas: componentSchemas(defs) },
  };
}

export function openApiV3(registry: ResourceRegistry): OpenApiV3 {
  let built: { index: OpenApiIndex; documents: Map<string, Schema> } | undefined;

  // The table does not change while a server runs: build everything once, on first use.
  function build(): NonNullable<typeof built> {
    const index: OpenApiIndex = { paths: {} };
    const documents = new Map<string, Schema>();
    for (const gv of groupVersionsOf(registry.defs)) {
      const key = groupVersionPath(gv);
      const doc = groupVersionDocument(registry.inGroupVersion(gv.group, gv.version));
      documents.set(key, doc);
      index.paths[key] = { serverRelativeURL: `${OPENAPI_V3}/${key}?hash=${digest(doc)}` };
    }
    return { index, documents };
  }

  return {
    serve(path) {
      if (path !== OPENAPI_V3 && !path.startsWith(`${OPENAPI_V3}/`)) return undefined;
      built ??= build();
      if (path === OPENAPI_V3) return built.index;
      return built.documents.get(path.slice(OPENAPI_V3.length + 1));
    },
  };
}

function digest(doc: Schema): string {
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}
