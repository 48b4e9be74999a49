import { join, resolve } from 'node:path';
import type { VolumeTarget } from './volume-plan.js';

/** Pods' directories in the edge's data directory, as kubelet's /var/lib/kubelet/pods. */
export const PODS_DIR = 'pods';

export function podDir(dataDir: string, podUid: string): string {
  return join(dataDir, PODS_DIR, podUid);
}

/** `<data dir>/pods/<uid>/volumes/<plugin>/<name>`, as kubelet lays them out. */
export function volumeDir(dataDir: string, target: VolumeTarget): string {
  return join(podDir(dataDir, target.podUid), 'volumes', target.plugin, target.name);
}

/** A hostPath under the edge's host root (`/` for the real host): `..` cannot climb out of it. */
export function underHostRoot(hostRoot: string, path: string): string {
  return join(hostRoot, resolve('/', path));
}

/** The default host root: `<data dir>/host`, so that edges sharing a machine never share host paths. */
export function defaultHostRoot(dataDir: string): string {
  return join(dataDir, 'host');
}
