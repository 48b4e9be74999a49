import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { cloudAccess, cloudRequest } from '../cloud-request.js';

interface Options {
  dataDir: string;
}

const dataDirOption = ['--data-dir <dir>', 'data dir of the cloud or demo (its kubeconfig names the cloud; restore writes its store/)', DEFAULT_DEMO_DATA_DIR] as const;

async function fail(work: () => Promise<string>): Promise<void> {
  try {
    process.stdout.write(await work());
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

/** Writes `text` to `file` whole or not at all (a temporary file, fsynced, renamed). */
async function writeWhole(file: string, text: string): Promise<void> {
  const temp = `${file}.tmp-${process.pid}`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file).catch(async (err: unknown) => {
    await rm(temp, { force: true });
    throw err;
  });
}

async function backup(file: string, o: Options): Promise<string> {
  const { BACKUP_PATH } = await import('../../cloud/apiserver/backup-path.js');
  const { checkBackup } = await import('../../cloud/store/backup.js');
  const text = (await cloudRequest(o.dataDir, 'GET', BACKUP_PATH)) as string;
  const info = checkBackup(Buffer.from(text), `the cloud's answer to GET ${BACKUP_PATH}`);
  await writeWhole(file, text);
  return `backed up ${info.count} objects at revision ${info.revision} to ${file}\n`;
}

async function restore(file: string, o: Options): Promise<string> {
  const { readBackupFile, restoreBackup } = await import('../../cloud/store/backup.js');
  const { buf, info } = await readBackupFile(file);
  await refuseWhileRunning(o.dataDir);
  const storeDir = join(o.dataDir, 'store');
  const kept = await restoreBackup(buf, file, storeDir, new Date());
  const before = kept ? `; the store it replaced is kept in ${kept}` : '';
  return `restored ${info.count} objects at revision ${info.revision} into ${storeDir}${before}\nstart the cloud with this data dir to serve them\n`;
}

/** A running cloud holds its store open: restoring under it would be lost or break it. */
async function refuseWhileRunning(dataDir: string): Promise<void> {
  const access = await cloudAccess(dataDir).catch(() => undefined);
  if (!access) return;
  const { remoteHandler } = await import('../../cloud/apiserver/remote-handler.js');
  const res = await remoteHandler(access.server)({ method: 'GET', path: '/healthz', query: new URLSearchParams(), headers: {} }).catch(() => undefined);
  if (res) throw new Error(`the cloud of ${dataDir} is running (${access.server} answers): stop it first, then restore`);
}

export function backupCommand(): Command {
  return new Command('backup')
    .description("Save the running cloud's whole store, at one revision, to a file (the cloud keeps serving)")
    .argument('<file>', 'where to write the backup')
    .option(...dataDirOption)
    .action((file: string, o: Options) => fail(() => backup(file, o)));
}

export function restoreCommand(): Command {
  return new Command('restore')
    .description("Replace a stopped cloud's store with a backup: every object, uid and resourceVersion as it was saved")
    .argument('<file>', 'a file written by kedge backup')
    .option(...dataDirOption)
    .action((file: string, o: Options) => fail(() => restore(file, o)));
}
