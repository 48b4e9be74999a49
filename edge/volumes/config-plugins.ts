import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { KeyToPath, Volume, VolumeProjection } from '../../shared/volume-types.js';
import { downwardPayload } from './downward-api.js';
import { keyedPayload, type KeyedKind } from './key-payload.js';
import { DEFAULT_MODE, type PlannedFile, type PluginContext, type VolumePlan, type VolumePlugin } from './volume-plan.js';

const namespaceOf = (context: PluginContext): string => context.pod.metadata.namespace ?? 'default';

/** The object a configMap or secret source names, as the edge holds it. */
function objectOf(kind: KeyedKind, name: string, context: PluginContext): ConfigMap | Secret | undefined {
  const namespace = namespaceOf(context);
  return kind === 'configmap' ? context.objects.configMap(namespace, name) : context.objects.secret(namespace, name);
}

/** A volume (or projected source) of a ConfigMap's or Secret's keys. */
function keyedFiles(kind: KeyedKind, source: { name: string; items?: KeyToPath[]; optional?: boolean }, defaultMode: number, context: PluginContext): PlannedFile[] {
  return keyedPayload({ kind, ...source, object: objectOf(kind, source.name, context), defaultMode });
}

export const configMapPlugin: VolumePlugin = {
  name: 'kubernetes.io~configmap',
  remount: true,
  canSupport: (v) => v.configMap !== undefined,
  plan: ({ configMap: s }, context) => ({ type: 'files', files: keyedFiles('configmap', { ...s, name: s!.name ?? '' }, s!.defaultMode ?? DEFAULT_MODE, context) }),
};

export const secretPlugin: VolumePlugin = {
  name: 'kubernetes.io~secret',
  remount: true,
  canSupport: (v) => v.secret !== undefined,
  plan: ({ secret: s }, context) => ({ type: 'files', files: keyedFiles('secret', { ...s, name: s!.secretName ?? '' }, s!.defaultMode ?? DEFAULT_MODE, context) }),
};

export const downwardAPIPlugin: VolumePlugin = {
  name: 'kubernetes.io~downward-api',
  remount: true,
  canSupport: (v) => v.downwardAPI !== undefined,
  plan: (volume, context) => ({ type: 'files', files: downwardPayload(volume.downwardAPI!.items, volume.downwardAPI!.defaultMode ?? DEFAULT_MODE, context) }),
};

/**
 * One source of a projected volume. A serviceAccountToken is left out: the edge has no token
 * to give (docs/volumes.md).
 */
function projectedSource(source: VolumeProjection, defaultMode: number, context: PluginContext): PlannedFile[] {
  if (source.configMap) return keyedFiles('configmap', { ...source.configMap, name: source.configMap.name ?? '' }, defaultMode, context);
  if (source.secret) return keyedFiles('secret', { ...source.secret, name: source.secret.name ?? '' }, defaultMode, context);
  if (source.downwardAPI) return downwardPayload(source.downwardAPI.items, defaultMode, context);
  return [];
}

export const projectedPlugin: VolumePlugin = {
  name: 'kubernetes.io~projected',
  remount: true,
  canSupport: (v: Volume) => v.projected !== undefined,
  plan(volume, context): VolumePlan {
    const defaultMode = volume.projected!.defaultMode ?? DEFAULT_MODE;
    return { type: 'files', files: (volume.projected!.sources ?? []).flatMap((s) => projectedSource(s, defaultMode, context)) };
  },
};
