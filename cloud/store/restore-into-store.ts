import { KedgeError } from '../../shared/errors.js';
import { checkBackup, type BackupInfo } from './backup.js';
import { decodeRecords } from './record-codec.js';
import type { Store } from './store.js';

export interface RestoredInto extends BackupInfo {
  /** The store's revisions of the first and last restored entry (the new resourceVersions). */
  firstRevision?: number;
  lastRevision?: number;
}

/**
 * Writes a backup's entries into an empty store that keeps its own revisions (etcd): one
 * create each, in the order they were last written, so their new revisions keep that order.
 * Keys, values and so uids are as saved; revisions (resourceVersions) are the store's new ones.
 */
export async function restoreIntoStore(buf: Buffer, source: string, store: Store): Promise<RestoredInto> {
  const info = checkBackup(buf, source);
  const present = (await store.list('')).items.length;
  if (present > 0) throw new KedgeError('Conflict', `the store is not empty (${present} entries): restore into an empty one`);
  const { records } = decodeRecords(buf, buf.indexOf(10) + 1, source);
  const puts = records.flatMap((r) => (r.op === 'put' ? [r] : [])).sort((a, b) => a.revision - b.revision);
  const restored: RestoredInto = { ...info };
  for (const put of puts) {
    const kv = await store.create(put.key, put.value);
    restored.firstRevision ??= kv.modRevision;
    restored.lastRevision = kv.modRevision;
  }
  return restored;
}
