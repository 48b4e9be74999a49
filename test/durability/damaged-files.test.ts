import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateCredentials, loadOrCreateServingCert } from '../../cloud/apiserver/auth/credentials.js';
import { generateCa } from '../../cloud/apiserver/auth/tls-cert.js';
import { addApiToken, newTokenEntry } from '../../cloud/apiserver/auth/token-file.js';
import { loadIdentity } from '../../edge/identity.js';
import { joinCloud, type EdgeCredential } from '../../edge/join.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { PROCESS_STATE_FILE, ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { SIM_STATE_FILE, SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { caFingerprint, formatJoinToken } from '../../shared/join-token.js';
import { memoryLogger, silentLogger, type Logger } from '../../shared/log.js';
import { writePrivate } from '../../shared/private-file.js';
import { deadBrokerUrl } from '../edge/edge-harness.js';
import { pod } from '../edge/fixtures.js';
import { testNetwork } from '../support/test-network.js';

/** What a file can look like after a crash, a full disk or a stray editor. */
const DAMAGES: [string, (good: string) => string][] = [
  ['empty', () => ''],
  ['garbage', () => '\u0000\u0007\u00ff not JSON at all'],
  ['truncated (half written)', (good) => good.slice(0, Math.floor(good.length / 2))],
  ['the wrong document', () => '[1, 2, 3]'],
];

/**
 * One file a process reads at start: `prepare` writes it twice as the process does (the first
 * version becomes the last good copy) and says what the process sees with each version;
 * `start` starts the part that reads it and says what it sees.
 */
interface FileCase {
  file: string;
  prepare(dir: string): Promise<{ first: unknown; second: unknown }>;
  start(dir: string, logger: Logger): Promise<unknown>;
  /** Checks what the process sees with neither the file nor a good copy. */
  lost(dir: string, seen: unknown, versions: { first: unknown; second: unknown }): void;
  /** Without the file it cannot start (no WARN: an error instead). */
  refuses?: true;
}

const clock = new FakeClock();
const ref = (uid: string) => ({ kind: 'Pod', name: uid, namespace: 'default', uid, resourceVersion: '1' });
const cacheUids = async (dir: string, logger: Logger) => (await openLowdbCache(join(dir, CACHE_FILE), { logger })).objects().map((o) => o.uid);
const sandboxNames = async (runtime: { listSandboxes(): Promise<{ name: string }[]> }) => (await runtime.listSandboxes()).map((s) => s.name);
/** The CA the token pins: a kept credential is reused only while it trusts exactly that one. */
const CA = generateCa({ commonName: 'test-ca', now: realClock.now() });
const TOKEN = formatJoinToken({ caHash: caFingerprint(CA.certPem), id: 'abcdef', secret: 'b'.repeat(16) });
/** A cloud URL nothing answers at: an edge that tries to join there fails to reach it. */
const NO_CLOUD = (await deadBrokerUrl()).replace('mqtt:', 'https:');
const credential = (password: string): EdgeCredential => ({ cloud: NO_CLOUD, node: 'edge-1', tokenId: 'abcdef', password, brokerUrl: 'mqtts://127.0.0.1:2', caPem: CA.certPem });

