import type { EdgeHandle } from '../edge/edge-options.js';
import { MemoryVolumeHost } from '../edge/volumes/memory-volume-host.js';
import type { PlannedFile } from '../edge/volumes/volume-plan.js';
import type { ConfigMap, Secret } from '../shared/config-types.js';
import type { Pod } from '../shared/types.js';

/*
 * ConfigMaps and Secrets for the benchmarks: each holds a `version` key (what a test of
 * "current" reads) and a payload that brings its data to `bytes`; pods mount them as volumes.
 */

export const DEFAULT_CONFIG_BYTES = 1024;
const VERSION_KEY = 'version';
const CONFIGMAP_PLUGIN = 'kubernetes.io~configmap';

/** `version` plus a `payload` of filler: the values together are `bytes` long (at least the version). */
export function configData(version: string, bytes = DEFAULT_CONFIG_BYTES): Record<string, string> {
  return { [VERSION_KEY]: version, payload: 'x'.repeat(Math.max(0, bytes - version.length)) };
}

export const benchConfigMap = (name: string, version: string, bytes = DEFAULT_CONFIG_BYTES): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: configData(version, bytes),
});

export const benchSecret = (name: string, version: string, bytes = DEFAULT_CONFIG_BYTES): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  type: 'Opaque',
  data: Object.fromEntries(Object.entries(configData(version, bytes)).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

/** The volume name under which a bench pod mounts ConfigMap or Secret `name`. */
export const volumeNameOf = (name: string): string => `v-${name}`;

/** A sim pod on `node` mounting each ConfigMap and Secret named at /etc/<name> (optional ones let it run before they exist). */
export function podMounting(name: string, node: string, refs: { configMaps?: string[]; secrets?: string[]; optional?: boolean }): Pod {
  const optional = refs.optional ? { optional: true } : {};
  const volumes = [
    ...(refs.configMaps ?? []).map((cm) => ({ name: volumeNameOf(cm), configMap: { name: cm, ...optional } })),
    ...(refs.secrets ?? []).map((s) => ({ name: volumeNameOf(s), secret: { secretName: s, ...optional } })),
  ];
  const volumeMounts = volumes.map((v) => ({ name: v.name, mountPath: `/etc/${v.name}`, readOnly: true }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench-config' } },
    spec: { nodeName: node, volumes, containers: [{ name: 'main', image: 'kedge.io/bench:1', volumeMounts }] },
  };
}

/** The `version` file among a volume's files, if any. */
export function versionIn(files: readonly PlannedFile[]): string | undefined {
  return files.find((f) => f.path === VERSION_KEY)?.content.toString('utf8');
}

/** The version a sim pod's configMap volume of ConfigMap `configMap` holds on this edge (its in-memory volume record: `simVolumes: 'memory'`). */
export function mountedVersion(edge: Pick<EdgeHandle, 'volumeHosts'>, podUid: string, configMap: string): string | undefined {
  const host = edge.volumeHosts.hosts.find((h): h is MemoryVolumeHost => h instanceof MemoryVolumeHost);
  if (!host) throw new Error("this edge keeps sim pods' volumes on disk: start it with simVolumes: 'memory'");
  return versionIn(host.filesFor({ podUid, plugin: CONFIGMAP_PLUGIN, name: volumeNameOf(configMap) }));
}

/** The version of ConfigMap `name` this edge caches. */
export function cachedVersion(edge: Pick<EdgeHandle, 'cache'>, name: string, namespace = 'default'): string | undefined {
  const held = edge.cache.find('ConfigMap', namespace, name);
  return held?.kind === 'ConfigMap' ? held.object.data?.[VERSION_KEY] : undefined;
}
