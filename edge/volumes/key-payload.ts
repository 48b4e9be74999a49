import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { KeyToPath } from '../../shared/volume-types.js';
import { VolumeError, type PlannedFile } from './volume-plan.js';

export type KeyedKind = 'configmap' | 'secret';

/** A ConfigMap's data and binaryData, or a Secret's data, as bytes by key. */
function bytesByKey(kind: KeyedKind, object: ConfigMap | Secret): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (kind === 'configmap') {
    for (const [k, v] of Object.entries(object.data ?? {})) out.set(k, Buffer.from(v, 'utf8'));
    for (const [k, v] of Object.entries((object as ConfigMap).binaryData ?? {})) out.set(k, Buffer.from(v, 'base64'));
  } else {
    for (const [k, v] of Object.entries(object.data ?? {})) out.set(k, Buffer.from(v, 'base64'));
  }
  return out;
}

export interface KeyedSource {
  kind: KeyedKind;
  name: string;
  /** undefined: the object is missing. */
  object: ConfigMap | Secret | undefined;
  items?: KeyToPath[];
  optional?: boolean;
  defaultMode: number;
}

/**
 * The files a configMap or secret source projects (kube's MakePayload): every key as a file, or
 * only the `items`, each at its path with its mode (else `defaultMode`). A missing object or key
 * is an error unless optional, then nothing (or the item) is skipped.
 */
export function keyedPayload(source: KeyedSource): PlannedFile[] {
  const { kind, object, optional, defaultMode } = source;
  if (!object) {
    if (optional) return [];
    throw new VolumeError(`${kind} "${source.name}" not found`);
  }
  const bytes = bytesByKey(kind, object);
  if (!source.items?.length) return [...bytes].map(([key, content]) => ({ path: key, content, mode: defaultMode }));
  const files: PlannedFile[] = [];
  for (const item of source.items) {
    const content = bytes.get(item.key);
    if (content) files.push({ path: item.path, content, mode: item.mode ?? defaultMode });
    else if (!optional) throw new VolumeError(`${kind} references non-existent ${kind === 'configmap' ? 'config' : 'secret'} key: ${item.key}`);
  }
  return files;
}
