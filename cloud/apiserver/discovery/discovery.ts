import { KedgeError } from '../../../shared/errors.js';
import { allVerbs, apiVersionOf, type ResourceDef, type ResourceRegistry } from '../kinds/registry.js';

/** Legacy (non-aggregated) discovery documents and /version, generated from the resource table. */
export const versionInfo = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4-kedge',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.8',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const serverAddress = [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }];

export function apiVersions(): unknown {
  return { kind: 'APIVersions', apiVersion: 'v1', versions: ['v1'], serverAddressByClientCIDRs: serverAddress };
}

export function apiGroupList(registry: ResourceRegistry): unknown {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: registry.groups().map((g) => apiGroup(registry, g)) };
}

export function apiGroup(registry: ResourceRegistry, group: string): unknown {
  const versions = registry.versionsOf(group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  if (versions.length === 0 || group === '') throw new KedgeError('NotFound', 'the server could not find the requested resource');
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): unknown {
  const defs = registry.inGroupVersion(group, version);
  if (defs.length === 0 && !(group === '' && version === 'v1')) {
    throw new KedgeError('NotFound', 'the server could not find the requested resource');
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: defs.flatMap(resourceEntries),
  };
}

function resourceEntries(def: ResourceDef): unknown[] {
  const main: Record<string, unknown> = {
    name: def.resource,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs ?? allVerbs,
  };
  if (def.shortNames.length) main.shortNames = def.shortNames;
  if (def.categories.length) main.categories = def.categories;
  const subs = def.subresources.map((s) => {
    const entry: Record<string, unknown> = { name: `${def.resource}/${s.name}`, singularName: '', namespaced: def.namespaced, kind: s.kind ?? def.kind, verbs: s.verbs };
    if (s.group !== undefined) entry.group = s.group;
    if (s.version !== undefined) entry.version = s.version;
    return entry;
  });
  return [main, ...subs];
}
