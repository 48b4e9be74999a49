import { open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { KedgeError } from '../../shared/errors.js';
import type { WriteRecord } from './kv-state.js';

/*
 * The write-ahead log: one record per line, `<crc32 of the JSON, 8 hex digits> <JSON>\n`.
 * A crash can leave a torn last line (partly written, or zero-filled); the checksum finds it.
 * Each log file is named after the first revision it may hold, so names sort in log order.
 */

const LOG_NAME = /^wal-(\d{16})\.log$/;

export function logFileName(firstRevision: number): string {
  return `wal-${String(firstRevision).padStart(16, '0')}.log`;
}

/** The log files in `dir`, oldest first. */
export async function listLogs(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => LOG_NAME.test(name)).sort();
}

/** Encodes one log line; `valueJson` is the put's value, already serialised by the caller. */
export function encodeRecord(record: WriteRecord, valueJson: string): string {
  const json =
    record.op === 'put'
      ? `{"op":"put","key":${JSON.stringify(record.key)},"revision":${record.revision},"createRevision":${record.createRevision},"value":${valueJson}}`
      : JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

function decodeLine(line: string): WriteRecord | undefined {
  if (line.length < 10 || line[8] !== ' ') return undefined;
  const json = line.slice(9);
  if (parseInt(line.slice(0, 8), 16) !== crc32(json)) return undefined;
  try {
    return JSON.parse(json) as WriteRecord;
  } catch {
    return undefined;
  }
}

export interface LogContents {
  records: WriteRecord[];
  /** Bytes up to the end of the last good record; anything after it is a torn tail. */
  validBytes: number;
  totalBytes: number;
}

/**
 * Reads every good record of a log. A bad record followed only by garbage is a torn tail
 * (reported through `validBytes`); a bad record followed by good ones is corruption: fail.
 */
export async function readLog(path: string): Promise<LogContents> {
  const buf = await readFile(path);
  const records: WriteRecord[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const end = buf.indexOf(10, pos);
    const record = end < 0 ? undefined : decodeLine(buf.toString('utf8', pos, end));
    if (!record) {
      if (hasGoodRecordAfter(buf, end)) throw new KedgeError('Internal', `corrupt record in ${path} at byte ${pos}`);
      break;
    }
    records.push(record);
    pos = end + 1;
  }
  return { records, validBytes: pos, totalBytes: buf.length };
}

function hasGoodRecordAfter(buf: Buffer, from: number): boolean {
  for (let pos = from + 1; from >= 0 && pos < buf.length; ) {
    const end = buf.indexOf(10, pos);
    if (end < 0) return false;
    if (decodeLine(buf.toString('utf8', pos, end))) return true;
    pos = end + 1;
  }
  return false;
}

/** fsyncs a directory, so that files created, renamed or removed in it stay that way. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
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
    return new LogFile(path, await open(path, 'wx'), 0);
  }

  /** Opens an existing log for appending, first cutting off a torn tail after `validBytes`. */
  static async reopen(path: string, validBytes: number, totalBytes: number): Promise<LogFile> {
    const fh = await open(path, 'r+');
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
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await this.fh.write(data, written, data.length - written, this.size + written);
      written += bytesWritten;
    }
    this.size += data.length;
    await this.fh.datasync();
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
