import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { currentPayloadDir, holdsPayload, removeStale, writePayload } from './atomic-writer.js';
import { hostPathStep, type PathKind } from './host-path-check.js';
import { payloadDigest } from './payload-digest.js';
import type { PlannedFile, VolumeHost, VolumePlan, VolumeTarget } from './volume-plan.js';
import { PODS_DIR, podDir, underHostRoot, volumeDir } from './volume-paths.js';

export interface DiskVolumeHostOptions {
  dataDir: string;
  /** Where hostPath volumes resolve (`/`: the real host). */
  hostRoot: string;
  clock: Clock;
}

async function kindOf(path: string): Promise<PathKind> {
  const s = await stat(path).catch(() => undefined);
  if (!s) return 'missing';
  return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : s.isSocket() ? 'socket' : s.isCharacterDevice() ? 'char' : s.isBlockDevice() ? 'block' : 'other';
}

/** Modes of what a hostPath volume makes: owner-only under the data dir (the default host root), kubelet's (0755, 0644) on a real host. */
function hostPathModes(dataDir: string, hostRoot: string): { dir: number; file: number } {
  const path = relative(dataDir, hostRoot);
  const inDataDir = !isAbsolute(path) && path !== '..' && !path.startsWith(`..${sep}`);
  return inDataDir ? { dir: 0o700, file: 0o600 } : { dir: 0o755, file: 0o644 };
}

/**
 * Volumes as real directories in the edge's data directory (for process pods): payloads written
 * as kubelet's AtomicWriter does; an unchanged payload (same digest as the last one written, or,
 * after a restart, as what is on disk) writes nothing.
 */
export class DiskVolumeHost implements VolumeHost {
  private readonly digests = new Map<string, string>();
  /** The pods with a directory here: listed from disk once (what a restart left), then kept as they come and go. */
  private known: Set<string> | undefined;

  constructor(private readonly options: DiskVolumeHostOptions) {}

  async setUp(target: VolumeTarget, plan: VolumePlan): Promise<string> {
    this.known?.add(target.podUid);
    if (plan.type === 'hostPath') return this.hostPath(plan.path, plan.hostPathType);
    const dir = volumeDir(this.options.dataDir, target);
    await mkdir(podDir(this.options.dataDir, target.podUid), { recursive: true, mode: 0o700 });
    if (plan.type === 'emptyDir') await mkdir(dir, { recursive: true, mode: 0o700 });
    else await this.writeFiles(dir, plan.files);
    return dir;
  }

  async tearDownPod(podUid: string): Promise<void> {
    const dir = podDir(this.options.dataDir, podUid);
    await rm(dir, { recursive: true, force: true });
    this.known?.delete(podUid);
    for (const key of this.digests.keys()) if (key.startsWith(`${dir}/`)) this.digests.delete(key);
  }

  /** Asked on every sync of every edge: the disk is read only the first time. */
  async podUids(): Promise<string[]> {
    this.known ??= new Set(await readdir(join(this.options.dataDir, PODS_DIR)).catch(() => []));
    return [...this.known];
  }

  private async writeFiles(dir: string, files: PlannedFile[]): Promise<void> {
    const digest = payloadDigest(files);
    if (this.digests.get(dir) === digest) return;
    if (!this.digests.has(dir)) {
      // First look since this edge started: finish off a write a crash cut short, and keep what matches.
      await removeStale(dir);
      const current = await currentPayloadDir(dir);
      if (current && (await holdsPayload(join(dir, current), files))) {
        this.digests.set(dir, digest);
        return;
      }
    }
    await writePayload(dir, files, this.options.clock.now());
    this.digests.set(dir, digest);
  }

  private async hostPath(path: string, type: Parameters<typeof hostPathStep>[0]): Promise<string> {
    const real = underHostRoot(this.options.hostRoot, path);
    const step = hostPathStep(type, await kindOf(real), path);
    const modes = hostPathModes(this.options.dataDir, this.options.hostRoot);
    if (step === 'makeDir') await mkdir(real, { recursive: true, mode: modes.dir });
    if (step === 'makeFile') {
      await mkdir(dirname(real), { recursive: true, mode: modes.dir });
      await (await open(real, 'a', modes.file)).close();
    }
    return real;
  }
}
