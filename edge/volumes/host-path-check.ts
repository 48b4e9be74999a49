import type { HostPathType } from '../../shared/volume-types.js';
import { VolumeError } from './volume-plan.js';

/** What is at a host path. */
export type PathKind = 'missing' | 'dir' | 'file' | 'socket' | 'char' | 'block' | 'other';

/** What the type asks be done first; a VolumeError with kube's message when what is there does not fit. */
export type HostPathStep = 'none' | 'makeDir' | 'makeFile';

const EXPECTED: Partial<Record<HostPathType, [PathKind, string]>> = {
  Directory: ['dir', 'is not a directory'],
  DirectoryOrCreate: ['dir', 'is not a directory'],
  File: ['file', 'is not a file'],
  FileOrCreate: ['file', 'is not a file'],
  Socket: ['socket', 'is not a socket file'],
  CharDevice: ['char', 'is not a character device'],
  BlockDevice: ['block', 'is not a block device'],
};

/**
 * kube's hostPath type check (checkTypeInternal): *OrCreate makes what is missing; the others
 * require it to exist as that kind. "" checks nothing; kedge makes a missing one a directory, as
 * container runtimes do for a bind mount's missing source.
 */
export function hostPathStep(type: HostPathType, kind: PathKind, path: string): HostPathStep {
  if (kind === 'missing' && (type === '' || type === 'DirectoryOrCreate')) return 'makeDir';
  if (kind === 'missing' && type === 'FileOrCreate') return 'makeFile';
  const expected = EXPECTED[type];
  if (!expected) return 'none';
  if (kind !== expected[0]) throw new VolumeError(`hostPath type check failed: ${path} ${expected[1]}`);
  return 'none';
}
