import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes via a temporary file, fsynced, a rename and an fsync of the directory, so a crash or a
 * power cut leaves the old file or the whole new one; mode 0600.
 */
export async function writePrivate(path: string, content: string): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const file = await open(tmp, 'w', 0o600);
  try {
    await file.writeFile(content);
    await file.chmod(0o600); // whatever the umask made of the mode
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path).catch(async (err: unknown) => {
    await rm(tmp, { force: true });
    throw err;
  });
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Makes `dir` (and its parents) and leaves it readable by its owner only: it holds secrets. */
export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700); // an existing dir too, whatever the umask made of it
}
