import { cp, mkdir, realpath, rm, symlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { podDir } from '../volumes/volume-paths.js';
import type { ContainerConfig, Mount } from './runtime.js';

/** The env var that tells a process where its container's root is. */
export const ROOT_ENV = 'KEDGE_ROOT';

/** `<data dir>/pods/<uid>/containers/<name>/<id>`: what one container of a process pod has on disk. */
export function containerDir(dataDir: string, podUid: string, name: string, id: string): string {
  return join(podDir(dataDir, podUid), 'containers', name, id);
}

/** A path of the container (absolute, `..` clamped) under its root. */
const inRoot = (root: string, path: string): string => join(root, resolve('/', path));

/**
 * What a subPath mount points at. kube bind-mounts the file as it is when the container starts,
 * so it never changes: in a payload written by the AtomicWriter (its real path is in a
 * `..<timestamp>` directory, removed by the next update) that is a copy; elsewhere the path itself.
 */
async function subPathSource(mount: Mount, dir: string, index: number): Promise<string> {
  const real = await realpath(mount.hostPath).catch(() => mount.hostPath);
  if (!real.split('/').some((part) => part.startsWith('..'))) return real;
  const copy = join(dir, 'subpaths', String(index));
  await cp(real, copy, { recursive: true });
  return copy;
}

/**
 * Processes share the host's file system, so they cannot have mounts: instead each container
 * with volumes gets a root directory in which every mountPath is a symbolic link to its volume
 * (`root/etc/cfg -> …/volumes/kubernetes.io~configmap/cfg`). The process runs in root +
 * workingDir, with KEDGE_ROOT=root in its env (docs/volumes.md).
 */
export async function makeContainerRoot(dir: string, config: ContainerConfig): Promise<{ root: string; workingDir: string; env: Record<string, string> }> {
  const root = join(dir, 'root');
  await mkdir(root, { recursive: true, mode: 0o700 });
  const mounts = config.mounts ?? [];
  for (const [index, mount] of mounts.entries()) {
    const target = inRoot(root, mount.containerPath);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await rm(target, { recursive: true, force: true });
    await symlink(mount.subPath ? await subPathSource(mount, dir, index) : mount.hostPath, target);
  }
  const workingDir = inRoot(root, config.workingDir ?? '/');
  await mkdir(workingDir, { recursive: true, mode: 0o700 });
  return { root, workingDir, env: { ...(config.env ?? {}), [ROOT_ENV]: root } };
}

export async function removeContainerDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
