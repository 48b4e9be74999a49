import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import type { JsonStateFile } from '../json-state-file.js';
import { isSameProcess, signalGroup, type ProcessIdentity } from './proc-stat.js';
import type { ContainerConfig, ContainerInfo, Sandbox } from './runtime.js';

export const PROCESS_STATE_FILE = 'process-runtime.json';

/** What the runtime remembers about a container: its spec, and the process that runs it. */
export interface ProcessRecord extends Omit<ContainerInfo, 'state' | 'ready'> {
  spec: Pick<ContainerConfig, 'command' | 'args' | 'env' | 'workingDir' | 'mounts' | 'stdin'> & {
    /** The directory of a container with mounts (its root is `root` in it): removed with the container. */
    dir?: string;
  };
  pid?: number;
  /** /proc/<pid>/stat starttime: adopting needs the pid AND this to match. */
  startTime?: string;
  /** The machine's boot when its shim ran: after a reboot, its pid and process group may be anyone's. */
  bootId?: string;
}

/** The recorded identity of a container's shim (the leader of its process group); undefined before one is written down. */
export function shimOf(record: ProcessRecord): ProcessIdentity | undefined {
  const { pid, startTime, bootId } = record;
  return pid === undefined ? undefined : { pid, startTime, bootId };
}

export interface ProcessState {
  sandboxes: Sandbox[];
  containers: ProcessRecord[];
}

export function infoOf(record: ProcessRecord): ContainerInfo {
  const { spec: _spec, pid: _pid, startTime: _startTime, bootId: _bootId, ...info } = record;
  // Running once its shim is written down (it runs nothing unrecorded); before that, created.
  const state = record.finishedAt !== undefined ? 'exited' : record.pid !== undefined ? 'running' : 'created';
  return { ...info, state, ready: state === 'running', ...(record.spec.mounts?.length ? { mounts: record.spec.mounts } : {}) };
}

/** A node reboot: the processes it recorded that still run (same start time) die with it. */
export async function forgetAll(dataDir: string, file: JsonStateFile<ProcessState>): Promise<void> {
  const old = await file.read();
  for (const c of old?.containers ?? []) {
    const shim = shimOf(c);
    if (shim && c.finishedAt === undefined && (await isSameProcess(shim))) signalGroup(shim.pid, 'SIGKILL');
    if (c.spec.dir) await rm(c.spec.dir, { recursive: true, force: true }); // its root, with its mounts
  }
  await file.remove();
  await rm(join(dataDir, 'containers'), { recursive: true, force: true });
}

export function newRecord(id: string, sandbox: Sandbox, config: ContainerConfig, now: number, dir?: string): ProcessRecord {
  const { command, args, env, workingDir, mounts, stdin } = config;
  const { podUid } = sandbox;
  const spec: ProcessRecord['spec'] = { command, args, env, workingDir, ...(stdin ? { stdin } : {}), ...(mounts?.length ? { mounts } : {}), ...(dir ? { dir } : {}) };
  return { id, sandboxId: sandbox.id, podUid, name: config.name, attempt: config.attempt, image: config.image ?? '', createdAt: now, spec };
}

/** Resolves once `done` says so, asking every `everyMs` on the clock. */
export function pollUntil(clock: Clock, everyMs: number, done: () => Promise<boolean>): Promise<void> {
  return new Promise((resolve) => {
    const cancel = clock.setRepeating(everyMs, () => {
      void done().then((yes) => {
        if (!yes) return;
        cancel();
        resolve();
      });
    });
  });
}
