import type { Observable } from 'rxjs';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { Journal, type JournalRecord, type JournalStats } from './journal.js';
import type { KvState, WriteRecord } from './kv-state.js';
import { recordJson, valueJson } from './record-codec.js';
import { recover } from './recovery.js';
import { listAt } from './list-at.js';
import type { KeyValue, ListOptions, ListResult, Store, WatchEvent } from './store.js';
import { WatchHistory, type HistoryOptions } from './watch-history.js';

/** History for watches as in HistoryOptions, plus the log's snapshot policy. */
export interface DurableStoreOptions extends HistoryOptions {
  /**
   * A snapshot is taken once the logs exceed `snapshotRatio` × the last snapshot's size +
   * `snapshotMinBytes` (defaults 4 and 8 MiB): snapshot I/O stays under a quarter of log I/O,
   * and recovery replays at most about four times the live data.
   */
  snapshotRatio?: number;
  snapshotMinBytes?: number;
  logger?: Logger;
}

interface Queued extends JournalRecord {
  event: WatchEvent;
}

interface Waiter {
  revision: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * A Store kept in a data directory: a write-ahead log plus periodic snapshots.
 *
 * Writes are checked and applied to the in-memory state at once, in call order, and queued.
 * One log append (write + fdatasync) then covers everything queued — group commit — and only
 * after it are those writes acknowledged and their watch events published. Reads see the
 * applied state but return only once what they saw is on disk, so nobody observes a write
 * that a crash could still take back.
 */
export class DurableStore implements Store {
  private queue: Queued[] = [];
  private waiters: Waiter[] = [];
  private flushing = false;
  private drained: Promise<void> = Promise.resolve();
  private durableRevision: number;
  private failure: KedgeError | undefined;
  private closed = false;
  private readonly history: WatchHistory;

  private constructor(
    private readonly state: KvState,
    private readonly journal: Journal,
    history: HistoryOptions,
  ) {
    this.durableRevision = state.revision;
    this.history = new WatchHistory(history, state.revision);
  }

  /** Opens (creating if needed) the store in `dir`, recovering what a previous run acknowledged. */
  static async open(dir: string, options: DurableStoreOptions = {}): Promise<DurableStore> {
    const recovered = await recover(dir);
    const journal = new Journal(dir, recovered, {
      snapshotRatio: options.snapshotRatio ?? 4,
      snapshotMinBytes: options.snapshotMinBytes ?? 8 * 1024 * 1024,
      logger: options.logger ?? silentLogger,
    });
    return new DurableStore(recovered.state, journal, options);
  }

  get revision(): number {
    return this.durableRevision;
  }

  get compactedRevision(): number {
    return this.history.compacted;
  }

  get stats(): JournalStats {
    return this.journal.stats;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const kv = this.state.get(key);
    await this.untilDurable(this.state.revision);
    return kv;
  }

  /** The entries as applied now; once durable, history holds every event up to them, so older pages can be undone. */
  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const current = this.state.list(prefix, options.fromKey);
    const revision = this.state.revision;
    await this.untilDurable(revision);
    return listAt({ current, revision, eventsAfter: (r) => this.history.eventsAfter(prefix, r) }, options);
  }

  async create(key: string, value: unknown): Promise<KeyValue> {
    const json = valueJson(value);
    return this.write(() => this.state.create(key, value), json);
  }

  async update(key: string, value: unknown, expectedModRevision?: number): Promise<KeyValue> {
    const json = valueJson(value);
    return this.write(() => this.state.update(key, value, expectedModRevision), json);
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(() => this.state.delete(key, expectedModRevision));
  }

  watch(prefix: string, afterRevision: number): Observable<WatchEvent> {
    return this.history.watch(prefix, afterRevision, () => this.durableRevision);
  }

  async compact(revision: number): Promise<void> {
    this.history.compact(Math.min(revision, this.durableRevision));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.drained;
    await this.journal.close();
    this.history.close();
  }

  private async write(apply: () => { record: WriteRecord; event: WatchEvent }, value?: string): Promise<KeyValue> {
    if (this.failure) throw this.failure;
    if (this.closed) throw new KedgeError('Unavailable', 'store is closed');
    const { record, event } = apply();
    this.queue.push({ key: record.key, put: record.op === 'put', json: recordJson(record, value), event });
    if (!this.flushing) {
      this.flushing = true;
      this.drained = this.flush();
    }
    await this.untilDurable(record.revision);
    return event.kv;
  }

  private untilDurable(revision: number): Promise<void> {
    if (revision <= this.durableRevision) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ revision, resolve, reject }));
  }

  /** Appends queued writes to the log, one batch per append, until the queue is empty. */
  private async flush(): Promise<void> {
    await Promise.resolve(); // let writes issued in the same tick join the first batch
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const revision = batch.at(-1)!.event.kv.modRevision;
      try {
        await this.journal.append(batch, revision);
      } catch (err) {
        this.fail(err);
        break;
      }
      for (const q of batch) this.history.record(q.event);
      this.durableRevision = revision;
      this.releaseWaiters();
    }
    this.flushing = false;
  }

  private releaseWaiters(): void {
    let done = 0;
    while (done < this.waiters.length && this.waiters[done]!.revision <= this.durableRevision) this.waiters[done++]!.resolve();
    this.waiters.splice(0, done);
  }

  private fail(err: unknown): void {
    this.failure = new KedgeError('Unavailable', `store log write failed: ${(err as Error).message}`, { cause: err });
    for (const w of this.waiters) w.reject(this.failure);
    this.waiters = [];
    this.queue = [];
  }
}
