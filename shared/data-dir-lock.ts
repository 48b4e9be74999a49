import { randomBytes } from 'node:crypto';
import { link, lstat, readdir, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { realClock, type Clock } from './clock.js';
import { KedgeError } from './errors.js';
import { describeHolder, entriesOf, judge, thisProcess, type Verdict } from './lock-holders.js';
import { askProbe, listenProbe } from './lock-probe.js';
import type { Logger } from './log.js';
import { makePrivateDir } from './private-file.js';

/**
 * One owner per data dir. The lock is the directory `<data dir>/owner.lock`, holding one file
 * per holder (pid, process start time, boot id, host, pid namespace, the socket it listens on
 * while it holds, what it is: lock-holders.ts). It is taken by renaming a
 * prepared directory onto it, which the kernel does only when there is none or it is empty:
 * of two processes starting at the same instant exactly one wins. A holder whose process is
 * gone (kill -9, a power cut, its pid reused since) is removed by the next one to come, file
 * by file; only a process that runs, or ran on another machine, keeps the data dir from
 * others. A clean stop removes its own file.
 */
export const LOCK_DIR = 'owner.lock';

export interface DataDirLock {
  readonly dataDir: string;
  /** Removes this process's file, and the lock directory once it is empty. */
  release(): Promise<void>;
}

export interface LockOptions {
  /** What takes it, as `kedge cloud`: named to whoever else tries. */
  command: string;
  logger: Logger;
  /** The process that started this one holds the data dir, and this one works for it (`kedge demo`'s cloud). */
  forParent?: boolean;
  /** Tells what other processes left long ago from what they are doing now (ABANDONED_AFTER_MS). */
  clock?: Clock;
}

/** Set by `kedge demo` for the cloud it starts: its parent holds the data dir, and the cloud works for it (LockOptions.forParent). */
export const FOR_PARENT_ENV = 'KEDGE_DATA_DIR_FOR_PARENT';

const TRIES = 20;
const STAGED = `${LOCK_DIR}.`;

/** Takes `dataDir` for this process, or throws a Conflict naming the pid that holds it. */
export async function lockDataDir(dataDir: string, o: LockOptions): Promise<DataDirLock> {
  await makePrivateDir(dataDir);
  const lockDir = join(dataDir, LOCK_DIR);
  const nonce = randomBytes(6).toString('hex');
  const file = `${process.pid}.${nonce}.json`;
  const staged = join(dataDir, `${STAGED}${process.pid}.${nonce}.new`);
  await makePrivateDir(staged);
  const probe = await listenProbe(dataDir, `${STAGED}${process.pid}.${nonce}.sock`);
  const holder = { ...(await thisProcess(o.command, o.forParent ? process.ppid : undefined)), ...(probe ? { probe: probe.name } : {}) };
  await writeFile(join(staged, file), JSON.stringify(holder) + '\n', { mode: 0o600 });
  try {
    await take({ dataDir, lockDir, staged, file }, o);
  } catch (err) {
    await probe?.close();
    throw err;
  } finally {
    await rm(staged, { recursive: true, force: true });
  }
  await removeAbandoned(dataDir, (o.clock ?? realClock).now());
  let released: Promise<void> | undefined;
  const release = async (): Promise<void> => {
    await ignoring(['ENOENT'], unlink(join(lockDir, file)));
    await probe?.close();
    await ignoring(['ENOENT', 'ENOTEMPTY', 'EEXIST'], rmdir(lockDir)); // another holder's file may still be there
  };
  return { dataDir, release: () => (released ??= release()) };
}

interface Paths {
  dataDir: string;
  lockDir: string;
  /** This process's prepared lock directory, and its file in it. */
  staged: string;
  file: string;
}

async function take(p: Paths, o: LockOptions): Promise<void> {
  const { lockDir, staged, file } = p;
  for (let i = 0; i < TRIES; i++) {
    if (await renamedOnto(staged, lockDir)) return;
    const verdicts = await Promise.all((await entriesOf(lockDir)).map((entry) => judge(entry, p.dataDir)));
    const holding = verdicts.filter((v) => v.state !== 'gone');
    if (o.forParent && holding.some((v) => v.entry.holder?.pid === process.ppid && v.state === 'running')) {
      if (await joined(lockDir, staged, file)) return;
      continue;
    }
    if (holding.length > 0) throw refusal(p, holding);
    for (const v of verdicts) {
      if (v.state === 'gone' && (await ignoring(['ENOENT'], unlink(join(lockDir, v.entry.file))))) {
        o.logger.warn(`taking over data dir ${p.dataDir}: ${describeHolder(v.entry.holder)} held it and ${v.why}`);
        const probe = v.entry.holder?.probe;
        if (probe !== undefined && isProbeName(probe)) await rm(join(p.dataDir, probe), { force: true });
      }
    }
  }
  throw new KedgeError('Conflict', `could not take ${lockDir} in ${TRIES} tries: other processes keep taking it`);
}

/** Renames `staged` onto `lockDir`: true when there was none, or an empty one. */
async function renamedOnto(staged: string, lockDir: string): Promise<boolean> {
  try {
    await rename(staged, lockDir);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    if (code === 'ENOTDIR') throw new KedgeError('Conflict', `${lockDir} is not a kedge lock (not a directory): remove it if no kedge uses this data dir`);
    throw err;
  }
}

/** Adds this process's file beside its parent's; true once it is in with the parent's still there. */
async function joined(lockDir: string, staged: string, file: string): Promise<boolean> {
  if (!(await ignoring(['ENOENT'], link(join(staged, file), join(lockDir, file))))) return false;
  const after = await entriesOf(lockDir);
  if (after.some((e) => e.holder?.pid === process.ppid)) return true;
  await ignoring(['ENOENT'], unlink(join(lockDir, file))); // the parent let go meanwhile: start over
  return false;
}

function refusal({ dataDir, lockDir }: Paths, holding: Verdict[]): KedgeError {
  const who = holding.map((v) => (v.state === 'elsewhere' ? `${describeHolder(v.entry.holder)} on host ${v.entry.holder!.host}` : describeHolder(v.entry.holder))).join(' and ');
  const hint = holding.every((v) => v.state === 'elsewhere') ? `if nothing runs there any more, remove ${lockDir}` : 'stop it first';
  return new KedgeError('Conflict', `data dir ${dataDir} is in use by ${who}: a data dir has one owner; ${hint}`);
}

/** A prepared lock directory lives for one take (moments): one older than this was left by a process killed while it took the lock. */
export const ABANDONED_AFTER_MS = 10 * 60_000;

/**
 * What processes killed while they took or let go of the lock left: prepared lock directories,
 * and sockets nothing answers on. Only old ones: a new one may be another process's in the
 * middle of its take, whose pid tells nothing here (another host, another container, no /proc).
 */
async function removeAbandoned(dataDir: string, now: number): Promise<void> {
  for (const name of await readdir(dataDir)) {
    if (!name.startsWith(STAGED) || !(name.endsWith('.new') || isProbeName(name))) continue;
    const path = join(dataDir, name);
    const old = await lstat(path).then((stat) => now - stat.mtimeMs > ABANDONED_AFTER_MS, () => false);
    if (old && (name.endsWith('.new') || (await askProbe(path)) === 'refused')) await rm(path, { recursive: true, force: true });
  }
}

/** A holder's socket (lock-probe.ts), as lockDataDir names it. */
const isProbeName = (name: string): boolean => basename(name) === name && name.startsWith(STAGED) && name.endsWith('.sock');

/** Resolves true once `op` did it, false when it failed with one of `codes`. */
async function ignoring(codes: string[], op: Promise<unknown>): Promise<boolean> {
  try {
    await op;
    return true;
  } catch (err) {
    if (codes.includes((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw err;
  }
}
