import { lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { Stats } from 'node:fs';
import type { Mount } from '../runtime.js';

/** The default bound of a sim container's scratch space (its files outside its volumes). */
export const SIM_SCRATCH_LIMIT_BYTES = 64 * 1024 * 1024;

/** A failure as a shell says it, after the command and path: "No such file or directory". */
export class FsError extends Error {}

const NO_SUCH = 'No such file or directory';

/** What a sim container writes lands in the edge's data dir, which is owner-only throughout. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** `<data dir>/sim-fs/<container id>`: a sim container's files outside its volumes. */
export function scratchDir(dataDir: string, containerId: string): string {
  return join(dataDir, 'sim-fs', containerId);
}

async function du(path: string): Promise<number> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isDirectory()) return info?.size ?? 0;
  let total = 0;
  for (const name of await readdir(path)) total += await du(join(path, name));
  return total;
}

/**
 * A sim container's file system as its simulated shell sees it: each mount's containerPath is
 * the real host path of its volume; everything else lives in a scratch directory, made when
 * first written, bounded in size. Paths are container paths (absolute once resolved).
 */
export class SimFs {
  private used: number | undefined;
  private made: Promise<void> | undefined;

  constructor(
    private readonly scratch: string,
    private readonly mounts: readonly Mount[],
    /** Directories a container has from its image: /tmp, /root, its working directory. */
    private readonly skeleton: readonly string[] = [],
    private readonly limitBytes = SIM_SCRATCH_LIMIT_BYTES,
  ) {}

  /** Makes the scratch directory and its skeleton, once, when the shell first looks. */
  private ready(): Promise<void> {
    this.made ??= Promise.all(this.skeleton.map((dir) => mkdir(this.hostOf(dir).host, { recursive: true, mode: DIR_MODE }).catch(() => undefined))).then(() => undefined);
    return this.made;
  }

  /** The host path behind a container path, and whether it may be written. */
  hostOf(path: string): { host: string; readOnly: boolean; mounted: boolean } {
    const mount = this.mountOf(path);
    if (!mount) return { host: join(this.scratch, path), readOnly: false, mounted: false };
    return { host: join(mount.hostPath, posix.relative(mount.containerPath, path)), readOnly: mount.readOnly, mounted: true };
  }

  async stat(path: string): Promise<Stats | undefined> {
    await this.ready();
    const found = await stat(this.hostOf(path).host).catch(() => undefined);
    if (found) return found;
    return this.isMountParent(path) || path === '/' ? await stat('/') : undefined; // a directory all the same
  }

  /** The names in a directory: its own, and those of mounts right under it. */
  async list(path: string): Promise<string[]> {
    await this.ready();
    const own = await readdir(this.hostOf(path).host).catch(() => [] as string[]);
    const mounted = this.mounts.filter((m) => posix.dirname(m.containerPath) === path).map((m) => posix.basename(m.containerPath));
    return [...new Set([...own, ...mounted])].sort();
  }

  async read(path: string): Promise<Buffer> {
    const info = await this.stat(path);
    if (!info) throw new FsError(NO_SUCH);
    if (info.isDirectory()) throw new FsError('Is a directory');
    return readFile(this.hostOf(path).host);
  }

  async mkdir(path: string, parents: boolean): Promise<void> {
    const existing = await this.stat(path);
    if (existing) {
      if (parents && existing.isDirectory()) return;
      throw new FsError('File exists');
    }
    if (!parents && !(await this.stat(posix.dirname(path)))?.isDirectory()) throw new FsError(NO_SUCH);
    await mkdir(this.writable(path), { recursive: true, mode: DIR_MODE });
  }

  async write(path: string, data: Buffer): Promise<void> {
    const host = this.writable(path);
    if (!this.hostOf(path).mounted) {
      this.used ??= await du(this.scratch);
      if (this.used + data.length > this.limitBytes) throw new FsError('No space left on device');
      this.used += data.length;
    }
    await mkdir(dirname(host), { recursive: true, mode: DIR_MODE });
    await writeFile(host, data, { mode: FILE_MODE });
  }

  /** Removes the scratch directory (with the container). */
  static async remove(scratch: string): Promise<void> {
    await rm(scratch, { recursive: true, force: true });
  }

  private writable(path: string): string {
    const { host, readOnly } = this.hostOf(path);
    if (readOnly) throw new FsError('Read-only file system');
    return host;
  }

  private mountOf(path: string): Mount | undefined {
    const covering = this.mounts.filter((m) => path === m.containerPath || path.startsWith(`${m.containerPath.replace(/\/$/, '')}/`));
    return covering.sort((a, b) => b.containerPath.length - a.containerPath.length)[0];
  }

  /** A directory that exists only as the parent of mount points (/etc for /etc/cfg). */
  private isMountParent(path: string): boolean {
    const prefix = path === '/' ? '/' : `${path}/`;
    return this.mounts.some((m) => m.containerPath.startsWith(prefix));
  }
}
