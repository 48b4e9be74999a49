import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isSafeRelativePath } from './payload-digest.js';
import { VolumeError, type PlannedFile } from './volume-plan.js';

/** The link to the payload directory in use, as kubelet's AtomicWriter names it. */
export const DATA_DIR_NAME = '..data';
const DATA_TMP_NAME = '..data_tmp';

const pad = (n: number): string => String(n).padStart(2, '0');

/** `..2025_12_02_03_04_05.` — the prefix of a payload directory written at `now` (UTC). */
function payloadDirPrefix(now: number): string {
  const d = new Date(now);
  return `..${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}.`;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}

/** The payload directory `..data` points to, if any. */
export async function currentPayloadDir(dir: string): Promise<string | undefined> {
  return readlink(join(dir, DATA_DIR_NAME)).catch(() => undefined);
}

/** Whether the payload directory already holds exactly `files` (paths, bytes and modes). */
export async function holdsPayload(payloadDir: string, files: readonly PlannedFile[]): Promise<boolean> {
  const written = await listFiles(payloadDir);
  if (written.length !== files.length) return false;
  for (const f of files) {
    const path = join(payloadDir, f.path);
    const s = await stat(path).catch(() => undefined);
    if (!s?.isFile() || (s.mode & 0o7777) !== f.mode || !(await readFile(path)).equals(f.content)) return false;
  }
  return true;
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/** Removes what a write cut short (a `..data_tmp` link, payload directories `..data` does not point to). */
export async function removeStale(dir: string): Promise<void> {
  const current = await currentPayloadDir(dir);
  const entries = await readdir(dir).catch(() => []);
  await Promise.all(entries.filter((n) => n.startsWith('..') && n !== DATA_DIR_NAME && n !== current).map((n) => rm(join(dir, n), { recursive: true, force: true })));
}

/**
 * Writes `files` into `dir` as kubelet's AtomicWriter does: into a new `..<timestamp>.<random>`
 * directory, then `..data` is swapped to it by renaming a `..data_tmp` link over it, then each
 * top-level name is a link `<name> -> ..data/<name>`, and the old payload is removed. A reader
 * sees the old payload or the new one, never a mix.
 */
export async function writePayload(dir: string, files: readonly PlannedFile[], now: number): Promise<void> {
  for (const f of files) if (!isSafeRelativePath(f.path)) throw new VolumeError(`invalid path "${f.path}" in volume payload`);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await removeStale(dir);
  const old = await currentPayloadDir(dir);
  const fresh = await mkdtemp(join(dir, payloadDirPrefix(now)));
  await chmod(fresh, 0o755);
  for (const f of files) {
    const path = join(fresh, f.path);
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    await writeFile(path, f.content);
    await chmod(path, f.mode);
  }
  const tmp = join(dir, DATA_TMP_NAME);
  await rm(tmp, { force: true });
  await symlink(fresh.slice(dir.length + 1), tmp);
  await rename(tmp, join(dir, DATA_DIR_NAME));
  await linkUserVisible(dir, new Set(files.map((f) => f.path.split('/')[0]!)));
  if (old) await rm(join(dir, old), { recursive: true, force: true });
}

/** Each top-level name links into `..data`; names no longer in the payload go. */
async function linkUserVisible(dir: string, names: Set<string>): Promise<void> {
  for (const name of names) {
    if (!(await exists(join(dir, name)))) await symlink(`${DATA_DIR_NAME}/${name}`, join(dir, name));
  }
  const entries = await readdir(dir);
  await Promise.all(entries.filter((n) => !n.startsWith('..') && !names.has(n)).map((n) => rm(join(dir, n), { recursive: true, force: true })));
}
