import { join } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { cloudRequest } from '../cloud-request.js';
import { printOrFail } from '../print-or-fail.js';
import { etcdSettings, withEtcdOptions } from '../etcd-options.js';
import type { Store } from '../../cloud/store/store.js';

interface Options extends Record<string, unknown> {
  dataDir: string;
  etcdEndpoints?: string[];
}

const dataDirOption = ['--data-dir <dir>', 'data dir of the cloud or demo (its kubeconfig names the cloud; restore writes its store/)', DEFAULT_DEMO_DATA_DIR] as const;


/** With --etcd-endpoints: the EtcdStore there, for `work`, closed after. */
async function withEtcd<T>(o: Options, work: (store: Store) => Promise<T>): Promise<T> {
  const { openCloudEtcdStore } = await import('../../cloud/store/etcd/open-etcd-store.js');
  const settings = etcdSettings(o);
  if (typeof settings === 'string') throw new Error(settings);
  const store = await openCloudEtcdStore(settings);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function backup(file: string, o: Options): Promise<string> {
  if (o.etcdEndpoints) return backupEtcd(file, o);
  const { BACKUP_PATH } = await import('../../cloud/apiserver/ops/backup-path.js');
  const { writePrivate } = await import('../../cloud/apiserver/auth/credentials.js');
  const { checkBackup } = await import('../../cloud/store/backup.js');
  const text = (await cloudRequest(o.dataDir, 'GET', BACKUP_PATH)) as string;
  const info = checkBackup(Buffer.from(text), `the cloud's answer to GET ${BACKUP_PATH}`);
  await writePrivate(file, text); // it holds the Secrets too
  return `backed up ${info.count} objects at revision ${info.revision} to ${file}\n`;
}

/** Reads etcd directly: no cloud needs to run. */
async function backupEtcd(file: string, o: Options): Promise<string> {
  const { backupBytes, checkBackup } = await import('../../cloud/store/backup.js');
  const { writePrivate } = await import('../../cloud/apiserver/auth/credentials.js');
  const bytes = await withEtcd(o, backupBytes);
  const info = checkBackup(bytes, 'the backup of etcd');
  await writePrivate(file, bytes);
  return `backed up ${info.count} objects at etcd revision ${info.revision} to ${file}\n`;
}

/** Into an empty etcd prefix: every object and uid as saved, resourceVersions etcd's new revisions. */
async function restoreEtcd(file: string, o: Options): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { restoreIntoStore } = await import('../../cloud/store/restore-into-store.js');
  const buf = await readFile(file);
  const restored = await withEtcd(o, (store) => restoreIntoStore(buf, file, store));
  const revisions = restored.count === 0 ? '' : ` at revisions ${restored.firstRevision}..${restored.lastRevision}`;
  return `restored ${restored.count} objects (saved at revision ${restored.revision}) into etcd${revisions}; resourceVersions are etcd's new revisions\nstart the cloud with --store etcd to serve them\n`;
}

/** Holds the data dir while it writes: a cloud running there keeps its store open, and restoring under it would be lost or break it. */
async function restore(file: string, o: Options): Promise<string> {
  if (o.etcdEndpoints) return restoreEtcd(file, o);
  const { restoreBackup } = await import('../../cloud/store/backup.js');
  const { lockDataDir } = await import('../../shared/data-dir-lock.js');
  const { createLogger } = await import('../../shared/log.js');
  const lock = await lockDataDir(o.dataDir, { command: 'kedge restore', logger: createLogger('restore') });
  try {
    const storeDir = join(o.dataDir, 'store');
    const restored = await restoreBackup(file, storeDir, new Date());
    const before = restored.kept ? `; the store it replaced is kept in ${restored.kept}` : '';
    return `restored ${restored.count} objects at revision ${restored.revision} into ${storeDir}${before}\nstart the cloud with this data dir to serve them\n`;
  } finally {
    await lock.release();
  }
}

/** `kedge <name> <file> [--data-dir D]`: runs `work` and prints what it says. */
function fileCommand(name: string, description: string, fileHelp: string, work: (file: string, o: Options) => Promise<string>): Command {
  return withEtcdOptions(new Command(name)
    .description(description)
    .argument('<file>', fileHelp)
    .option(...dataDirOption))
    .action((file: string, o: Options) => printOrFail(() => work(file, o)));
}

export const backupCommand = (): Command =>
  fileCommand('backup', "Save the running cloud's whole store, at one revision, to a file (the cloud keeps serving); with --etcd-endpoints, read etcd directly", 'where to write the backup', backup);

export const restoreCommand = (): Command =>
  fileCommand('restore', "Replace a stopped cloud's store with a backup: every object, uid and resourceVersion as it was saved; with --etcd-endpoints, write it into an empty etcd prefix (resourceVersions then are etcd's new revisions)", 'a file written by kedge backup', restore);
