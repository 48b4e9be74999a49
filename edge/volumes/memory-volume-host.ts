import { hostPathStep, type PathKind } from './host-path-check.js';
import { isSafeRelativePath, payloadDigest } from './payload-digest.js';
import { VolumeError, type PlannedFile, type VolumeHost, type VolumePlan, type VolumeTarget } from './volume-plan.js';
import { join } from 'node:path';
import { PODS_DIR, podDir, underHostRoot, volumeDir } from './volume-paths.js';

export interface MemoryVolumeHostOptions {
  /** Names the paths it reports (nothing is written there). */
  dataDir: string;
  hostRoot: string;
}

interface Recorded {
  digest: string;
  files: readonly PlannedFile[];
  /** How many times its payload was written. */
  writes: number;
}

/**
 * Volumes that exist only as records (simulated pods, hollow fleets: no disk): the same plans,
 * checks and paths as on disk, and what each volume would hold.
 */
export class MemoryVolumeHost implements VolumeHost {
  private readonly payloads = new Map<string, Recorded>();
  private readonly dirs = new Set<string>();
  private readonly host = new Map<string, PathKind>();

  constructor(private readonly options: MemoryVolumeHostOptions) {}

  async setUp(target: VolumeTarget, plan: VolumePlan): Promise<string> {
    if (plan.type === 'hostPath') return this.hostPath(plan.path, plan.hostPathType);
    const dir = volumeDir(this.options.dataDir, target);
    this.dirs.add(dir);
    if (plan.type === 'files') this.record(dir, plan.files);
    return dir;
  }

  async tearDownPod(podUid: string): Promise<void> {
    const prefix = `${podDir(this.options.dataDir, podUid)}/`;
    for (const dir of [...this.dirs]) {
      if (!dir.startsWith(prefix)) continue;
      this.dirs.delete(dir);
      this.payloads.delete(dir);
    }
  }

  async podUids(): Promise<string[]> {
    const base = `${join(this.options.dataDir, PODS_DIR)}/`;
    return [...new Set([...this.dirs].map((d) => d.slice(base.length).split('/')[0]!))];
  }

  /** The files a volume holds, by path inside it (none for an unknown one). */
  filesAt(dir: string): readonly PlannedFile[] {
    return this.payloads.get(dir)?.files ?? [];
  }

  /** The files a pod's volume holds (none for an unknown one). */
  filesFor(target: VolumeTarget): readonly PlannedFile[] {
    return this.filesAt(volumeDir(this.options.dataDir, target));
  }

  /** How many times the payload at `dir` was written. */
  writesAt(dir: string): number {
    return this.payloads.get(dir)?.writes ?? 0;
  }

  /** Puts something on the simulated host (a path under the host root). */
  seedHostPath(path: string, kind: PathKind): void {
    this.host.set(underHostRoot(this.options.hostRoot, path), kind);
  }

  /** What is at a (resolved) host path. */
  kindAt(path: string): PathKind {
    return this.host.get(path) ?? 'missing';
  }

  private record(dir: string, files: PlannedFile[]): void {
    for (const f of files) if (!isSafeRelativePath(f.path)) throw new VolumeError(`invalid path "${f.path}" in volume payload`);
    const digest = payloadDigest(files);
    const before = this.payloads.get(dir);
    if (before?.digest === digest) return;
    this.payloads.set(dir, { digest, files: files.map((f) => ({ ...f })), writes: (before?.writes ?? 0) + 1 });
  }

  private hostPath(path: string, type: Parameters<typeof hostPathStep>[0]): string {
    const real = underHostRoot(this.options.hostRoot, path);
    const step = hostPathStep(type, this.kindAt(real), path);
    if (step !== 'none') this.host.set(real, step === 'makeDir' ? 'dir' : 'file');
    return real;
  }
}
