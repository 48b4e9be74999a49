import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionOptions } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { scratchDir } from '../../edge/runtime/sim-shell/sim-fs.js';
import { decodeArchive, encodeEntry, END_OF_ARCHIVE } from '../../edge/runtime/sim-shell/ustar.js';
import { FakeClock } from '../../shared/clock.js';
import { testNetwork } from '../support/test-network.js';
import { finished, PIPES, TTY, WITH_STDIN } from './stream-support.js';

describe('the sim runtime’s simulated shell', () => {
  let dir: string;
  let clock: FakeClock;
  let runtime: SimRuntime;
  let id: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-simsh-'));
    await mkdir(join(dir, 'cfg'));
    await writeFile(join(dir, 'cfg', 'greeting'), 'hello from a volume\n');
    await mkdir(join(dir, 'data'));
    clock = new FakeClock();
    runtime = await SimRuntime.open({ network: testNetwork(), dataDir: join(dir, 'edge'), clock, defaultStartMs: 0 });
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'web-1', namespace: 'default' });
    id = await runtime.createContainer(sandbox.id, {
      name: 'app',
      attempt: 0,
      env: { POD_IP: '10.0.0.7', GREETING: 'hi' },
      workingDir: '/srv',
      mounts: [
        { name: 'cfg', containerPath: '/etc/cfg', hostPath: join(dir, 'cfg'), readOnly: true },
        { name: 'data', containerPath: '/data', hostPath: join(dir, 'data'), readOnly: false },
      ],
    });
    await runtime.startContainer(id);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (command: string[], options: SessionOptions = PIPES, input?: Buffer | string) => {
    const session = await runtime.execStream(id, command, options);
    if (input !== undefined) session.stdin!.end(input);
    return finished(session);
  };
  const sh = (script: string) => run(['sh', '-c', script]);

  it.each([
    ['echo "$GREETING" from $POD_IP', 'hi from 10.0.0.7\n', 0],
    ['pwd; hostname', '/srv\nweb-1\n', 0],
    ['true && echo yes; false && echo no; false || echo fallback', 'yes\nfallback\n', 0],
    ['echo before; exit 7; echo after', 'before\n', 7],
    ['false; echo $?', '1\n', 0],
    ['test -d /etc/cfg && [ -f /etc/cfg/greeting ] && test ! -e /nope && echo ok', 'ok\n', 0],
    ['cat /etc/cfg/greeting', 'hello from a volume\n', 0],
    ['mkdir -p /tmp/a/b && ls /tmp/a && cd /tmp && pwd', 'b\n/tmp\n', 0],
    ['ls /etc', 'cfg\n', 0],
    ["echo 'single $GREETING' \"double $GREETING\" # a comment", 'single $GREETING double hi\n', 0],
  ])('%s', async (script, stdout, exitCode) => {
    expect(await sh(script)).toEqual({ exitCode, stdout, stderr: '' });
  });

  it('says what fails as a shell does', async () => {
    expect(await sh('nosuch arg')).toEqual({ exitCode: 127, stdout: '', stderr: 'sh: nosuch: not found\n' });
    expect(await run(['cat', '/etc/missing'])).toEqual({ exitCode: 1, stdout: '', stderr: 'cat: /etc/missing: No such file or directory\n' });
    expect(await run(['ls', '/nope'])).toMatchObject({ exitCode: 2, stderr: "ls: cannot access '/nope': No such file or directory\n" });
    expect((await sh('echo a | cat')).exitCode).toBe(2);
  });

  it("lists with -l, and env shows the container's env", async () => {
    expect((await run(['ls', '-l', '/etc/cfg'])).stdout).toMatch(/^total 1\n-rw-r--r-- 1 root root +20 \w{3} [ \d]\d \d\d:\d\d greeting\n$/);
    const env = (await run(['env'])).stdout.split('\n');
    expect(env).toEqual(expect.arrayContaining(['POD_IP=10.0.0.7', 'GREETING=hi', 'HOSTNAME=web-1']));
  });

  it('sleeps on the clock', async () => {
    const session = await runtime.execStream(id, ['sh', '-c', 'sleep 30; echo woke'], PIPES);
    const result = finished(session);
    await clock.advance(29_000);
    let done = false;
    void result.then(() => (done = true));
    await clock.advance(0);
    expect(done).toBe(false);
    await clock.advance(1_000);
    expect(await result).toMatchObject({ exitCode: 0, stdout: 'woke\n' });
  });

  it('extracts a tar archive from stdin as kubectl cp sends it, and refuses read-only volumes', async () => {
    const archive = Buffer.concat([
      encodeEntry({ name: 'site', type: 'directory', mode: 0o755, mtime: 0 }),
      encodeEntry({ name: 'site/index.html', type: 'file', mode: 0o644, mtime: 0, data: Buffer.from('<h1>hi</h1>') }),
      END_OF_ARCHIVE,
    ]);
    expect(await run(['test', '-d', '/data'])).toMatchObject({ exitCode: 0 });
    expect(await run(['tar', '-xmf', '-', '-C', '/data'], WITH_STDIN, archive)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await readFile(join(dir, 'data', 'site', 'index.html'), 'utf8')).toBe('<h1>hi</h1>');
    expect(await run(['tar', 'xf', '-', '-C', '/tmp'], WITH_STDIN, archive)).toMatchObject({ exitCode: 0 });
    expect((await run(['cat', '/tmp/site/index.html'])).stdout).toBe('<h1>hi</h1>');
    const readOnly = await run(['tar', 'xf', '-', '-C', '/etc/cfg'], WITH_STDIN, archive);
    expect(readOnly).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('Read-only file system') });
  });

  it('creates a tar archive of a path, as kubectl cp reads it', async () => {
    await sh('mkdir -p /data/out');
    await writeFile(join(dir, 'data', 'out', 'a.txt'), 'A');
    const session = await runtime.execStream(id, ['tar', 'cf', '-', '/data/out'], PIPES);
    const chunks: Buffer[] = [];
    session.stdout!.on('data', (c: Buffer) => chunks.push(c));
    let stderr = '';
    session.stderr!.on('data', (c: Buffer) => (stderr += c));
    expect(await session.exited).toBe(0);
    const bytes = Buffer.concat(chunks);
    expect(bytes.length % 10240).toBe(0);
    expect(decodeArchive(bytes).map((e) => [e.name, e.type, e.data?.toString()])).toEqual([
      ['data/out', 'directory', undefined],
      ['data/out/a.txt', 'file', 'A'],
    ]);
    expect(stderr).toBe("tar: Removing leading `/' from member names\n");
  });

  it('speaks the same tar as tar(1), both ways', async () => {
    const real = join(dir, 'real');
    await mkdir(join(real, 'tree', 'deep'), { recursive: true });
    const long = `${'n'.repeat(120)}.txt`;
    await writeFile(join(real, 'tree', 'deep', long), Buffer.from([0, 1, 2, 255]));
    const made = execFileSync('tar', ['cf', '-', '-C', real, 'tree']);
    expect(await run(['tar', 'xf', '-', '-C', '/data'], WITH_STDIN, made)).toMatchObject({ exitCode: 0 });
    expect(await readFile(join(dir, 'data', 'tree', 'deep', long))).toEqual(Buffer.from([0, 1, 2, 255]));
    const session = await runtime.execStream(id, ['sh', '-c', 'cd /data && tar cf - tree'], { ...PIPES, stderr: false });
    const chunks: Buffer[] = [];
    session.stdout!.on('data', (c: Buffer) => chunks.push(c));
    expect(await session.exited).toBe(0);
    const back = join(dir, 'back');
    await mkdir(back);
    execFileSync('tar', ['xf', '-', '-C', back], { input: Buffer.concat(chunks) });
    expect(await readFile(join(back, 'tree', 'deep', long))).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it('runs an interactive shell on a terminal: a prompt, echo, each line run, exit ends it', async () => {
    const session = await runtime.execStream(id, ['sh'], TTY);
    session.stdin!.write('echo $GREETING\r');
    session.stdin!.write('exit 3\r');
    const result = await finished(session);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('# echo $GREETING\r\nhi\r\n# exit 3\r\n');
  });

  it('keeps its scratch files until the container goes', async () => {
    await sh('mkdir -p /var/x');
    expect((await stat(join(scratchDir(join(dir, 'edge'), id), 'var', 'x'))).isDirectory()).toBe(true);
    await runtime.removeContainer(id);
    await expect(stat(scratchDir(join(dir, 'edge'), id))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('kill ends a command at once', async () => {
    const session = await runtime.execStream(id, ['sleep', '3600'], PIPES);
    session.kill();
    expect(await session.exited).toBe(137);
  });
});
