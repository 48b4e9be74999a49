import { join } from 'node:path';
import type { Container } from '../../shared/types.js';
import type { Mount } from '../runtime/runtime.js';

/** A container's mounts as CRI gets them: each of its volumeMounts with the host path of its volume (and subPath in it). */
export function containerMounts(container: Container, paths: ReadonlyMap<string, string>): Mount[] {
  const out: Mount[] = [];
  for (const m of container.volumeMounts ?? []) {
    const volume = paths.get(m.name);
    if (volume === undefined) continue;
    const mount: Mount = { name: m.name, containerPath: m.mountPath, hostPath: m.subPath ? join(volume, m.subPath) : volume, readOnly: m.readOnly ?? false };
    if (m.subPath) mount.subPath = m.subPath;
    out.push(mount);
  }
  return out;
}