const CASES: FileCase[] = [
  {
    file: CACHE_FILE,
    prepare: async (dir) => {
      const cache = await openLowdbCache(join(dir, CACHE_FILE));
      cache.apply(ref('u1'), pod('u1', 'u1'));
      await cache.flush();
      cache.apply(ref('u2'), pod('u2', 'u2'));
      await cache.flush();
      return { first: ['u1'], second: ['u1', 'u2'] };
    },
    start: cacheUids,
    lost: (_, seen) => expect(seen).toEqual([]),
  },
  {
    file: 'identity.json',
    prepare: async (dir) => {
      const first = await loadIdentity(dir, false, silentLogger);
      const second = await loadIdentity(dir, true, silentLogger); // a reboot: a new boot id
      return { first: [first.machineId, first.bootId], second: [second.machineId, second.bootId] };
    },
    start: async (dir, logger) => {
      const ids = await loadIdentity(dir, false, logger);
      return [ids.machineId, ids.bootId];
    },
    lost: (_, seen, { first }) => expect((seen as string[])[0]).not.toBe((first as string[])[0]),
  },
  {
    file: SIM_STATE_FILE,
    prepare: async (dir) => {
      const runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 0 });
      await runtime.runSandbox({ podUid: 'u1', name: 'one', namespace: 'default' });
      await runtime.runSandbox({ podUid: 'u2', name: 'two', namespace: 'default' });
      return { first: ['one'], second: ['one', 'two'] };
    },
    start: async (dir, logger) => sandboxNames(await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 0, logger })),
    lost: (_, seen) => expect(seen).toEqual([]),
  },
  {
    file: PROCESS_STATE_FILE,
    prepare: async (dir) => {
      const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock });
      await runtime.runSandbox({ podUid: 'u1', name: 'one', namespace: 'default' });
      await runtime.runSandbox({ podUid: 'u2', name: 'two', namespace: 'default' });
      return { first: ['one'], second: ['one', 'two'] };
    },
    start: async (dir, logger) => sandboxNames(await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock, logger })),
    lost: (_, seen) => expect(seen).toEqual([]),
  },
  {
    file: 'credential.json',
    prepare: async (dir) => {
      await writePrivate(join(dir, 'credential.json'), JSON.stringify(credential('one')), { keepPrevious: true });
      await writePrivate(join(dir, 'credential.json'), JSON.stringify(credential('two')), { keepPrevious: true });
      return { first: 'one', second: 'two' };
    },
    // The kept credential is for this cloud, node and token: no join, no network.
    start: (dir, logger) =>
      joinCloud({ cloudUrl: NO_CLOUD, token: TOKEN, node: 'edge-1', dataDir: dir, logger }).then(
        (c) => c.password,
        (err: Error) => err.message,
      ),
    // No credential: it joins again with the token (here, a cloud that is not there).
    lost: (_, seen) => expect(seen).toMatch(`cannot reach ${NO_CLOUD}`),
  },
  {
    file: 'tokens.json',
    prepare: async (dir) => {
      const first = await loadOrCreateCredentials(dir);
      await addApiToken(dir, newTokenEntry('viewer'));
      return { first, second: first };
    },
    start: (dir, logger) => loadOrCreateCredentials(dir, logger).catch((err: Error) => err.message),
    // Never new tokens over lost ones: the cloud refuses to start, says why and what to do, and leaves the file alone.
    refuses: true,
    lost: (dir, seen) => {
      const path = join(dir, 'tokens.json');
      expect(seen).toMatch(new RegExp(`^${path} is (empty|damaged \\(.+\\)), and ${path}.prev is no good copy either\\. .*: restore tokens.json from a backup of ${dir}, or remove it to start with new tokens$`));
    },
  },
];

