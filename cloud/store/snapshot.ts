import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { KedgeError } from '../../shared/errors.js';
import { openPrivate, replacePrivate } from '../../shared/private-file.js';
import { ByteBuilder } from './byte-builder.js';
import type { WriteRecord } from './kv-state.js';
import type { LineLocation } from './line-index.js';
import { decodeRecords, isIntactLine } from './record-codec.js';
import { writeFully } from './wal.js';

/*
 * A snapshot is every live entry at one revision: a header line `{"revision":R,"count":N}`,
 * then, per entry, the log line (record-codec.ts) of the put that wrote its current value,
 * copied from the log or older snapshot holding it. It is written to a temporary file,
 * fsynced and renamed into place, so a reader sees a whole snapshot or none.
 */

export const SNAPSHOT_FILE = 'snapshot.log';
const TEMP_FILE = 'snapshot.log.tmp';
/** Bytes per file write or read: the writer yields between them, so log appends go on. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * Bytes between fdatasyncs of the snapshot. On ext4 (data=ordered) a log fdatasync can wait
 * for all dirty data of the file system; syncing as we go keeps that wait short.
 */
const SYNC_BYTES = 8 * 1024 * 1024;

export interface Snapshot {
  revision: number;
  records: WriteRecord[];
  /** Record i spans bytes offsets[i] to offsets[i + 1]. */
  offsets: number[];
}

/** Reads byte ranges of one file, a window at a time, in increasing offset order. */
class RangeReader {
  private window = Buffer.alloc(0);
  private start = 0;

  constructor(private readonly fh: FileHandle) {}

  async read(offset: number, length: number): Promise<Buffer> {
    if (offset < this.start || offset + length > this.start + this.window.length) {
      const buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, length));
      const { bytesRead } = await this.fh.read(buf, 0, buf.length, offset);
      this.window = buf.subarray(0, bytesRead);
      this.start = offset;
    }
    const line = this.window.subarray(offset - this.start, offset - this.start + length);
    // Checked again, so that a wrong location can never turn into a snapshot that will not load.
    if (line.length !== length || !isIntactLine(line)) throw new KedgeError('Internal', `no intact log line at byte ${offset}`);
    return line;
  }
}

/**
 * Writes the snapshot at `revision` to a temporary file, from the put line of every live entry
 * (`pathOf` names the file a location points into). Returns its size and the offset of each
 * entry's line in it; `installSnapshot` then puts it in place.
 */
export async function writeSnapshot(
  dir: string,
  revision: number,
  lines: readonly [string, LineLocation][],
  pathOf: (file: number) => string,
): Promise<{ bytes: number; offsets: number[] }> {
  const order = lines.map((_, i) => i).sort((a, b) => lines[a]![1].file - lines[b]![1].file || lines[a]![1].offset - lines[b]![1].offset);
  const offsets = new Array<number>(lines.length);
  const temp = join(dir, TEMP_FILE);
  const out = new ByteBuilder(CHUNK_BYTES + 64 * 1024);
  const fh = await openPrivate(temp, 'w');
  let bytes = 0;
  let synced = 0;
  const flush = async (): Promise<void> => {
    await writeFully(fh, out.bytes, bytes);
    bytes += out.length;
    out.reset();
    if (bytes - synced >= SYNC_BYTES) {
      await fh.datasync();
      synced = bytes;
    }
  };
  let source: { file: number; fh: FileHandle; reader: RangeReader } | undefined;
  try {
    out.write(JSON.stringify({ revision, count: lines.length }) + '\n');
    for (const i of order) {
      const location = lines[i]![1];
      if (source?.file !== location.file) {
        await source?.fh.close();
        const sourceFh = await open(pathOf(location.file), 'r');
        source = { file: location.file, fh: sourceFh, reader: new RangeReader(sourceFh) };
      }
      offsets[i] = bytes + out.length;
      out.writeBytes(await source.reader.read(location.offset, location.length));
      if (out.length >= CHUNK_BYTES) await flush();
    }
    await flush();
    await fh.datasync();
  } catch (err) {
    await fh.close();
    await rm(temp, { force: true });
    throw err;
  } finally {
    await source?.fh.close();
  }
  await fh.close();
  return { bytes, offsets };
}

/** Puts the snapshot written last in place of the previous one, for good (the directory fsynced). */
export async function installSnapshot(dir: string): Promise<void> {
  await replacePrivate(join(dir, TEMP_FILE), join(dir, SNAPSHOT_FILE));
}

/** Reads the snapshot in `dir`, if there is one, and removes a leftover temporary file. */
export async function readSnapshot(dir: string): Promise<Snapshot | undefined> {
  await rm(join(dir, TEMP_FILE), { force: true });
  const path = join(dir, SNAPSHOT_FILE);
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const headerEnd = buf.indexOf(10);
  const header = JSON.parse(buf.toString('utf8', 0, Math.max(0, headerEnd))) as { revision: number; count: number };
  const { records, offsets } = decodeRecords(buf, headerEnd + 1, path);
  if (offsets.at(-1) !== buf.length || records.length !== header.count) throw new KedgeError('Internal', `snapshot ${path} is incomplete`);
  return { revision: header.revision, records, offsets };
}
