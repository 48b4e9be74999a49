import { rm } from 'node:fs/promises';
import type { Observable } from 'rxjs';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import type { KvState, WriteRecord } from './kv-state.js';
import { recover } from './recovery.js';
import { writeSnapshot } from './snapshot.js';
import type { KeyValue, ListResult, Store, WatchEvent } from './store.js';
import { encodeRecord, LogFile, syncDir } from './wal.js';
import { WatchHistory } from './watch-history.js';

export interface DurableStoreOptions {
  /** How many recent events a watch can resume from (default 10,000). */
  historySize?: number;
  /** A snapshot is taken once the logs exceed `snapshotRatio` × the last snapshot's size + `snapshotMinBytes`. */
  snapshotRatio?: number;
  /** Default 8 MiB. */
  snapshotMinBytes?: number;
  logger?: Logger;
}

export interface DurableStoreStats {
  snapshots: number;
  snapshotBytes: number;
  logBytes: number;
  /** Log appends (write + fdatasync); each covers every write queued since the one before. */
  commits: number;
}

interface Queued {
  line: string;
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
  private snapshotting: Promise<void> | undefined;
  private durableRevision: number;
  private failure: KedgeError | undefined;
  private closed = false;
  private readonly history: WatchHistory;
  private readonly counters = { snapshots: 0, commits: 0 };
  private readonly serialized = new Map<string, { value: unknown; json: string }>();

  private constructor(
    private readonly dir: string,
    private readonly state: KvState,
    private log: LogFile,
    private olderLogs: string[],
    private logBytes: number,
    private snapshotBytes: number,
    private readonly options: DurableStoreOptions,
  ) {
    this.durableRevision = state.revision;
    this.history = new WatchHistory(options.historySize ?? 10_000, state.revision);
  }

  /** Opens (creating if needed) the store in `dir`, recovering what a previous run acknowledged. */
  static async open(dir: string, options: DurableStoreOptions = {}): Promise<DurableStore> {
    const r = await recover(dir);
    return new DurableStore(dir, r.state, r.log, r.olderLogs, r.logBytes, r.snapshotBytes, options);
  }

  get revision(): number {
    return this.durableRevision;
  }

  get compactedRevision(): number {
    return this.history.compacted;
  }

  get stats(): DurableStoreStats {
    return { ...this.counters, snapshotBytes: this.snapshotBytes, logBytes: this.logBytes };
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const kv = this.state.get(key);
    await this.untilDurable(this.state.revision);
    return kv;
  }

  async list(prefix: string): Promise<ListResult> {
    const result = { items: this.state.list(prefix), revision: this.state.revision };
    await this.untilDurable(result.revision);
    return result;
  }

  async create(key: string, value: unknown): Promise<KeyValue> {
    return this.write(() => this.state.create(key, value));
  }

  async update(key: string, value: unknown, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(() => this.state.update(key, value, expectedModRevision));
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
    await this.snapshotting;
    await this.log.close();
    this.history.close();
  }

  private async write(apply: () => { record: WriteRecord; event: WatchEvent }): Promise<KeyValue> {
    if (this.failure) throw this.failure;
    if (this.closed) throw new KedgeError('Unavailable', 'store is closed');
    const { record, event } = apply();
    if (record.op === 'delete') this.serialized.delete(record.key);
    this.queue.push({ line: encodeRecord(record, record.op === 'put' ? this.jsonOf(record.key, record.value) : ''), event });
    if (!this.flushing) {
      this.flushing = true;
      this.drained = this.flush();
    }
    await this.untilDurable(record.revision);
    return event.kv;
  }

  /**
   * A value's JSON, cached per key while that exact (frozen) value is current: the log line
   * and every later snapshot share one serialisation, so a snapshot costs little more than a copy.
   */
  private jsonOf(key: string, value: unknown): string {
    const cached = this.serialized.get(key);
    if (cached && cached.value === value) return cached.json;
    const json = JSON.stringify(value) ?? 'null';
    if (this.state.get(key)?.value === value) this.serialized.set(key, { value, json });
    return json;
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
      // Captured with the batch, so the snapshot holds exactly the writes up to this log's end.
      const entries = this.snapshotDue() ? [...this.state.all()] : undefined;
      try {
        const data = Buffer.from(batch.map((q) => q.line).join(''));
        await this.log.append(data);
        this.logBytes += data.length;
        this.counters.commits++;
        if (entries) await this.startSnapshot(revision, entries);
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

  private snapshotDue(): boolean {
    const ratio = this.options.snapshotRatio ?? 2;
    const minBytes = this.options.snapshotMinBytes ?? 8 * 1024 * 1024;
    return !this.snapshotting && this.logBytes > ratio * this.snapshotBytes + minBytes;
  }

  /** Starts a new log after `revision`, then writes the snapshot at `revision` in the background. */
  private async startSnapshot(revision: number, entries: KeyValue[]): Promise<void> {
    const next = await LogFile.create(this.dir, revision + 1);
    await syncDir(this.dir);
    await this.log.close();
    const covered = [...this.olderLogs, this.log.path];
    this.olderLogs = covered;
    this.log = next;
    this.snapshotting = this.snapshot(revision, entries, covered).finally(() => (this.snapshotting = undefined));
  }

  private async snapshot(revision: number, entries: KeyValue[], covered: string[]): Promise<void> {
    try {
      this.snapshotBytes = await writeSnapshot(this.dir, revision, entries, (kv) => this.jsonOf(kv.key, kv.value));
      this.counters.snapshots++;
      for (const path of covered) await rm(path, { force: true });
      this.olderLogs = this.olderLogs.filter((path) => !covered.includes(path));
      this.logBytes = this.log.bytes;
    } catch (err) {
      // Keep the logs; wait for them to grow further before trying again.
      this.snapshotBytes = Math.max(this.snapshotBytes, this.logBytes);
      (this.options.logger ?? silentLogger).error('store snapshot failed', { dir: this.dir, error: String(err) });
    }
  }
}