describe('a torn, empty or damaged file at start', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-damaged-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const warnings = (log: { lines: string[] }) => log.lines.filter((l) => l.includes(' WARN '));

  describe.each(CASES)('$file', (c) => {
    it('reads as it was written', async () => {
      const versions = await c.prepare(dir);
      expect(await c.start(dir, silentLogger)).toEqual(versions.second);
    });

    it.each(DAMAGES)('%s: falls back to the last good copy, with one WARN naming the file', async (_, damage) => {
      const versions = await c.prepare(dir);
      const path = join(dir, c.file);
      await writeFile(path, damage(await readFile(path, 'utf8')));
      const log = memoryLogger();
      expect(await c.start(dir, log)).toEqual(versions.first);
      expect(warnings(log)).toHaveLength(1);
      expect(warnings(log)[0]).toContain(`${path} is `);
      expect(warnings(log)[0]).toContain(`using its last good copy ${c.file}.prev`);
      // The edge puts the good copy back: the next start reads it quietly. tokens.json is left for its owner to mend.
      const again = memoryLogger();
      expect(await c.start(dir, again)).toEqual(versions.first);
      expect(warnings(again)).toHaveLength(c.refuses ? 1 : 0);
    });

    it.each(DAMAGES)("%s, and no good copy: falls back to what the file's loss means, and says so", async (_, damage) => {
      const versions = await c.prepare(dir);
      const path = join(dir, c.file);
      const damaged = damage(await readFile(path, 'utf8'));
      await writeFile(path, damaged);
      await rm(`${path}.prev`);
      const log = memoryLogger();
      const seen = await c.start(dir, log);
      c.lost(dir, seen, versions);
      if (c.refuses) {
        expect(warnings(log)).toEqual([]);
        expect(await readFile(path, 'utf8')).toBe(damaged);
        return;
      }
      expect(warnings(log)).toHaveLength(1);
      expect(warnings(log)[0]).toContain(`${path} is `);
      expect(warnings(log)[0]).toContain(`and ${c.file}.prev is no good copy either: `);
    });
  });

  it('the next write after a damaged read does not keep the damaged file as the last good copy', async () => {
    await CASES[0]!.prepare(dir);
    const path = join(dir, CACHE_FILE);
    await writeFile(path, '');
    const cache = await openLowdbCache(path);
    expect(cache.recovered).toBe(true);
    cache.apply(ref('u3'), pod('u3', 'u3'));
    await cache.flush();
    expect(Object.keys(JSON.parse(await readFile(`${path}.prev`, 'utf8')).objects)).toEqual(['u1']);
    expect(Object.keys(JSON.parse(await readFile(path, 'utf8')).objects)).toEqual(['u1', 'u3']);
  });

  it('a first start (no file, no copy) reads as nothing, quietly', async () => {
    const log = memoryLogger();
    const cache = await openLowdbCache(join(dir, CACHE_FILE), { logger: log });
    expect([cache.objects(), cache.recovered, log.lines]).toEqual([[], false, []]);
  });
});

describe("the cloud's certificates at start", () => {
  let dir: string;
  const now = Date.parse('2026-01-01T00:00:00Z');
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-damaged-ca-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it.each(DAMAGES)('a CA certificate %s: no new CA is made over it (it would void every join token); the cloud says what to do', async (_, damage) => {
    await loadOrCreateServingCert(dir, ['127.0.0.1'], now);
    const ca = join(dir, 'ca.crt');
    const damaged = damage(await readFile(ca, 'utf8'));
    await writeFile(ca, damaged);
    const key = await readFile(join(dir, 'ca.key'), 'utf8');
    await expect(loadOrCreateServingCert(dir, ['127.0.0.1'], now)).rejects.toThrow(
      `${ca} and ${join(dir, 'ca.key')} do not hold a CA and its key (one is missing or damaged). A new CA would void every join token`,
    );
    expect([await readFile(ca, 'utf8'), await readFile(join(dir, 'ca.key'), 'utf8')]).toEqual([damaged, key]);
  });

  it('a CA key gone: the same', async () => {
    await loadOrCreateServingCert(dir, ['127.0.0.1'], now);
    await rm(join(dir, 'ca.key'));
    await expect(loadOrCreateServingCert(dir, ['127.0.0.1'], now)).rejects.toThrow('remove both to make a new CA (every edge then joins again)');
  });

  it('a data dir without a CA: a new one is made, and the cloud says so loudly with the absolute data dir; the next start says nothing', async () => {
    const log = memoryLogger('cloud');
    const relativeDir = relative(process.cwd(), dir);
    await loadOrCreateServingCert(relativeDir, ['127.0.0.1'], now, log);
    expect(log.lines).toEqual([expect.stringContaining(` WARN  [cloud] no CA in ${dir}: created a new one (join tokens made for another data dir will not work)`)]);
    await loadOrCreateServingCert(relativeDir, ['127.0.0.1'], now, log);
    expect(log.lines).toHaveLength(1);
  });

  it.each(DAMAGES)('a serving certificate %s: the CA issues a new one', async (_, damage) => {
    const first = await loadOrCreateServingCert(dir, ['127.0.0.1'], now);
    await writeFile(join(dir, 'tls.crt'), damage(first.certPem));
    const second = await loadOrCreateServingCert(dir, ['127.0.0.1'], now);
    expect(second.caPem).toBe(first.caPem);
    expect(second.certPem).not.toBe(first.certPem);
  });
});
