import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiTokens, loadOrCreateCredentials, readCredentials, type Credentials } from '../../cloud/apiserver/auth/credentials.js';
import { addApiToken, newTokenEntry, removeApiTokens, tokenFileSource } from '../../cloud/apiserver/auth/token-file.js';
import { reloadingAuthenticator } from '../../cloud/apiserver/auth/token-reload.js';
import type { TokenEntry } from '../../cloud/apiserver/auth/authn.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';

const bearer = (entry: TokenEntry): string => `Bearer ${entry.token}`;
const warnings = (log: { lines: string[] }): string[] => log.lines.filter((l) => l.includes(' WARN '));

/**
 * A damaged tokens.json with a good last copy: the cloud starts with the copy's credentials,
 * and its token reloader reads the same copy, so the API tokens kept there work while the cloud
 * runs (and a token created afterwards too), with one WARN, not one a second.
 */
describe('tokens.json damaged while a good last copy is there', () => {
  let dir: string;
  let creds: Credentials;
  const clock = new FakeClock();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-tokens-fallback-'));
    creds = await loadOrCreateCredentials(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const tokensFile = (): string => join(dir, 'tokens.json');
  /** The running cloud's authenticator, as cloud/main.ts builds it. */
  const authenticator = (log: ReturnType<typeof memoryLogger>) => reloadingAuthenticator(apiTokens(creds), tokenFileSource(dir, log), { clock, logger: log });
  /** Who the request is, or why it is refused; a request with a token the reloader does not know waits for its next look. */
  const userOf = async (authenticate: ReturnType<typeof authenticator>, entry: TokenEntry): Promise<string | undefined> => {
    const outcome = authenticate(bearer(entry)).then(
      (u) => u?.name,
      (err: { code?: string }) => err.code,
    );
    await clock.advance(1000);
    return outcome;
  };

  /** A request a second with a token nobody has: each waits for a look at the files that began after it came. */
  const lookFor30Seconds = async (authenticate: ReturnType<typeof authenticator>): Promise<void> => {
    const stranger = newTokenEntry('viewer');
    for (let second = 0; second < 30; second++) expect(await userOf(authenticate, stranger)).toBe('Unauthorized');
  };

  it("the reloader takes the last good copy's tokens, as the start does, says so once, and accepts tokens created afterwards", async () => {
    const alice = newTokenEntry('viewer', { name: 'alice' });
    const bob = newTokenEntry('viewer', { name: 'bob' });
    await addApiToken(dir, alice);
    await addApiToken(dir, bob); // tokens.json.prev holds alice; tokens.json alice and bob
    await writeFile(tokensFile(), '{"admin": "torn');
    expect(await readCredentials(dir)).toEqual(creds);

    const log = memoryLogger('apiserver');
    const authenticate = authenticator(log);
    expect(await userOf(authenticate, alice)).toBe('alice');
    expect(await userOf(authenticate, bob)).toBe('Unauthorized'); // written only in the damaged file
    await lookFor30Seconds(authenticate);
    expect(await userOf(authenticate, alice)).toBe('alice');
    expect(warnings(log)).toHaveLength(1);
    expect(warnings(log)[0]).toContain(`${tokensFile()} is damaged (`);
    expect(warnings(log)[0]).toContain('using its last good copy tokens.json.prev');

    const carol = newTokenEntry('viewer', { name: 'carol' });
    await addApiToken(dir, carol); // written over the damaged file, from the copy
    expect(await userOf(authenticate, carol)).toBe('carol');
    expect(await userOf(authenticate, alice)).toBe('alice');
    expect(warnings(log)).toHaveLength(1);
  });

  it('with no good copy either, the reloader keeps the tokens it has and says so once, not at every look', async () => {
    const alice = newTokenEntry('viewer', { name: 'alice' });
    await addApiToken(dir, alice);
    const log = memoryLogger('apiserver');
    const authenticate = authenticator(log);
    expect(await userOf(authenticate, alice)).toBe('alice');
    await writeFile(tokensFile(), '');
    await writeFile(`${tokensFile()}.prev`, '[]');
    await lookFor30Seconds(authenticate);
    expect(await userOf(authenticate, alice)).toBe('alice');
    expect(warnings(log)).toHaveLength(1);
    expect(warnings(log)[0]).toContain(`cannot reload the API tokens {"error":"${tokensFile()} is empty, and ${tokensFile()}.prev is no good copy either.`);
  });

  it('is one check for the start and the reloader: a file one takes, the other takes; a file one refuses, the other refuses', async () => {
    await addApiToken(dir, newTokenEntry('viewer', { name: 'alice' }));
    const good = JSON.parse(await readFile(tokensFile(), 'utf8')) as Record<string, unknown>;
    const damaged = [
      { ...good, tokens: [{ user: 'no-token', role: 'viewer' }] },
      { ...good, hub: 7 },
      { ...good, tokens: {} },
    ];
    for (const file of damaged) {
      await writeFile(tokensFile(), JSON.stringify(file));
      const [start, reload] = [memoryLogger(), memoryLogger()];
      expect(await readCredentials(dir, start)).toEqual(creds);
      expect((await tokenFileSource(dir, reload).read()).map((t) => t.user)).toEqual(['kedge-admin', 'system:kedge-cloud']);
      for (const log of [start, reload]) expect(warnings(log)).toEqual([expect.stringContaining('using its last good copy tokens.json.prev')]);
    }
  });
});

/** An API token removed by hand from tokens.json alone comes back from the last good copy when tokens.json is damaged: `kedge token delete` removes it from both. */
describe('deleting an API token', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-tokens-delete-'));
    await loadOrCreateCredentials(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const usersIn = async (file: string): Promise<string[]> => ((JSON.parse(await readFile(join(dir, file), 'utf8')) as { tokens?: TokenEntry[] }).tokens ?? []).map((t) => t.user);
  const source = () => tokenFileSource(dir, memoryLogger());

  it('removes it from tokens.json and its last good copy: a damaged tokens.json does not bring it back', async () => {
    await addApiToken(dir, newTokenEntry('viewer', { name: 'alice' }));
    await addApiToken(dir, newTokenEntry('viewer', { name: 'bob' }));
    await addApiToken(dir, newTokenEntry('viewer', { name: 'alice' }));
    expect(await removeApiTokens(dir, 'alice')).toBe(2);
    expect([await usersIn('tokens.json'), await usersIn('tokens.json.prev')]).toEqual([['bob'], ['bob']]);
    await writeFile(join(dir, 'tokens.json'), '');
    expect((await source().read()).map((t) => t.user)).toEqual(['kedge-admin', 'system:kedge-cloud', 'bob']);
  });

  it('removes one an admin took out of tokens.json by hand but not out of its copy', async () => {
    await addApiToken(dir, newTokenEntry('node', { node: 'edge-1' }));
    await addApiToken(dir, newTokenEntry('viewer', { name: 'bob' }));
    const file = JSON.parse(await readFile(join(dir, 'tokens.json'), 'utf8')) as { tokens: TokenEntry[] };
    await writeFile(join(dir, 'tokens.json'), JSON.stringify({ ...file, tokens: file.tokens.filter((t) => t.user === 'bob') }));
    expect(await usersIn('tokens.json.prev')).toEqual(['system:node:edge-1']);
    expect(await removeApiTokens(dir, 'system:node:edge-1')).toBe(1);
    expect([await usersIn('tokens.json'), await usersIn('tokens.json.prev')]).toEqual([['bob'], ['bob']]);
  });

  it('says so when there is no such token, or no cloud data, and leaves the files alone', async () => {
    const before = await readFile(join(dir, 'tokens.json'), 'utf8');
    await expect(removeApiTokens(dir, 'kedge-admin')).rejects.toThrow(`no API token of user "kedge-admin" in ${join(dir, 'tokens.json')} or its last good copy`);
    await expect(removeApiTokens(join(dir, 'nowhere'), 'alice')).rejects.toThrow('no kedge cloud data in');
    expect(await readFile(join(dir, 'tokens.json'), 'utf8')).toBe(before);
  });
});
