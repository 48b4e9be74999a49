import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KedgeError } from '../../shared/errors.js';
import type { KeyValue } from './store.js';
import { syncDir } from './wal.js';

/*
 * A snapshot is every live entry at one revision: a header line `{"revision":R,"count":N}`,
 * then one line `[key, createRevision, modRevision, value]` per entry. It is written to a
 * temporary file, fsynced and renamed into place, so a reader sees a whole snapshot or none.
 */

const SNAPSHOT_FILE = 'snapshot.jsonl';
const TEMP_FILE = 'snapshot.jsonl.tmp';
/** Entries serialised per write: small enough that writers are never held up for long. */
const CHUNK_ENTRIES = 256;

export interface Snapshot {
  revision: number;
  entries: KeyValue[];
  bytes: number;
}

/**
 * Writes `entries` (frozen, so safe to read while the store moves on) as the snapshot at
 * `revision`. Serialises a chunk at a time, yielding between chunks. Returns the file size.
 * `jsonOf` serialises an entry's value (the store caches what it already serialised for the log).
 */
export async function writeSnapshot(dir: string, revision: number, entries: readonly KeyValue[], jsonOf: (kv: KeyValue) => string): Promise<number> {
  const temp = join(dir, TEMP_FILE);
  const fh = await open(temp, 'w');
  let bytes = 0;
  try {
    const header = Buffer.from(JSON.stringify({ revision, count: entries.length }) + '\n');
    await fh.write(header);
    bytes += header.length;
    for (let i = 0; i < entries.length; i += CHUNK_ENTRIES) {
      let text = '';
      for (const kv of entries.slice(i, i + CHUNK_ENTRIES)) {
        text += `[${JSON.stringify(kv.key)},${kv.createRevision},${kv.modRevision},${jsonOf(kv)}]\n`;
      }
      const chunk = Buffer.from(text);
      await fh.write(chunk);
      bytes += chunk.length;
    }
    await fh.datasync();
  } catch (err) {
    await fh.close();
    await rm(temp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(temp, join(dir, SNAPSHOT_FILE));
  await syncDir(dir);
  return bytes;
}

/** Reads the snapshot in `dir`, if there is one, and removes a leftover temporary file. */
export async function readSnapshot(dir: string): Promise<Snapshot | undefined> {
  await rm(join(dir, TEMP_FILE), { force: true });
  let text: string;
  try {
    text = await readFile(join(dir, SNAPSHOT_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const lines = text.split('\n');
  const header = JSON.parse(lines[0]!) as { revision: number; count: number };
  if (lines.length !== header.count + 2 || lines.at(-1) !== '') {
    throw new KedgeError('Internal', `snapshot in ${dir} is incomplete`);
  }
  const entries: KeyValue[] = [];
  for (let i = 1; i <= header.count; i++) {
    const [key, createRevision, modRevision, value] = JSON.parse(lines[i]!) as [string, number, number, unknown];
    entries.push({ key, value, createRevision, modRevision });
  }
  return { revision: header.revision, entries, bytes: Buffer.byteLength(text) };
}
