import { isKedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { KeyQueue } from '../informer/key-queue.js';

export interface WorkerOptions {
  queue: KeyQueue;
  /** Brings one key to its desired state. A throw re-queues it with backoff; NotFound counts as done. */
  reconcile(key: string): Promise<void>;
  logger: Logger;
  /** Keys worked on at once (default 4; never the same key twice at a time). */
  concurrency?: number;
}

/**
 * Runs `concurrency` workers over a key queue, as client-go controllers do. Resolves when the
 * queue is closed and the keys in hand are done.
 */
export async function runWorkers(options: WorkerOptions): Promise<void> {
  const { queue, reconcile, logger, concurrency = 4 } = options;
  const busy = new Set<string>();
  const again = new Set<string>();
  const work = async (): Promise<void> => {
    for (let key = await queue.take(); key !== undefined; key = await queue.take()) {
      if (busy.has(key)) {
        again.add(key);
        continue;
      }
      busy.add(key);
      try {
        await reconcile(key);
        queue.forget(key);
      } catch (err) {
        if (isKedgeError(err, 'NotFound')) queue.forget(key);
        else {
          logger.warn('reconcile failed, will retry', { key, error: String(err) });
          queue.addRateLimited(key);
        }
      } finally {
        busy.delete(key);
        if (again.delete(key)) queue.add(key);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, work));
}
