import type { Cancel, Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { LogChunk, LogOptions, LogResponseMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import type { SessionTransport } from './node-outbox.js';
import type { NodeSession } from './node-session.js';
import { unreachable } from './unreachable.js';

/** What a log request needs of the node's session (a node never seen has none). */
export type LogTarget = Pick<NodeSession, 'node' | 'connected' | 'offlineSince'>;

/** How long the cloud waits for an edge's log before answering Timeout. */
export const LOG_TIMEOUT_MS = 10_000;

interface Waiting {
  node: string;
  resolve(chunk: LogChunk): void;
  reject(err: Error): void;
  cancel: Cancel;
}

/**
 * [SYNC-16] Log requests in flight: each goes down as a `logRequest` and waits for the
 * `logResponse` naming it. A node that is away answers at once with when it went away.
 */
export class LogRequests {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly clock: Clock,
    private readonly transport: SessionTransport,
  ) {}

  ask(session: LogTarget, ref: ObjectRef, options: LogOptions): Promise<LogChunk> {
    const { node } = session;
    const what = `the logs of pod ${ref.namespace ?? 'default'}/${ref.name}`;
    if (!session.connected) throw new KedgeError('Unavailable', `${unreachable(node, session.offlineSince, this.clock.now())}: cannot get ${what}`);
    const message = this.transport.send(node, { type: 'logRequest', ref, body: options });
    return new Promise<LogChunk>((resolve, reject) => {
      const cancel = this.clock.setTimer(LOG_TIMEOUT_MS, () => {
        this.waiting.delete(message.id);
        reject(new KedgeError('Timeout', `node "${node}" did not send ${what} within ${LOG_TIMEOUT_MS / 1000} s`));
      });
      this.waiting.set(message.id, { node, resolve, reject, cancel });
    });
  }

  /**
   * Settles the request a response from `node` answers: only the node it was sent to may
   * answer it ('other-node' leaves it waiting); 'unknown' when no request waits for it.
   */
  answer(node: string, response: LogResponseMessage): 'answered' | 'unknown' | 'other-node' {
    const waiting = this.waiting.get(response.parentId);
    if (!waiting) return 'unknown';
    if (waiting.node !== node) return 'other-node';
    this.waiting.delete(response.parentId);
    waiting.cancel();
    const body = response.body;
    if ('text' in body) waiting.resolve(body);
    else waiting.reject(new KedgeError(body.code, body.error));
    return 'answered';
  }

  /** The node went away: what it was asked will not be answered. */
  nodeAway(node: string): void {
    for (const [id, w] of this.waiting) {
      if (w.node !== node) continue;
      this.waiting.delete(id);
      w.cancel();
      w.reject(new KedgeError('Unavailable', `node "${node}" went away before it sent the log`));
    }
  }

  /** Requests in flight. */
  get size(): number {
    return this.waiting.size;
  }

  close(): void {
    for (const w of this.waiting.values()) {
      w.cancel();
      w.reject(new KedgeError('Unavailable', 'the cloud hub is stopping'));
    }
    this.waiting.clear();
  }
}
