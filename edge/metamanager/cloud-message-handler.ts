import { Subject, type Observable } from 'rxjs';
import type { Logger } from '../../shared/log.js';
import type { DownMessage, SyncedMessage, UpDraft } from '../../shared/protocol/envelope.js';
import type { LocalCache } from './local-cache.js';

export interface CloudMessageHandlerDeps {
  cache: LocalCache;
  send: (draft: UpDraft) => Promise<string>;
  logger: Logger;
  /** The cloud acknowledged one of our messages (a podStatus). */
  onAck: (parentId: string) => void;
}

/**
 * Applies what the cloud sends to the local cache (KubeEdge's MetaManager): objects and
 * tombstones are applied, persisted, then acked; acks and `synced` are passed on.
 */
export class CloudMessageHandler {
  private readonly changes = new Subject<void>();
  private readonly synced = new Subject<SyncedMessage>();

  constructor(private readonly deps: CloudMessageHandlerDeps) {}

  /** Fires after the cache content changed (and was persisted). */
  get changes$(): Observable<void> {
    return this.changes.asObservable();
  }

  /** The cloud finished answering a hello [SYNC-10]. */
  get synced$(): Observable<SyncedMessage> {
    return this.synced.asObservable();
  }

  handle(message: DownMessage): void {
    const { cache, logger } = this.deps;
    switch (message.type) {
      case 'apply': {
        const outcome = cache.apply(message.ref, message.body); // [SYNC-6]
        if (outcome === 'ignored') logger.info('ignored an older or equal version', { ref: message.ref });
        void this.persistThenAck(message.id, outcome !== 'ignored');
        return;
      }
      case 'delete': {
        const deleted = cache.delete(message.ref); // [SYNC-7]
        if (!deleted) logger.info('ignored a tombstone for a uid not held', { ref: message.ref });
        void this.persistThenAck(message.id, deleted);
        return;
      }
      case 'ack':
        this.deps.onAck(message.parentId);
        return;
      case 'synced':
        logger.info('in sync with the cloud', { applies: message.body.applies, deletes: message.body.deletes });
        this.synced.next(message);
        return;
    }
  }

  stop(): void {
    this.changes.complete();
    this.synced.complete();
  }

  /** [SYNC-8] the ack goes out only after the write covering this message resolved. */
  private async persistThenAck(parentId: string, changed: boolean): Promise<void> {
    try {
      await this.deps.cache.flush();
    } catch (err) {
      this.deps.logger.error('cannot persist the cache; not acking', { error: (err as Error).message });
      return;
    }
    if (changed && !this.changes.closed) this.changes.next();
    try {
      await this.deps.send({ type: 'ack', parentId });
    } catch (err) {
      // The cloud re-sends what it has not seen acked [SYNC-4]; applying it again is harmless.
      this.deps.logger.info('could not ack; the cloud will re-send', { parentId, error: (err as Error).message });
    }
  }
}
