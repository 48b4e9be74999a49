import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { ApiClient } from '../client/client.js';
import type { AckLedger } from './ack-ledger.js';
import { loadNodeSyncs, saveNodeSync, type Saved, type WriteCounts } from './nodesync-api.js';

export interface NodeSyncLedgerOptions {
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  /** First wait after a failed write (default 500 ms), doubling up to `maxRetryMs` (default 30 s). */
  retryMs?: number;
  maxRetryMs?: number;
}

/** One node's ledger: the truth in memory, and what we know of its NodeSync object. */
interface Entry {
  objects: Map<string, ObjectRef>;
  saved: Saved;
  /** Changed since the last write began. */
  dirty: boolean;
  /** The node was deleted: its NodeSync goes too. */
  dropped: boolean;
  writing?: Promise<void>;
}

const EMPTY: ReadonlyMap<string, ObjectRef> = new Map();

/**
 * [SYNC-2] The ack ledger, durable through the apiserver: one NodeSync per node. Reads come
 * from memory; writes go behind, per node, coalesced: at most one write in flight per node,
 * and everything that changed meanwhile goes out in the next one. A ledger that lags the
 * acks is safe (an object is re-sent, the edge ignores it); a failed write is retried with
 * backoff on the Clock until it lands.
 */
export class NodeSyncLedger implements AckLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly abort = new AbortController();
  private closing = false;
  /** Writes that reached the apiserver (creates, updates, deletes), and conflicts met. */
  readonly counts: WriteCounts = { writes: 0, conflicts: 0 };

  private constructor(private readonly options: NodeSyncLedgerOptions) {}

  /** Reads every NodeSync: the ledger as the cloud last wrote it. */
  static async load(options: NodeSyncLedgerOptions): Promise<NodeSyncLedger> {
    const ledger = new NodeSyncLedger(options);
    for (const [node, { objects, rv }] of await loadNodeSyncs(options.api)) {
      ledger.entries.set(node, { objects, saved: { exists: true, rv }, dirty: false, dropped: false });
    }
    return ledger;
  }

  held(node: string): ReadonlyMap<string, ObjectRef> {
    return this.entries.get(node)?.objects ?? EMPTY;
  }

  get(node: string, uid: string): ObjectRef | undefined {
    return this.entries.get(node)?.objects.get(uid);
  }

  record(node: string, ref: ObjectRef): void {
    const entry = this.entry(node);
    entry.objects.set(ref.uid, { ...ref });
    this.schedule(node, entry);
  }

  forget(node: string, uid: string): void {
    const entry = this.entries.get(node);
    if (entry?.objects.delete(uid)) this.schedule(node, entry);
  }

  reset(node: string, refs: readonly ObjectRef[]): void {
    const known = this.entries.get(node);
    const objects = known && !known.dropped ? known.objects : EMPTY;
    if (refs.length === objects.size && refs.every((r) => sameRef(objects.get(r.uid), r))) return; // the usual hello
    const entry = this.entry(node);
    entry.objects = new Map(refs.map((r) => [r.uid, { ...r }]));
    this.schedule(node, entry);
  }

  nodes(): string[] {
    return [...this.entries].filter(([, e]) => !e.dropped).map(([node]) => node).sort();
  }

  drop(node: string): void {
    const entry = this.entries.get(node);
    if (!entry) return;
    entry.objects.clear();
    entry.dropped = true;
    this.schedule(node, entry);
  }

  /** Resolves once nothing is being written and nothing is waiting to be. */
  async settled(): Promise<void> {
    for (;;) {
      const writing = [...this.entries.values()].map((e) => e.writing).filter((w) => w !== undefined);
      if (writing.length === 0) return;
      await Promise.all(writing);
    }
  }

  /** Writes what is pending (one attempt each), then stops retrying. */
  async close(): Promise<void> {
    this.closing = true;
    this.abort.abort();
    await this.settled();
  }

  private entry(node: string): Entry {
    let entry = this.entries.get(node);
    if (!entry) this.entries.set(node, (entry = { objects: new Map(), saved: { exists: false }, dirty: false, dropped: false }));
    entry.dropped = false;
    return entry;
  }

  private schedule(node: string, entry: Entry): void {
    entry.dirty = true;
    entry.writing ??= this.writeLoop(node, entry).finally(() => {
      entry.writing = undefined;
      if (entry.dropped && !entry.dirty && this.entries.get(node) === entry) this.entries.delete(node);
    });
  }

  private async writeLoop(node: string, entry: Entry): Promise<void> {
    const { api, clock, logger, retryMs = 500, maxRetryMs = 30_000 } = this.options;
    let delay = retryMs;
    await null; // a burst of changes in the same turn becomes one write
    while (entry.dirty) {
      entry.dirty = false;
      try {
        // A snapshot: what changes during the write goes out in the next one.
        const objects = entry.dropped ? undefined : new Map(entry.objects);
        entry.saved = await saveNodeSync(api, node, objects, entry.saved, this.counts);
        delay = retryMs;
      } catch (err) {
        entry.dirty = true;
        if (this.closing) {
          logger.warn('could not write NodeSync before closing', { node, error: String(err) });
          return;
        }
        logger.warn('could not write NodeSync; retrying', { node, error: String(err), retryMs: delay });
        await clock.sleep(delay, this.abort.signal).catch(() => undefined);
        delay = Math.min(delay * 2, maxRetryMs);
      }
    }
  }
}

function sameRef(a: ObjectRef | undefined, b: ObjectRef): boolean {
  return a !== undefined && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name && a.resourceVersion === b.resourceVersion;
}
