import type { DownwardAPIVolumeFile } from '../../shared/volume-types.js';
import { fieldRefValue } from '../edged/container-config.js';
import { resourceFieldValue } from '../edged/resource-field.js';
import { VolumeError, type PlannedFile, type PluginContext } from './volume-plan.js';

/** kube's fieldpath.FormatMap: `key="value"` lines sorted by key, Go-quoted, no trailing newline. */
export function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {}).sort().map((k) => `${k}=${JSON.stringify(map![k])}`).join('\n');
}

const NO_PLACEMENT = { podIP: '', hostIP: '' };

/** The text of one downward API file: a metadata field, every label or annotation, or a container's resource. */
function downwardValue(item: DownwardAPIVolumeFile, { pod, allocatable }: PluginContext): string {
  if (item.fieldRef) {
    const path = item.fieldRef.fieldPath;
    if (path === 'metadata.labels') return formatMap(pod.metadata.labels);
    if (path === 'metadata.annotations') return formatMap(pod.metadata.annotations);
    const value = path.startsWith('metadata.') ? fieldRefValue(pod, path, NO_PLACEMENT) : undefined;
    if (value === undefined) throw new VolumeError(`unsupported fieldPath: ${path}`);
    return value;
  }
  if (!item.resourceFieldRef) return '';
  const container = pod.spec.containers.find((c) => c.name === item.resourceFieldRef!.containerName) ?? pod.spec.containers[0]!;
  try {
    return resourceFieldValue(item.resourceFieldRef, pod, container, allocatable);
  } catch (err) {
    throw new VolumeError((err as Error).message);
  }
}

/** The files of a downwardAPI volume (or projected source), each with its mode or `defaultMode`. */
export function downwardPayload(items: DownwardAPIVolumeFile[] | undefined, defaultMode: number, context: PluginContext): PlannedFile[] {
  return (items ?? []).map((item) => ({ path: item.path, content: Buffer.from(downwardValue(item, context), 'utf8'), mode: item.mode ?? defaultMode }));
}
