import type { Logger } from './log.js';

/** What a loop that retries says: the first failure of a run, and the success that ends it. */
export interface FailureRun {
  /** A pass failed: warned with `failed` when it is the first of a run. */
  failed(err: unknown): void;
  /** A pass succeeded: `recovered` when it ends a run of failures. */
  succeeded(): void;
}

/** Logs a run of failing passes once, not at every pass (a stopped store fails them all). */
export function failureRun(logger: Logger, messages: { failed: string; recovered: string }): FailureRun {
  let failing = false;
  return {
    failed(err) {
      if (!failing) logger.warn(messages.failed, { error: err instanceof Error ? err.message : String(err) });
      failing = true;
    },
    succeeded() {
      if (failing) logger.info(messages.recovered);
      failing = false;
    },
  };
}
