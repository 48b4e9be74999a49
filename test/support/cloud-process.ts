import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock } from '../../shared/clock.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';

export interface CloudProcess {
  dir: string;
  cloud: RoleProcess;
  /** Stops the process and removes its data dir. */
  stop(): Promise<void>;
}

/** A `kedge cloud` process (memory store, ports 0) with a throwaway data dir, as a user would start it. */
export async function startCloudProcess(prefix: string, extraArgs: string[] = []): Promise<CloudProcess> {
  const dir = await mkdtemp(join(tmpdir(), `kedge-${prefix}-`));
  const cloud = startRole({
    name: 'cloud',
    args: ['cloud', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--store', 'memory', ...extraArgs],
    readyPattern: /^kedge cloud ready /,
    clock: realClock,
  });
  const stop = async (): Promise<void> => {
    await cloud.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await cloud.ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return { dir, cloud, stop };
}
