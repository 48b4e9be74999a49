import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { TokenEntry, UserInfo } from '../../cloud/apiserver/auth/authn.js';
import { loadOrCreateCredentials, readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { addApiToken, newTokenEntry, tokenFileSource } from '../../cloud/apiserver/auth/token-file.js';
import { reloadingAuthenticator, type TokenSource } from '../../cloud/apiserver/auth/token-reload.js';

/** tokens.json as a test controls it: its entries, a stamp bumped on every write, and counts of looks. */
function fakeSource(initial: TokenEntry[] = []) {
  let entries = initial;
  let version = 1;
  let damaged = false;
  let gate: Promise<void> | undefined;
  const seen = { stamps: 0, reads: 0 };
  const source: TokenSource = {
    stamp: async () => {
      seen.stamps++;
      const now = String(version);
      await gate;
      return now;
    },
    read: () => {
      seen.reads++;
      return damaged ? Promise.reject(new Error('tokens.json is damaged')) : Promise.resolve(entries);
    },
  };
  const write = (next: TokenEntry[], opts: { damaged?: boolean } = {}): void => {
    entries = next;
    damaged = opts.damaged ?? false;
    version++;
  };
  /** Holds every stamp() answer (as of its call) until the returned function runs. */
  const hold = (): (() => void) => {
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    return () => {
      gate = undefined;
      release();
    };
  };
  return { source, seen, write, hold };
}

const cloudToken: TokenEntry = { token: 'cloud', user: 'system:kedge-cloud', role: 'admin' };
const viewer: TokenEntry = { token: 'viewer-1', user: 'kedge-viewer', role: 'viewer' };
const bearer = (t: string): string => `Bearer ${t}`;

/** Settles `p` into a value or the error's code, so a test can look at it without awaiting forever. */
function track(p: Promise<UserInfo | undefined>): { result?: string } {
  const out: { result?: string } = {};
  p.then(
    (u) => (out.result = u?.name ?? 'none'),
    (err: { code?: string }) => (out.result = err.code ?? 'error'),
  );
  return out;
}

describe('the authenticator re-reads tokens.json while the server runs', () => {
  it('accepts a token added after start: a request with it waits for the next check, at most 1 s after the last', async () => {
    const clock = new FakeClock();
    const file = fakeSource([]);
    const authenticate = reloadingAuthenticator([cloudToken], file.source, { clock, logger: memoryLogger() });
    await expect(authenticate(bearer('viewer-1'))).rejects.toMatchObject({ code: 'Unauthorized' });

    file.write([viewer]);
    await clock.advance(400);
    const pending = track(authenticate(bearer('viewer-1')));
    await clock.advance(599);
    expect(pending.result).toBeUndefined();
    await clock.advance(1);
    expect(pending.result).toBe('kedge-viewer');
    expect(await authenticate(bearer('viewer-1'))).toMatchObject({ name: 'kedge-viewer', role: 'viewer', groups: ['system:authenticated'] });
  });

  it('does not let a check that looked at the file before the token was written refuse it', async () => {
    const clock = new FakeClock();
    const file = fakeSource([viewer]);
    const authenticate = reloadingAuthenticator([cloudToken], file.source, { clock, logger: memoryLogger() });
    await authenticate(bearer('viewer-1'));
    await clock.advance(1000);
    const release = file.hold();
    await authenticate(bearer('viewer-1')); // starts a check whose stamp predates the write below
    file.write([viewer, { token: 'newer', user: 'newcomer', role: 'viewer' }]);
    const pending = track(authenticate(bearer('newer')));
    release();
    await clock.advance(999);
    expect(pending.result).toBeUndefined();
    await clock.advance(1);
    expect(pending.result).toBe('newcomer');
  });

  it('looks at the file at most once a second however many wrong tokens arrive, and reads it only when it changed', async () => {
    const clock = new FakeClock();
    const file = fakeSource([viewer]);
    const authenticate = reloadingAuthenticator([cloudToken], file.source, { clock, logger: memoryLogger() });
    expect((await authenticate(bearer('viewer-1')))?.name).toBe('kedge-viewer');
    expect(file.seen).toEqual({ stamps: 1, reads: 1 });

    const wrong = Array.from({ length: 20 }, (_, i) => track(authenticate(bearer(`wrong-${i}`))));
    await clock.advance(1000);
    expect(wrong.map((w) => w.result)).toEqual(Array(20).fill('Unauthorized'));
    expect(file.seen).toEqual({ stamps: 2, reads: 1 });
  });

  it('stops accepting a token removed from the file once a due check ran', async () => {
    const clock = new FakeClock();
    const file = fakeSource([viewer]);
    const authenticate = reloadingAuthenticator([cloudToken], file.source, { clock, logger: memoryLogger() });
    expect((await authenticate(bearer('viewer-1')))?.name).toBe('kedge-viewer');
    file.write([]);
    await clock.advance(1000);
    // This request starts the due check without waiting for it; the next one sees its result.
    await authenticate(bearer('viewer-1'));
    await clock.advance(0);
    // Unknown now, so it waits for one more check before it is refused.
    const refused = track(authenticate(bearer('viewer-1')));
    await clock.advance(1000);
    expect(refused.result).toBe('Unauthorized');
    expect((await authenticate(bearer('cloud')))?.name).toBe('system:kedge-cloud');
  });

  it('keeps the tokens it has when the file is damaged, and logs why', async () => {
    const clock = new FakeClock();
    const logger = memoryLogger();
    const file = fakeSource([viewer]);
    const authenticate = reloadingAuthenticator([cloudToken], file.source, { clock, logger });
    expect((await authenticate(bearer('viewer-1')))?.name).toBe('kedge-viewer');
    file.write([], { damaged: true });
    await clock.advance(1000);
    await authenticate(bearer('viewer-1'));
    await clock.advance(0);
    expect((await authenticate(bearer('viewer-1')))?.name).toBe('kedge-viewer');
    expect(logger.lines.join('\n')).toContain('cannot reload the API tokens {"error":"tokens.json is damaged"}');
  });
});

describe('tokens.json on disk', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('keeps a file without added tokens readable, and an added token shows up through the source', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-tokens-'));
    const source = tokenFileSource(dir, memoryLogger());
    expect(await source.stamp()).toBeUndefined();
    const creds = await loadOrCreateCredentials(dir);
    const before = await source.stamp();
    expect((await source.read()).map((t) => [t.user, t.role])).toEqual([['kedge-admin', 'admin'], ['system:kedge-cloud', 'admin']]);

    const entry = newTokenEntry('viewer');
    await addApiToken(dir, entry);
    await addApiToken(dir, newTokenEntry('node', { node: 'edge-1' }));
    expect(await source.stamp()).not.toBe(before);
    const users = (await source.read()).map((t) => [t.user, t.role, t.groups]);
    expect(users.slice(2)).toEqual([['kedge-viewer', 'viewer', ['kedge:viewers']], ['system:node:edge-1', 'node', ['system:nodes']]]);
    // The generated credentials are untouched, for the cloud's next start and the edges.
    expect(await readCredentials(dir)).toEqual(creds);
    expect(JSON.parse(await readFile(join(dir, 'tokens.json'), 'utf8'))).toMatchObject({ ...creds, tokens: [entry, expect.objectContaining({ user: 'system:node:edge-1' })] });
  });

  it('refuses to add to a data dir without credentials, or to a damaged file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-tokens-'));
    await expect(addApiToken(join(dir, 'nowhere'), newTokenEntry('viewer'))).rejects.toThrow(/no kedge cloud data in .*nowhere \(no tokens.json\)/);
    await writeFile(join(dir, 'tokens.json'), JSON.stringify({ admin: 'a', cloud: 'c', edge: 'e', tokens: [{ user: 'x' }] }));
    await expect(addApiToken(dir, newTokenEntry('viewer'))).rejects.toThrow(/tokens.json is damaged \("tokens" must be a list/);
    expect(() => newTokenEntry('node')).toThrow('a node token needs the node name');
  });
});
