/**
 * The steps of a container's start at which the edge can be made to crash, in order:
 * a sandbox made; a container created, not started; (process runtime) its shim spawned,
 * not yet written down; the shim written down, not yet let go; the shim let go to run the
 * container; the start returned; the pod's new status queued in the cache.
 */
export const CRASH_STEPS = ['sandbox-created', 'container-created', 'shim-spawned', 'shim-recorded', 'shim-released', 'container-started', 'status-queued'] as const;

export type CrashStep = (typeof CRASH_STEPS)[number];

/** Called at each step; does nothing unless a crash was asked for at that step. */
export type CrashPoint = (step: CrashStep) => void;

export const noCrash: CrashPoint = () => {};

/** The whole process, at once, as kill -9 or a power cut would: nothing after this line runs. */
const killSelf = (): void => void process.kill(process.pid, 'SIGKILL');

/**
 * Fault injection for the durability tests: `<step>[:<n>]` (KEDGE_CRASH_AT) crashes the
 * process the n-th time (default the first) it reaches `<step>`. No spec, no crash point.
 */
export function crashPointFrom(spec: string | undefined, crash: () => void = killSelf): CrashPoint {
  if (!spec) return noCrash;
  const [step, nth = '1'] = spec.split(':');
  if (!CRASH_STEPS.includes(step as CrashStep)) throw new Error(`KEDGE_CRASH_AT: unknown step "${step}" (known: ${CRASH_STEPS.join(', ')})`);
  if (!/^[1-9]\d*$/.test(nth)) throw new Error(`KEDGE_CRASH_AT: "${nth}" is not a count (1, 2, ...)`);
  let left = Number(nth);
  return (reached) => {
    if (reached === step && --left === 0) crash();
  };
}
