import { access, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/log.js';
import { makePrivateDir } from '../../shared/private-file.js';
import { jsonDocument } from '../../shared/recovering-read.js';
import { JsonStateFile } from '../json-state-file.js';
import { fateOf, isSameProcess, signalGroup, type ProcessIdentity } from './proc-stat.js';
import { CONTAINERS_DIR, containerPaths, removeContainerFiles } from './process-spawn.js';
import { forgetAll, PROCESS_STATE_FILE, shimOf, type ProcessRecord, type ProcessState } from './process-state.js';

/** What a shim wrote in its pid file when it was let go (the container ran, in this process group, in this boot). */
async function readShimFile(path: string): Promise<ProcessIdentity | undefined> {
  try {
    const saved = JSON.parse(await readFile(path, 'utf8')) as ProcessIdentity;
    return Number.isInteger(saved.pid) && typeof saved.startTime === 'string' && ['string', 'undefined'].includes(typeof saved.bootId) ? saved : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the container's shim was let go and ran it: it wrote its pid file, or its log (a
 * shim from before pid files opened its log first thing, and ran the container at once).
 */
export async function shimRan(dataDir: string, id: string): Promise<boolean> {
  const { pid, log } = containerPaths(dataDir, id);
  const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
  return (await exists(pid)) || exists(log);
}

/** Every pid file in the containers directory, by container id. */
async function shimFiles(dataDir: string): Promise<{ id: string; shim: ProcessIdentity }[]> {
  const names = await readdir(join(dataDir, CONTAINERS_DIR)).catch(() => [] as string[]);
  const out: { id: string; shim: ProcessIdentity }[] = [];
  for (const name of names.filter((n) => n.endsWith('.pid'))) {
    const id = name.slice(0, -'.pid'.length);
    const shim = await readShimFile(containerPaths(dataDir, id).pid);
    if (shim) out.push({ id, shim });
  }
  return out;
}

/**
 * Kills a shim's process group: the shim, its container and whatever that started. With the
 * shim gone, what is left in its group (a container whose shim died, a child the container
 * left behind); unless its pid now names another process, which means the group is empty, or
 * the shim ran before the machine last booted (or in a boot not recorded): its group, if there
 * is one now, is another program's.
 */
export async function stopGroup(shim: ProcessIdentity): Promise<void> {
  const fate = await fateOf(shim);
  if (fate === 'running' || (fate === 'gone' && shim.bootId !== undefined)) signalGroup(shim.pid, 'SIGKILL');
}

/** A shim that never got to run its container: the container is `created` again. */
export function unstart(record: ProcessRecord): void {
  delete record.pid;
  delete record.startTime;
  delete record.bootId;
  delete record.startedAt;
}

/**
 * What an edge process killed mid-start may have left, put right when the next one opens the
 * runtime: a shim written down but never let go runs nothing (it exits by itself) and its
 * container is `created` again, for edged to replace; a shim that no live record names (the
 * state was written before it, or is an older copy) is stopped with all it ran, and the files
 * of a container no record names are removed. Returns whether the state changed.
 */
export async function reconcile(dataDir: string, state: ProcessState, logger?: Logger): Promise<boolean> {
  let changed = false;
  for (const record of state.containers) {
    const shim = shimOf(record);
    if (!shim || record.finishedAt !== undefined) continue;
    if (await shimRan(dataDir, record.id)) continue;
    await stopGroup(shim);
    unstart(record);
    changed = true;
    logger?.warn('container was never let go by its shim: created again', { container: record.id });
  }
  for (const { id, shim } of await shimFiles(dataDir)) {
    const record = state.containers.find((c) => c.id === id);
    if (record?.finishedAt === undefined && record?.pid === shim.pid && record.startTime === shim.startTime) continue;
    if (await isSameProcess(shim)) {
      signalGroup(shim.pid, 'SIGKILL');
      logger?.warn('stopped a container process that no record accounts for', { container: id, pid: shim.pid });
    }
    // A record's log and exit file stay with it; a container no record names leaves nothing.
    await (record ? rm(containerPaths(dataDir, id).pid, { force: true }) : removeContainerFiles(dataDir, id));
  }
  return changed;
}

/**
 * The runtime's state at start, read defensively (a damaged file falls back to its last good
 * copy, or to no containers); after a node reboot, forgotten with every process it ran; and
 * put right after a crash of the edge (reconcile).
 */
export async function openState(dataDir: string, reboot: boolean, logger: Logger): Promise<{ file: JsonStateFile<ProcessState>; state: ProcessState }> {
  const file = new JsonStateFile<ProcessState>(join(dataDir, PROCESS_STATE_FILE), {
    parse: jsonDocument({ sandboxes: 'array', containers: 'array' }),
    logger,
    otherwise: 'starting with no containers; the pods are started again (processes from before are stopped)',
  });
  if (reboot) {
    await stopEveryShim(dataDir);
    await forgetAll(dataDir, file);
  }
  const state = (await file.read()) ?? { sandboxes: [], containers: [] };
  await makePrivateDir(join(dataDir, CONTAINERS_DIR));
  if (await reconcile(dataDir, state, logger)) await file.write(state);
  return { file, state };
}

/** A node reboot: every shim with a pid file dies with it, recorded or not. */
export async function stopEveryShim(dataDir: string): Promise<void> {
  for (const { shim } of await shimFiles(dataDir)) if (await isSameProcess(shim)) signalGroup(shim.pid, 'SIGKILL');
}
