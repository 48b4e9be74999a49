import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/log.js';
import { ByteBuilder } from './byte-builder.js';
import type { LineIndex, LineLocation } from './line-index.js';
import { encodeRecord } from './record-codec.js';
import type { Recovered } from './recovery.js';
import { syncDir } from '../../shared/private-file.js';
import { installSnapshot, SNAPSHOT_FILE, writeSnapshot } from './snapshot.js';
import { LogFile } from './wal.js';

export interface JournalOptions {
  /** A snapshot is taken once the logs exceed `snapshotRatio` × the last snapshot's size + `snapshotMinBytes`. */
  snapshotRatio: number;
  snapshotMinBytes: number;
  logger: Logger;
}

export interface JournalStats {
  snapshots: number;
  snapshotBytes: number;
  logBytes: number;
  /** Log appends (write + fdatasync); each covers a whole batch of writes. */
  commits: number;
}

/** One write as the journal sees it: its key, whether it is a put, and the record's JSON. */
export interface JournalRecord {
  key: string;
  put: boolean;
  json: string;
}

/**
 * The files behind a DurableStore. Appends batches of records to the current log; once the
 * logs have grown enough, switches to a new log and, in the background, writes a snapshot by
 * copying each live entry's line out of the files it replaces, then deletes them. A snapshot
 * costs a copy of the live data once per that much logging, so a write's cost does not grow
 * with the database.
 */
export class Journal {
  private readonly index: LineIndex;
  private log: LogFile;
  private logFile: number;
  private replaceable: number[];
  private logBytes: number;
  private snapshotBytes: number;
  private snapshotting: Promise<void> | undefined;
  private readonly counters = { snapshots: 0, commits: 0 };
  /** The batch being appended; reused, as appends never overlap. */
  private readonly encoded = new ByteBuilder();

  constructor(
    private readonly dir: string,
    recovered: Omit<Recovered, 'state'>,
    private readonly options: JournalOptions,
  ) {
    this.index = recovered.index;
    this.log = recovered.log;
    this.logFile = recovered.logFile;
    this.replaceable = recovered.replaceable;
    this.logBytes = recovered.logBytes;
    this.snapshotBytes = recovered.snapshotBytes;
  }

  get stats(): JournalStats {
    return { ...this.counters, snapshotBytes: this.snapshotBytes, logBytes: this.logBytes };
  }

  /** Appends a batch of records, in revision order up to `revision`; resolves once on disk. Calls must not overlap. */
  async append(records: readonly JournalRecord[], revision: number): Promise<void> {
    this.encoded.reset();
    const base = this.log.bytes;
    for (const { key, put, json } of records) {
      const start = this.encoded.length;
      encodeRecord(this.encoded, json);
      if (put) this.index.put(key, { file: this.logFile, offset: base + start, length: this.encoded.length - start });
      else this.index.delete(key);
    }
    // Captured with the batch, so a snapshot holds exactly the writes up to this log's end.
    const lines = this.snapshotDue() ? this.index.capture() : undefined;
    await this.log.append(this.encoded.bytes);
    this.logBytes += this.encoded.length;
    this.counters.commits++;
    if (lines) await this.startSnapshot(revision, lines);
  }

  async close(): Promise<void> {
    await this.snapshotting;
    await this.log.close();
  }

  private snapshotDue(): boolean {
    return !this.snapshotting && this.logBytes > this.options.snapshotRatio * this.snapshotBytes + this.options.snapshotMinBytes;
  }

  /** Starts a new log after `revision`, then writes the snapshot at `revision` in the background. */
  private async startSnapshot(revision: number, lines: [string, LineLocation][]): Promise<void> {
    const next = await LogFile.create(this.dir, revision + 1);
    await syncDir(this.dir);
    await this.log.close();
    const replaced = [...this.replaceable, this.logFile];
    this.replaceable = replaced;
    this.log = next;
    this.logFile = this.index.addFile(next.path);
    this.snapshotting = this.snapshot(revision, lines, replaced).finally(() => (this.snapshotting = undefined));
  }

  private async snapshot(revision: number, lines: [string, LineLocation][], replaced: number[]): Promise<void> {
    try {
      const { bytes, offsets } = await writeSnapshot(this.dir, revision, lines, (file) => this.index.path(file));
      await installSnapshot(this.dir);
      const snapshotPath = join(this.dir, SNAPSHOT_FILE);
      const obsolete = replaced.map((file) => this.index.path(file)).filter((path) => path !== snapshotPath);
      for (const file of replaced) this.index.dropFile(file);
      const file = this.index.addFile(snapshotPath);
      this.index.moveTo(file, lines, offsets);
      this.replaceable = [file];
      this.snapshotBytes = bytes;
      this.counters.snapshots++;
      for (const path of obsolete) await rm(path, { force: true });
      this.logBytes = this.log.bytes;
    } catch (err) {
      // Keep the logs; wait for them to grow further before trying again.
      this.snapshotBytes = Math.max(this.snapshotBytes, this.logBytes);
      this.options.logger.error('store snapshot failed', { dir: this.dir, error: String(err) });
    }
  }
}
