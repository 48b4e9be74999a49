import type { Clock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import type { ContainerConfig, ContainerSession, SessionOptions } from '../runtime.js';
import { containerAt, type SimContainerRecord } from '../sim-behaviour.js';
import { simLogLines } from '../sim-logs.js';
import { attachSimLog } from './sim-attach.js';
import { scratchDir, SimFs } from './sim-fs.js';
import { startSimSession } from './sim-session.js';

/** What a stream into a sim container needs: its record (looked up again as time passes), its pod's name, where its files are. */
export interface SimStreamTarget {
  record: SimContainerRecord;
  /** The record as it is now; undefined once removed. */
  current: () => SimContainerRecord | undefined;
  hostname: string;
  dataDir: string;
  clock: Clock;
}

/** Directories a container has from its image, made in its scratch directory at its first exec. */
const SKELETON = ['/tmp', '/root', '/etc', '/var', '/home', '/usr/bin', '/bin'];

/** What the simulated shell of a container sees, as recorded at its creation. */
export function shellOf(config: ContainerConfig): NonNullable<SimContainerRecord['shell']> {
  return { env: config.env, workingDir: config.workingDir, ...(config.stdin || config.tty ? { stdin: true } : {}) };
}

export function simExec(target: SimStreamTarget, command: string[], options: SessionOptions): ContainerSession {
  const { record, dataDir, clock, hostname } = target;
  const workingDir = record.shell?.workingDir;
  const fs = new SimFs(scratchDir(dataDir, record.id), record.mounts ?? [], [...SKELETON, workingDir ?? '/']);
  return startSimSession({ command, env: record.shell?.env ?? {}, workingDir, hostname, fs, clock, options });
}

/** Its simulated log lines as they come; with stdin (a container created with one), the simulated shell. */
export function simAttach(target: SimStreamTarget, options: SessionOptions): ContainerSession {
  const { record, clock } = target;
  if (options.stdin && record.shell?.stdin) return simExec(target, ['sh'], options);
  if (options.stdin) throw new KedgeError('Invalid', `cannot attach to the stdin of container ${record.name}: it was not created with stdin (set stdin: true in its spec)`);
  const look = (now: number) => {
    const current = target.current();
    return current && { info: containerAt(current, now), lines: simLogLines(containerAt(current, now), now) };
  };
  return attachSimLog({ clock, options, look });
}
