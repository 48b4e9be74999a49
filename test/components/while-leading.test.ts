import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { whileLeading } from '../../cloud/components/while-leading.js';
import { silentLogger } from '../../shared/log.js';

/** Work whose start waits until the test lets it finish; counts what runs. */
function gatedWork() {
  const state = { running: 0, started: 0, aborted: 0, finish: (): void => {} };
  const work = (term: AbortSignal) =>
    new Promise<{ close(): Promise<void> }>((resolve) => {
      state.started++;
      term.addEventListener('abort', () => state.aborted++, { once: true });
      state.finish = () => {
        state.running++;
        resolve({ close: async () => void state.running-- });
      };
    });
  return { state, work };
}

describe('whileLeading: work that runs only while a candidate leads', () => {
  it('aborts a start under way as soon as the term ends, and closes what it started anyway', async () => {
    const leading = new BehaviorSubject(false);
    const { state, work } = gatedWork();
    const handle = await whileLeading(leading, work, silentLogger);
    leading.next(true);
    await Promise.resolve();
    expect([state.started, state.aborted]).toEqual([1, 0]);
    leading.next(false);
    expect(state.aborted).toBe(1);
    state.finish();
    await handle.close();
    expect(state.running).toBe(0);
  });

  it('never starts a term that ended before its start began', async () => {
    const leading = new BehaviorSubject(true);
    const { state, work } = gatedWork();
    const started = whileLeading(leading, work, silentLogger);
    leading.next(false);
    leading.next(true);
    const handle = await started;
    await new Promise((resolve) => setImmediate(resolve));
    state.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect([state.started, state.aborted, state.running]).toEqual([1, 0, 1]);
    await handle.close();
    expect(state.running).toBe(0);
  });
});
