import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { containerDir } from '../../edge/runtime/process-root.js';

/**
 * A file as a process container sees it at `path`: read under the root of its newest run, where
 * each volume's mountPath is a link to the volume (docs/volumes.md). Rejects when the container
 * never ran with mounts, or the file is not there.
 */
export async function readContainerFile(edgeDataDir: string, podUid: string, container: string, path: string): Promise<string> {
  const runs = dirname(containerDir(edgeDataDir, podUid, container, 'run'));
  const ids = await readdir(runs);
  const started = await Promise.all(ids.map(async (id) => ({ id, at: (await stat(join(runs, id))).mtimeMs })));
  const newest = started.sort((a, b) => b.at - a.at)[0];
  if (!newest) throw new Error(`no run of container ${container} on this edge`);
  return readFile(join(runs, newest.id, 'root', resolve('/', path)), 'utf8');
}
