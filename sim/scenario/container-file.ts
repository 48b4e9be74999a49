import { join } from 'node:path';

/**
 * Where a file a container sees at `path` lies on its edge's disk: under the container's root
 * directory, where each volume's mountPath is a link to the volume (docs/volumes.md).
 */
export function containerFilePath(edgeDataDir: string, podUid: string, container: string, path: string): string {
  return join(edgeDataDir, 'pods', podUid, 'containers', container, 'root', path);
}
