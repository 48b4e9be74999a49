import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writePrivate } from '../../shared/private-file.js';

const ID_FILE = 'leader-election-id';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The cloud's candidate identity, `<hostname>_<uuid>` as client-go's components make it. The
 * uuid is kept in the data dir (which has one owner process at a time), so a cloud restarted
 * after a crash renews its own Lease at once instead of waiting out its predecessor's term.
 */
export async function loadOrCreateIdentity(dataDir: string, host: string = hostname()): Promise<string> {
  const path = join(dataDir, ID_FILE);
  const kept = (await readFile(path, 'utf8').catch(() => '')).trim();
  const uuid = UUID.test(kept) ? kept : randomUUID();
  if (uuid !== kept) await writePrivate(path, `${uuid}\n`);
  return `${host}_${uuid}`;
}
