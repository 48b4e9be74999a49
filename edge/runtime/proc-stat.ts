export { fateOf, identify, isSameProcess, processStartTime, type ProcessIdentity } from '../../shared/proc-stat.js';

/** Signals a whole process group (a container and whatever it spawned); a gone group is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
