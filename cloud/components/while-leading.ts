import type { Observable, Subscription } from 'rxjs';
import type { Logger } from '../../shared/log.js';
import type { ComponentHandle } from './component.js';

/** Work that runs while a candidate leads; `failure` says why it did not start on the last win. */
export interface GatedHandle extends ComponentHandle {
  failure(): string | undefined;
}

/**
 * Starts `work` on each true and closes it on each false, one change after another; resolves
 * once the current value is acted on. `work` gets a signal that aborts as soon as the term it
 * starts for ends (before the close is queued): a start still under way gives up, and a term
 * that ended before its start began is never started.
 */
export async function whileLeading(leading$: Observable<boolean>, work: (term: AbortSignal) => Promise<ComponentHandle>, logger: Logger): Promise<GatedHandle> {
  let inner: ComponentHandle | undefined;
  let failure: string | undefined;
  let term: AbortController | undefined;
  let chain: Promise<void> = Promise.resolve();
  const start = async (signal: AbortSignal): Promise<void> => {
    if (inner || signal.aborted) return;
    try {
      inner = await work(signal);
      failure = undefined;
    } catch (err) {
      if (signal.aborted) return void logger.info('the term ended while starting', { error: (err as Error).message });
      failure = (err as Error).message;
      logger.error('failed to start on winning the election', { error: failure });
    }
  };
  const stop = async (): Promise<void> => {
    if (!inner) return;
    const stopping = inner;
    inner = undefined;
    await stopping.close().catch((err: unknown) => logger.warn('stop on losing the election failed', { error: String(err) }));
  };
  const follow = (on: boolean): void => {
    term?.abort(new Error('the term ended'));
    term = on ? new AbortController() : undefined;
    const signal = term?.signal;
    chain = chain.then(() => (signal ? start(signal) : stop()));
  };
  const subscription: Subscription = leading$.subscribe(follow);
  await chain;
  return {
    failure: () => failure,
    close: async () => {
      subscription.unsubscribe();
      follow(false);
      await chain;
    },
  };
}
