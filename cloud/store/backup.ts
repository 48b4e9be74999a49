import { readFile, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KedgeError } from '../../shared/errors.js';
import { makePrivateDir, syncDir, writePrivate } from '../../shared/private-file.js';
import { ByteBuilder } from './byte-builder.js';
import { decodeRecords, encodeRecord, recordJson, valueJson } from './record-codec.js';
import { SNAPSHOT_FILE } from './snapshot.js';
import type { Store } from './store.js';

/*
 * A backup is a snapshot in the durable store's own format (snapshot.ts): a header line
 * `{"revision":R,"count":N}`, then the put record of every entry with its revisions, each line
 * checksummed. Restoring it is putting it in place as a store directory's only file, so the
 * store opens at revision R with every resourceVersion and uid as they were, as an etcd
 * snapshot restore does.
 */

export interface BackupInfo {
  revision: number;
  count: number;
}

/** Every entry of `store` at one revision, as backup bytes. */
export async function backupBytes(store: Store): Promise<Buffer> {
  const { items, revision } = await store.list('');
  const out = new ByteBuilder();
  out.write(`${JSON.stringify({ revision, count: items.length })}\n`);
  for (const kv of items) {
    const record = { op: 'put', key: kv.key, value: kv.value, revision: kv.modRevision, createRevision: kv.createRevision } as const;
    encodeRecord(out, recordJson(record, valueJson(kv.value)));
  }
  return Buffer.from(out.bytes);
}

/** Checks that `buf` is a whole backup (header, checksums, count, puts only): what it holds, or Invalid saying what is wrong. */
export function checkBackup(buf: Buffer, source: string): BackupInfo {
  const headerEnd = buf.indexOf(10);
  let header: Partial<BackupInfo> | undefined;
  try {
    header = JSON.parse(buf.toString('utf8', 0, Math.max(0, headerEnd))) as Partial<BackupInfo>;
  } catch {
    header = undefined;
  }
  if (!header || !Number.isSafeInteger(header.revision) || !Number.isSafeInteger(header.count)) {
    throw new KedgeError('Invalid', `${source} is not a kedge backup: its first line is not {"revision":R,"count":N}`);
  }
  let decoded: ReturnType<typeof decodeRecords>;
  try {
    decoded = decodeRecords(buf, headerEnd + 1, source);
  } catch (err) {
    throw new KedgeError('Invalid', `${source} is damaged: ${(err as Error).message}`);
  }
  const { records, offsets } = decoded;
  if (offsets.at(-1) !== buf.length || records.length !== header.count) {
    throw new KedgeError('Invalid', `${source} is incomplete: ${records.length} intact entries of ${header.count}`);
  }
  if (records.some((r) => r.op !== 'put' || r.revision > header.revision!)) throw new KedgeError('Invalid', `${source} holds records a backup cannot`);
  return { revision: header.revision!, count: header.count! };
}

export interface Restored extends BackupInfo {
  /** Where the store that was there is kept; undefined when there was none. */
  kept?: string;
}

/**
 * Makes `storeDir` hold exactly the backup in the file `path`, checked whole first. Whatever
 * was there is kept beside it, renamed to `<storeDir>.before-restore-<time>`. The cloud must
 * not be running on it.
 */
export async function restoreBackup(path: string, storeDir: string, now: Date): Promise<Restored> {
  const buf = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw new KedgeError('NotFound', `cannot read ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const restored: Restored = checkBackup(buf, path);
  if (await stat(storeDir).catch(() => undefined)) {
    restored.kept = `${storeDir}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    await rename(storeDir, restored.kept);
  }
  await makePrivateDir(storeDir);
  await syncDir(dirname(storeDir)); // the old store moved aside and the new one made, for good
  await writePrivate(join(storeDir, SNAPSHOT_FILE), buf);
  return restored;
}
