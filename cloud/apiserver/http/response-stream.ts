import type { ServerResponse } from 'node:http';
import { Subscription, type Observable } from 'rxjs';

/**
 * One piece of a streamed answer (a watch event, a log chunk), encoded only when the
 * connection takes it. `weight` is what it counts against the stream's backlog: 0 for what
 * is sent however slowly the client reads (a watch's initial state, bounded by what is stored).
 */
export interface Piece {
  encode(): string;
  weight: number;
}

/**
 * What a client that stops reading may leave waiting on one stream before it is closed, as
 * kube-apiserver closes a watcher whose channel is full (the client lists and watches again).
 */
export interface StreamLimits {
  /** Watch events after its initial state (kube's largest cache-watcher channels hold 1,000). */
  watchEvents: number;
  /** Bytes of a followed log. */
  textBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { watchEvents: 1000, textBytes: 1024 * 1024 };

/**
 * Writes `pieces` to `res` as fast as its connection takes them and queues the rest; once the
 * queue weighs more than `limit`, stops: drops the queue, unsubscribes, ends the answer after
 * what was already written (so the client sees a clean end) and calls `onOverflow`.
 */
export function pump(res: ServerResponse, pieces: Observable<Piece>, limit: number, onOverflow: (backlog: number) => void): Subscription {
  const queue: (Piece | undefined)[] = [];
  let head = 0;
  let backlog = 0;
  let complete = false;
  const sub = new Subscription();
  const flush = (): void => {
    while (head < queue.length && !res.writableNeedDrain) {
      const piece = queue[head]!;
      queue[head++] = undefined;
      backlog -= piece.weight;
      const text = piece.encode();
      if (text) res.write(text);
    }
    if (head === queue.length) {
      queue.length = head = 0;
      if (complete) res.end();
    } else if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head); // now and then, not per piece: sending stays linear
      head = 0;
    }
  };
  const overflow = (): void => {
    const dropped = backlog;
    sub.unsubscribe();
    queue.length = head = backlog = 0;
    res.off('drain', flush);
    res.end();
    onOverflow(dropped);
  };
  const end = (): void => {
    complete = true;
    flush();
  };
  res.on('drain', flush);
  sub.add(
    pieces.subscribe({
      next: (piece) => {
        queue.push(piece);
        backlog += piece.weight;
        if (backlog > limit) overflow();
        else flush();
      },
      error: end, // only a text stream can fail here, and kube's just ends
      complete: end,
    }),
  );
  return sub;
}
