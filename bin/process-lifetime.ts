import { createLogger, defaultLogSettings, type Logger, type LogSettings } from '../shared/log.js';
import { portProblem, type PortOption } from './port-options.js';

/** Why a role stops: a signal (SIGINT, SIGTERM), or the parent that started it, which closed its stdin or died. */
export type StopReason = 'signal' | 'parent';

export interface Running {
  /** runUntilStopped says why; a role that stops itself (a failed start) need not. */
  stop(reason?: StopReason): Promise<void>;
}

/**
 * Runs a long-lived role until SIGINT/SIGTERM (or, when started by `kedge demo`, until the
 * parent's pipe on stdin closes, so that no child outlives a demo killed with -9). It listens
 * from the start: a signal that comes while the role starts (its ready line may be out
 * already) stops it cleanly once it is up, rather than killing it half done. A port of `ports`
 * it cannot listen on is named with the option that changes it.
 */
export async function runUntilStopped(
  role: string,
  start: (logger: Logger) => Promise<Running>,
  settings: LogSettings = defaultLogSettings,
  ports: readonly PortOption[] = [],
): Promise<void> {
  const logger = createLogger(role, undefined, undefined, settings);
  const stop = stopRequest();
  let running: Running;
  try {
    running = await start(logger);
  } catch (err) {
    logger.error(`cannot start: ${portProblem(err, ports) ?? (err as Error).message}`);
    process.exitCode = 1;
    stop.release();
    return;
  }
  const reason = await stop.requested;
  logger.info(reason === 'parent' ? 'stopping with the process that started it (it closed our stdin, or died)' : 'stopping');
  await running.stop(reason);
  stop.release();
}

/**
 * Resolves `requested` on the first SIGINT, SIGTERM or (with a parent) end of stdin: the parent
 * closed it, or died. `release` lets the process go.
 */
function stopRequest(): { requested: Promise<StopReason>; release(): void } {
  let done!: (reason: StopReason) => void;
  const requested = new Promise<StopReason>((resolve) => (done = resolve));
  const signalled = (): void => done('signal');
  const orphaned = (): void => done('parent');
  process.once('SIGINT', signalled);
  process.once('SIGTERM', signalled);
  if (process.env.KEDGE_EXIT_WITH_PARENT === '1') {
    process.stdin.on('end', orphaned).on('close', orphaned).resume();
    // The parent reads our output: once it is gone, writing fails (EPIPE), which must not kill us before we have stopped.
    for (const out of [process.stdout, process.stderr]) out.on('error', () => undefined);
  }
  return {
    requested,
    release: () => {
      process.off('SIGINT', signalled);
      process.off('SIGTERM', signalled);
      process.stdin.destroy();
    },
  };
}
