import { link, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCloud } from '../../cloud/main.js';
import { realClock, type Clock } from '../../shared/clock.js';
import { ABANDONED_AFTER_MS, LOCK_DIR, lockDataDir, type DataDirLock } from '../../shared/data-dir-lock.js';
import type { Holder } from '../../shared/lock-holders.js';
import { askProbe, listenProbe, type LockProbe } from '../../shared/lock-probe.js';
import { memoryLogger, silentLogger } from '../../shared/log.js';
import { machineBootId, processStartTime } from '../../shared/proc-stat.js';
import { startFleet } from '../../sim/fleet.js';

/** A pid no process can have (beyond any pid_max), for a holder that is gone. */
const NO_SUCH_PID = 2 ** 30;
const MINUTE = 60_000;
const errorOf = (p: Promise<unknown>): Promise<Error> => p.then(() => new Error('it was taken'), (err: Error) => err);

/** One owner per data dir: the lock itself, without processes of its own (e2e: data-dir-owner.test.ts). */
describe('the data dir lock', () => {
  let dir: string;
  const held: DataDirLock[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-lock-'));
  });
  afterEach(async () => {
    for (const lock of held.splice(0)) await lock.release();
    await rm(dir, { recursive: true, force: true });
  });
  const take = async (command = 'kedge cloud', log = memoryLogger('lock'), forParent = false): Promise<DataDirLock> => {
    const lock = await lockDataDir(dir, { command, logger: log, forParent });
    held.push(lock);
    return lock;
  };
  /** A lock left as a process that held it would have: its record, as given. */
  async function leftBehind(...holders: Partial<Holder>[]): Promise<void> {
    await mkdir(join(dir, LOCK_DIR));
    for (const [i, h] of holders.entries()) await writeFile(join(dir, LOCK_DIR, `${i}.json`), JSON.stringify({ host: hostname(), command: 'kedge cloud', ...h }));
  }

  /** A holder killed with -9: its socket stays, and nothing listens on it any more. */
  async function killed(probe: LockProbe): Promise<void> {
    await link(join(dir, probe.name), join(dir, 'kept.sock'));
    await probe.close(); // which removes the socket
    await rename(join(dir, 'kept.sock'), join(dir, probe.name));
  }

  it('of many taking it at the same instant, exactly one wins; the others are told who holds it', async () => {
    const tries = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => take(`kedge cloud #${i}`)));
    const won = tries.filter((t) => t.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const t of tries.filter((t): t is PromiseRejectedResult => t.status === 'rejected')) {
      expect((t.reason as Error).message).toMatch(new RegExp(`^data dir ${dir} is in use by pid ${process.pid} \\(kedge cloud #\\d\\): a data dir has one owner; stop it first$`));
    }
    expect((await readdir(dir)).sort()).toEqual([LOCK_DIR, expect.stringMatching(/^owner\.lock\.\d+\.[0-9a-f]+\.sock$/)]); // the winner's socket; nothing of the losers
  });

  it('is released on a clean stop, and taken again without a word', async () => {
    const first = await take();
    const [record] = await readdir(join(dir, LOCK_DIR));
    const { probe } = JSON.parse(await readFile(join(dir, LOCK_DIR, record!), 'utf8')) as Holder;
    expect(await askProbe(join(dir, probe!))).toBe('answers'); // while it holds the data dir
    await first.release();
    expect(await readdir(dir)).toEqual([]);
    const log = memoryLogger('lock');
    await take('kedge cloud', log);
    expect(log.lines).toEqual([]);
  });

  it.each([
    ['whose process is gone', { pid: NO_SUCH_PID, startTime: '1' }, `pid ${NO_SUCH_PID} (kedge cloud) held it and is gone`],
    ['whose pid is another process now', { pid: process.pid, startTime: 'not-this-one' }, `pid ${process.pid} (kedge cloud) held it and is gone (its pid is another process now)`],
    ['from before this machine last booted', async () => ({ pid: process.pid, startTime: await processStartTime(process.pid), bootId: 'another-boot' }), 'held it and ran before this machine last booted'],
    [
      'of this boot under the host name the machine had before it was renamed (DHCP, hostnamectl)',
      async () => ({ pid: NO_SUCH_PID, startTime: '1', bootId: await machineBootId(), host: 'before-renaming' }),
      `pid ${NO_SUCH_PID} (kedge cloud) held it and is gone`,
    ],
  ])('a lock %s is taken over, with a log line', async (_what, holder, said) => {
    await leftBehind(typeof holder === 'function' ? await holder() : holder);
    const log = memoryLogger('lock');
    await take('kedge cloud', log);
    expect(log.lines.filter((l) => l.includes(`taking over data dir ${dir}: `) && l.includes(said))).toHaveLength(1);
  });

  it('a torn record (a power cut while it was written) is taken over', async () => {
    await mkdir(join(dir, LOCK_DIR));
    await writeFile(join(dir, LOCK_DIR, 'x.json'), '');
    const log = memoryLogger('lock');
    await take('kedge cloud', log);
    expect(log.lines.filter((l) => l.includes(`taking over data dir ${dir}: a process held it and left a torn record`))).toHaveLength(1);
  });

  it('of many coming at once for a stale lock, exactly one takes it over', async () => {
    await leftBehind({ pid: NO_SUCH_PID, startTime: '1' });
    const logs = Array.from({ length: 8 }, () => memoryLogger('lock'));
    const tries = await Promise.allSettled(logs.map((log) => take('kedge cloud', log)));
    expect(tries.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
    expect(logs.flatMap((log) => log.lines.filter((l) => l.includes('taking over')))).toHaveLength(1);
  });

  it('a lock held from another machine is not taken: it says what to remove', async () => {
    await leftBehind({ pid: NO_SUCH_PID, host: 'elsewhere' });
    expect((await errorOf(take())).message).toBe(
      `data dir ${dir} is in use by pid ${NO_SUCH_PID} (kedge cloud) on host elsewhere: a data dir has one owner; if nothing runs there any more, remove ${join(dir, LOCK_DIR)}`,
    );
  });

  it('a lock of this boot under another host name is judged here: refused while its process runs, with no word of another host', async () => {
    await leftBehind({ pid: process.pid, startTime: await processStartTime(process.pid), bootId: await machineBootId(), host: 'before-renaming' });
    expect((await errorOf(take())).message).toBe(`data dir ${dir} is in use by pid ${process.pid} (kedge cloud): a data dir has one owner; stop it first`);
  });

  it('a lock of this boot from another pid namespace, with no socket to ask (none could be made there), is not judged by a pid that means nothing here', async () => {
    await leftBehind({ pid: NO_SUCH_PID, startTime: '1', bootId: await machineBootId(), host: 'a-container', pidNamespace: 'pid:[1]' });
    expect((await errorOf(take())).message).toMatch(`in use by pid ${NO_SUCH_PID} (kedge cloud) on host a-container: `);
  });

  it.each([
    ['under another host name (a container made again)', 'a-container'],
    ['under this host name (a container restarted)', hostname()],
  ])('a holder of this boot in another pid namespace %s is judged by its socket: refused while it answers, taken over once nothing does', async (_what, host) => {
    const socket = 'owner.lock.1.aaaaaaaaaaaa.sock';
    const other = (await listenProbe(dir, socket))!;
    await leftBehind({ pid: NO_SUCH_PID, startTime: '1', bootId: await machineBootId(), host, pidNamespace: 'pid:[1]', probe: socket });
    expect((await errorOf(take())).message).toBe(`data dir ${dir} is in use by pid ${NO_SUCH_PID} (kedge cloud): a data dir has one owner; stop it first`);

    await killed(other);
    const log = memoryLogger('lock');
    await take('kedge cloud', log);
    expect(log.lines.filter((l) => l.includes(`pid ${NO_SUCH_PID} (kedge cloud) held it and is gone (nothing answers on its socket)`))).toHaveLength(1);
    expect(await readdir(dir)).not.toContain(socket);
  });

  it("leaves another process's staging and socket alone while they are new, whatever its pid says here; removes them once long abandoned", async () => {
    // Another host's, another container's, or anyone's where there is no /proc: its pid names nobody here.
    const staging = `${LOCK_DIR}.${NO_SUCH_PID}.aaaaaaaaaaaa.new`;
    await mkdir(join(dir, staging));
    await writeFile(join(dir, staging, `${NO_SUCH_PID}.aaaaaaaaaaaa.json`), JSON.stringify({ pid: NO_SUCH_PID, host: 'elsewhere', command: 'kedge cloud' }));
    const dead = (await listenProbe(dir, `${LOCK_DIR}.${NO_SUCH_PID}.aaaaaaaaaaaa.sock`))!;
    await killed(dead);
    const answering = (await listenProbe(dir, `${LOCK_DIR}.1.bbbbbbbbbbbb.sock`))!;
    try {
      await (await take()).release();
      expect((await readdir(dir)).sort()).toEqual([dead.name, staging, answering.name].sort());

      const later: Clock = { ...realClock, now: () => realClock.now() + ABANDONED_AFTER_MS + MINUTE };
      await (await lockDataDir(dir, { command: 'kedge cloud', logger: silentLogger, clock: later })).release();
      expect(await readdir(dir)).toEqual([answering.name]);
    } finally {
      await answering.close();
    }
  });

  it('a data dir whose path is too long for a socket is locked all the same, its holder judged by pid alone', async () => {
    const deep = join(dir, 'd'.repeat(100));
    const lock = await lockDataDir(deep, { command: 'kedge cloud', logger: silentLogger });
    held.push(lock);
    const [record] = await readdir(join(deep, LOCK_DIR));
    expect(JSON.parse(await readFile(join(deep, LOCK_DIR, record!), 'utf8'))).not.toHaveProperty('probe');
    expect((await readdir(deep)).sort()).toEqual([LOCK_DIR]); // no socket under a name cut short
    expect((await errorOf(lockDataDir(deep, { command: 'kedge edge', logger: silentLogger }))).message).toMatch(`in use by pid ${process.pid} (kedge cloud)`);
  });

  it('a process started by the holder may work for it there; anyone else is told both', async () => {
    const parent = { pid: process.ppid, startTime: await processStartTime(process.ppid), bootId: await machineBootId(), command: 'kedge demo' };
    await leftBehind(parent);
    const child = await take('kedge cloud', memoryLogger('lock'), true);
    expect((await errorOf(take('kedge cloud'))).message).toMatch(
      new RegExp(`in use by pid ${process.ppid} \\(kedge demo\\) and pid ${process.pid} \\(kedge cloud, for pid ${process.ppid}\\): a data dir has one owner; stop it first$`),
    );
    await child.release();
    expect(await readdir(join(dir, LOCK_DIR))).toEqual(['0.json']); // the parent's stays
    expect((await errorOf(take('kedge cloud'))).message).toMatch(/in use by pid \d+ \(kedge demo\): /);
  });

  it('a second cloud or fleet on a data dir in use refuses before it touches anything', async () => {
    const cloud = await startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, store: 'memory', logger: silentLogger });
    try {
      const files = (await readdir(dir)).sort();
      expect((await errorOf(startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, store: 'memory' }))).message).toMatch(/in use by pid \d+ \(kedge cloud\)/);
      expect((await errorOf(startFleet({ nodes: 1, brokerUrl: cloud.brokerUrl, token: cloud.credentials.edge, dataDir: dir }))).message).toMatch(/in use by pid \d+ \(kedge cloud\)/);
      expect((await readdir(dir)).sort()).toEqual(files);
    } finally {
      await cloud.stop();
    }
    expect(await readdir(dir)).not.toContain(LOCK_DIR);
  });
});
