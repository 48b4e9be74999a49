import { createLogger, defaultLogSettings, type Logger, type LogSettings } from '../shared/log.js';
import { portProblem, type PortOption } from './port-options.js';

export interface Running {
  stop(): Promise<void>;
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
  await stop.requested;
  logger.info('stopping');
  await running.stop();
  stop.release();
}

/** Resolves `requested` on the first SIGINT, SIGTERM or (with a parent) end of stdin; `release` lets the process go. */
function stopRequest(): { requested: Promise<void>; release(): void } {
  let done!: () => void;
  const requested = new Promise<void>((resolve) => (done = resolve));
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
  if (process.env.KEDGE_EXIT_WITH_PARENT === '1') process.stdin.on('end', done).on('close', done).resume();
  return {
    requested,
    release: () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      process.stdin.destroy();
    },
  };
}
