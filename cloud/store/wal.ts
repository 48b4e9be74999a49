import { readdir, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { openPrivate } from '../../shared/private-file.js';
import type { WriteRecord } from './kv-state.js';
import { decodeRecords } from './record-codec.js';

/*
 * The write-ahead log: files of record lines (see record-codec.ts), each named after the
 * first revision it may hold, so that names sort in log order.
 */

const LOG_NAME = /^wal-(\d{16})\.log$/;

export function logFileName(firstRevision: number): string {
  return `wal-${String(firstRevision).padStart(16, '0')}.log`;
}

/** The log files in `dir`, oldest first. */
export async function listLogs(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => LOG_NAME.test(name)).sort();
}

export interface LogContents {
  records: WriteRecord[];
  /** Record i spans bytes offsets[i] to offsets[i + 1]; the last offset ends the good records. */
  offsets: number[];
  totalBytes: number;
}

export async function readLog(path: string): Promise<LogContents> {
  const buf = await readFile(path);
  return { ...decodeRecords(buf, 0, path), totalBytes: buf.length };
}

/** Writes all of `data` at `position`, however many calls it takes. */
export async function writeFully(fh: FileHandle, data: Buffer, position: number): Promise<void> {
  for (let written = 0; written < data.length; ) {
    written += (await fh.write(data, written, data.length - written, position + written)).bytesWritten;
  }
}

/** An open log file that appends batches; `append` resolves once the batch is on disk. */
export class LogFile {
  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    private size: number,
  ) {}

  /** Creates a new, empty log (the caller syncs the directory). */
  static async create(dir: string, firstRevision: number): Promise<LogFile> {
    const path = join(dir, logFileName(firstRevision));
    return new LogFile(path, await openPrivate(path, 'wx'), 0);
  }

  /** Opens an existing log for appending, first cutting off a torn tail after `validBytes`. */
  static async reopen(path: string, validBytes: number, totalBytes: number): Promise<LogFile> {
    const fh = await openPrivate(path, 'r+'); // owner-only, also a log from before that was not
    if (totalBytes > validBytes) {
      await fh.truncate(validBytes);
      await fh.datasync();
    }
    return new LogFile(path, fh, validBytes);
  }

  get bytes(): number {
    return this.size;
  }

  async append(data: Buffer): Promise<void> {
    await writeFully(this.fh, data, this.size);
    this.size += data.length;
    await this.fh.datasync();
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
