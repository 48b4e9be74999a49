/**
 * Splits an API path into its parts, the way kube-apiserver's RequestInfoFactory does:
 *   /api/v1/{resource}[/{name}[/{sub}]]
 *   /api/v1/namespaces/{ns}/{resource}[/{name}[/{sub}]]
 *   /apis/{group}/{version}/...            (same shapes)
 *   /api/v1/watch/...                      (legacy watch prefix)
 */
export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** True for the legacy /watch/ path prefix. */
  watchPrefix: boolean;
}

export type ApiPath =
  | { kind: 'resource'; path: ResourcePath }
  /** /api, /apis, /apis/{group}, /api/v1, /apis/{group}/{version} */
  | { kind: 'discovery'; group?: string; version?: string; legacy: boolean }
  | { kind: 'other'; path: string };

/** Namespace subresources that must not be read as a resource inside the namespace. */
const namespaceSubresources = new Set(['status', 'finalize']);

export function parseApiPath(rawPath: string): ApiPath {
  const parts = rawPath.split('/').filter((p) => p !== '').map(safeDecode);
  const root = parts[0];
  if (root === 'api') {
    if (parts.length === 1) return { kind: 'discovery', legacy: true };
    return resourceOrDiscovery('', parts[1]!, parts.slice(2), rawPath);
  }
  if (root === 'apis') {
    if (parts.length === 1) return { kind: 'discovery', legacy: false };
    if (parts.length === 2) return { kind: 'discovery', legacy: false, group: parts[1]! };
    return resourceOrDiscovery(parts[1]!, parts[2]!, parts.slice(3), rawPath);
  }
  return { kind: 'other', path: rawPath };
}

function resourceOrDiscovery(group: string, version: string, rest: string[], rawPath: string): ApiPath {
  if (rest.length === 0) return { kind: 'discovery', legacy: group === '', group, version };
  let parts = rest;
  const watchPrefix = parts[0] === 'watch';
  if (watchPrefix) parts = parts.slice(1);
  if (parts.length === 0) return { kind: 'other', path: rawPath };
  if (parts[0] === 'namespaces' && parts.length > 2 && !namespaceSubresources.has(parts[2]!)) {
    const [, namespace, resource, name, subresource, ...extra] = parts;
    if (extra.length > 0) return { kind: 'other', path: rawPath };
    return { kind: 'resource', path: clean({ group, version, namespace, resource: resource!, name, subresource, watchPrefix }) };
  }
  const [resource, name, subresource, ...extra] = parts;
  if (extra.length > 0) return { kind: 'other', path: rawPath };
  return { kind: 'resource', path: clean({ group, version, resource: resource!, name, subresource, watchPrefix }) };
}

function clean(p: ResourcePath): ResourcePath {
  const out: ResourcePath = { group: p.group, version: p.version, resource: p.resource, watchPrefix: p.watchPrefix };
  if (p.namespace !== undefined) out.namespace = p.namespace;
  if (p.name !== undefined) out.name = p.name;
  if (p.subresource !== undefined) out.subresource = p.subresource;
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
