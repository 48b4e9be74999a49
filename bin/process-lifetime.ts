import { createLogger, type Logger } from '../shared/log.js';

export interface Running {
  stop(): Promise<void>;
}

/**
 * Runs a long-lived role until SIGINT/SIGTERM (or, when started by `kedge demo`, until the
 * parent's pipe on stdin closes, so that no child outlives a demo killed with -9).
 */
export async function runUntilStopped(role: string, start: (logger: Logger) => Promise<Running>): Promise<void> {
  const logger = createLogger(role);
  let running: Running;
  try {
    running = await start(logger);
  } catch (err) {
    logger.error(`cannot start: ${(err as Error).message}`);
    process.exitCode = 1;
    return;
  }
  await new Promise<void>((resolve) => {
    const done = (): void => resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (process.env.KEDGE_EXIT_WITH_PARENT === '1') {
      process.stdin.on('end', done).on('close', done).resume();
    }
  });
  logger.info('stopping');
  await running.stop();
  process.stdin.destroy();
}

