import { randomUUID } from 'node:crypto';
import { chmod, copyFile, link, mkdir, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/*
 * The one way a process writes a file it acts on after a restart: owner-only, and durable
 * (temp file, fsync of the file, rename, fsync of the directory), so that a crash or a power
 * cut leaves the old file or the whole new one, and never takes back a write that resolved.
 */

const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;

/** Where `writePrivate(…, { keepPrevious: true })` keeps the version it replaced. */
export const previousCopy = (path: string): string => `${path}.prev`;

export interface WriteOptions {
  /** Keep the version being replaced as `<path>.prev`: a reader falls back to it when `path` is damaged. */
  keepPrevious?: boolean;
  /**
   * false: atomic only (temp file and rename: never torn, but a power cut may take the write
   * back), and no previous copy kept. For hollow edges, a thousand of which share one process
   * and one disk (EdgeOptions.durableWrites); everything else writes durably.
   */
  durable?: boolean;
}

/** Writes `content` to `path`, mode 0600, durably; with keepPrevious, the old version stays as `<path>.prev`. */
export async function writePrivate(path: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  const durable = options.durable !== false;
  // randomUUID draws from a cached pool: a write costs no call into the system's random source.
  const tmp = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  // Exclusive: a new file, so the mode it is created with (0600, less the umask) needs no chmod.
  const file = await open(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    await file.writeFile(content);
    if (durable) await file.datasync(); // its data and size: all the rename needs
  } catch (err) {
    await file.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await file.close();
  if (options.keepPrevious && durable) await linkPrevious(path);
  await replacePrivate(tmp, path, { durable });
}

/** Opens `path` (creating it if `flags` say so) and makes its mode 0600, whatever the umask or its mode before. */
export async function openPrivate(path: string, flags: string): Promise<FileHandle> {
  const file = await open(path, flags, PRIVATE_FILE_MODE);
  try {
    await file.chmod(PRIVATE_FILE_MODE);
  } catch (err) {
    await file.close();
    throw err;
  }
  return file;
}

/** Puts `tmp` (written and fsynced) in place of `path` and fsyncs the directory: the rename is then for good. */
export async function replacePrivate(tmp: string, path: string, { durable = true }: Pick<WriteOptions, 'durable'> = {}): Promise<void> {
  await rename(tmp, path).catch(async (err: unknown) => {
    await rm(tmp, { force: true });
    throw err;
  });
  if (durable) await syncDir(dirname(path));
}

/** Removes `path` and its previous copy (that first: it must not outlive the file), for good. */
export async function removePrivate(path: string): Promise<void> {
  await rm(previousCopy(path), { force: true });
  await rm(path, { force: true });
  await syncDir(dirname(path)).catch(ignoreMissing);
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

/** Makes `dir` (and its parents) and leaves it readable by its owner only, whatever the umask. */
export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE); // an existing dir too, whatever the umask made of it
}

/**
 * `<path>.prev` becomes the current version of `path` (a hard link: the file itself, fsynced
 * when it was written), so `path` never goes missing. The rename's directory fsync covers it.
 */
async function linkPrevious(path: string): Promise<void> {
  const prev = previousCopy(path);
  await unlink(prev).catch(ignoreMissing);
  await link(path, prev).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'EEXIST') return; // no version yet; another writer's
    await copyFile(path, prev); // a file system without hard links
  });
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
