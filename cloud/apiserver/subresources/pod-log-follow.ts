import { Observable } from 'rxjs';
import type { Cancel, Clock } from '../../../shared/clock.js';
import type { LogChunk, LogCursor } from '../../../shared/protocol/envelope.js';

/** How often a followed log asks its edge for what came next (not scaled by the timing profile). */
export const LOG_FOLLOW_POLL_MS = 500;

export interface FollowSource {
  clock: Clock;
  /** What the run wrote after `cursor`; rejects when the edge cannot say (pod gone, node away, timeout). */
  next(cursor: LogCursor): Promise<LogChunk>;
  /** The followed pod is still in the store (same uid). */
  podExists(): Promise<boolean>;
}

/** The first `limit` bytes of `text`, never half a character. */
export function cutToBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  return new TextDecoder().decode(Buffer.from(text).subarray(0, limit), { stream: true });
}

/**
 * [SYNC-16] A followed log: the first chunk, then every LOG_FOLLOW_POLL_MS what the run wrote
 * after it. Completes when the run has exited, `limitBytes` are out, the pod is gone or the
 * edge cannot answer; unsubscribing stops the polling (an answer still on its way is dropped).
 */
export function followLog(first: LogChunk, source: FollowSource, limitBytes = Infinity): Observable<string> {
  return new Observable<string>((subscriber) => {
    let budget = limitBytes;
    let cancelPoll: Cancel | undefined;
    const take = (chunk: LogChunk): void => {
      const text = cutToBytes(chunk.text, budget);
      budget -= Buffer.byteLength(text);
      if (text) subscriber.next(text);
      if (chunk.exited || budget <= 0) return subscriber.complete();
      cancelPoll = source.clock.setTimer(LOG_FOLLOW_POLL_MS, () => void poll(chunk.cursor));
    };
    const poll = async (cursor: LogCursor): Promise<void> => {
      try {
        if (!(await source.podExists())) return subscriber.complete();
        if (subscriber.closed) return;
        const chunk = await source.next(cursor);
        if (!subscriber.closed) take(chunk);
      } catch {
        subscriber.complete(); // as kube's stream: it just ends
      }
    };
    take(first);
    return () => cancelPoll?.();
  });
}
