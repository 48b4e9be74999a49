import { objectKey } from '../../shared/types.js';
import type { PodStartupTrace } from '../../shared/trace/pod-startup-trace.js';
import { Subject, type Observable } from 'rxjs';
import type { Logger } from '../../shared/log.js';
import type { ApplyMessage, DownMessage, LogRequestMessage, PatchMessage, SyncedMessage, UpDraft } from '../../shared/protocol/envelope.js';
import { rebuild } from './lean-apply.js';
import type { CachedObject, LocalCache } from './local-cache.js';

export interface CloudMessageHandlerDeps {
  cache: LocalCache;
  send: (draft: UpDraft) => Promise<string>;
  logger: Logger;
  /** The cloud acknowledged one of our messages (a podStatus). */
  onAck: (parentId: string) => void;
  /** The cloud asks for a container's log [SYNC-16]. */
  onLogRequest: (message: LogRequestMessage) => Promise<void>;
  /** Where a pod's arrival in the cache is noted. */
  trace?: PodStartupTrace;
}

/**
 * Applies what the cloud sends to the local cache (KubeEdge's MetaManager): objects and
 * tombstones are applied, persisted, then acked; acks and `synced` are passed on.
 */
export class CloudMessageHandler {
  private readonly changes = new Subject<void>();
  private readonly synced = new Subject<SyncedMessage>();
  private refusedCount = 0;

  constructor(private readonly deps: CloudMessageHandlerDeps) {}

  /** Fires after the cache content changed (and was persisted). */
  get changes$(): Observable<void> {
    return this.changes.asObservable();
  }

  /** The cloud finished answering a hello [SYNC-10]. */
  get synced$(): Observable<SyncedMessage> {
    return this.synced.asObservable();
  }

  /** Lean forms refused (a patch on a base not held, or whose result is not the one meant): each answered with a nack. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Handles one message; resolves once it is persisted and its ack was sent (or could not be). */
  handle(message: DownMessage): Promise<void> {
    const { cache, logger } = this.deps;
    switch (message.type) {
      case 'apply':
      case 'patch': {
        const { kind, namespace, name, uid } = message.ref;
        // A tombstoned uid is ignored (and acked) whatever the form [SYNC-13].
        const rebuilt = cache.tombstoned(uid) ? undefined : rebuild(message, cache.find(kind as CachedObject['kind'], namespace, name));
        if (rebuilt && !rebuilt.ok) return this.refuse(message, rebuilt.reason);
        const outcome = rebuilt ? cache.apply(message.ref, rebuilt.body) : 'ignored'; // [SYNC-6][SYNC-13]
        if (outcome === 'ignored') {
          const why = cache.tombstoned(message.ref.uid) ? 'its uid was deleted' : 'not newer than the cached version';
          logger.info('ignored an apply', { ref: message.ref, why });
        }
        if (message.ref.kind === 'Pod' && outcome !== 'ignored') this.deps.trace?.mark(objectKey(message.ref), 'received');
        return this.persistThenAck(message.id, outcome !== 'ignored');
      }
      case 'delete': {
        const deleted = cache.delete(message.ref); // [SYNC-7][SYNC-13]
        // Only a pod's uid is remembered as gone for good (cache-document.ts [SYNC-13][SYNC-18]).
        if (!deleted) logger.info('a tombstone for a uid not held: nothing to remove', { ref: message.ref, remembered: cache.tombstoned(message.ref.uid) });
        return this.persistThenAck(message.id, deleted);
      }
      case 'ack':
        this.deps.onAck(message.parentId);
        return Promise.resolve();
      case 'synced':
        logger.info('in sync with the cloud', { applies: message.body.applies, deletes: message.body.deletes });
        this.synced.next(message);
        return Promise.resolve();
      case 'logRequest':
        return this.deps.onLogRequest(message);
    }
  }

  /** Lean sync: a form this edge cannot apply is dropped, counted, logged, and refused: the cloud sends the whole object. */
  private async refuse(message: ApplyMessage | PatchMessage, reason: string): Promise<void> {
    this.refusedCount++;
    this.deps.logger.info('refused a lean message; the cloud sends the whole object', { type: message.type, ref: message.ref, reason });
    try {
      await this.deps.send({ type: 'nack', parentId: message.id, body: { reason } });
    } catch (err) {
      // Unanswered, the cloud re-sends it, and it is refused again.
      this.deps.logger.info('could not refuse; the cloud will re-send', { parentId: message.id, error: (err as Error).message });
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
