import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { KedgeError } from '../../../shared/errors.js';
import { silentLogger, type Logger } from '../../../shared/log.js';
import { previousCopy } from '../../../shared/private-file.js';
import type { TokenEntry } from './authn.js';
import { apiTokens, newToken, writePrivate } from './credentials.js';
import { NODE_USER_PREFIX, NODES_GROUP } from './node-authz.js';
import type { TokenSource } from './token-reload.js';
import { parseTokensFile, readTokensFile, TOKENS_FILE, tokensFileText } from './tokens-document.js';

/**
 * API tokens added while the cloud runs (`kedge token create`). They live in tokens.json next
 * to the generated credentials, under "tokens", so a file without them still reads as before.
 */
export const TOKEN_ROLES = ['admin', 'viewer', 'node'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

/**
 * tokens.json as the running apiserver sees it, read as the cloud's start reads it: a damaged
 * file falls back to its last good copy (one WARN each time either file changes). Stamped by
 * the mtime, size and inode of both (a write replaces the file).
 */
export function tokenFileSource(dataDir: string, logger: Logger): TokenSource {
  const path = join(dataDir, TOKENS_FILE);
  return {
    stamp: async () => {
      const stamps = await Promise.all([path, previousCopy(path)].map(fileStamp));
      return stamps.every((s) => s === undefined) ? undefined : stamps.join('|');
    },
    read: async () => {
      const { value } = await readTokensFile(dataDir, logger);
      // The admin, the cloud's own, then the added ones.
      return value ? [...apiTokens(value), ...(value.tokens ?? [])] : [];
    },
  };
}

async function fileStamp(path: string): Promise<string | undefined> {
  const s = await stat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  return s && `${s.mtimeMs}:${s.size}:${s.ino}`;
}

/** A fresh token for a role: admin and viewer users are named `name`; a node is system:node:<node> in system:nodes. */
export function newTokenEntry(role: TokenRole, opts: { name?: string; node?: string } = {}): TokenEntry {
  if (role === 'node') {
    if (!opts.node) throw new KedgeError('Invalid', 'a node token needs the node name (--node)');
    return { token: newToken(), user: `${NODE_USER_PREFIX}${opts.node}`, role, groups: [NODES_GROUP] };
  }
  const groups = role === 'admin' ? ['system:masters'] : ['kedge:viewers'];
  return { token: newToken(), user: opts.name ?? `kedge-${role}`, role, groups };
}

/**
 * Appends a token to `<dataDir>/tokens.json` (a damaged one: to its last good copy); NotFound
 * when no cloud ever started with this data dir.
 */
export async function addApiToken(dataDir: string, entry: TokenEntry): Promise<void> {
  const path = join(dataDir, TOKENS_FILE);
  const read = await readTokensFile(dataDir, silentLogger);
  const file = read.value;
  if (!file) throw noCloudData(dataDir);
  await writePrivate(path, tokensFileText({ ...file, tokens: [...(file.tokens ?? []), entry] }), { keepPrevious: read.problem === undefined });
}

/**
 * Removes every API token of `user` from tokens.json and from its last good copy, which would
 * otherwise bring them back the day tokens.json is damaged; the generated credentials stay.
 * Returns how many there were; NotFound when there were none.
 */
export async function removeApiTokens(dataDir: string, user: string): Promise<number> {
  const path = join(dataDir, TOKENS_FILE);
  const { value: file } = await readTokensFile(dataDir, silentLogger);
  if (!file) throw noCloudData(dataDir);
  const copy = await readFile(previousCopy(path), 'utf8').then(parseTokensFile, () => undefined);
  const gone = new Set([...(file.tokens ?? []), ...(copy?.tokens ?? [])].filter((t) => t.user === user).map((t) => t.token));
  if (gone.size === 0) throw new KedgeError('NotFound', `no API token of user "${user}" in ${path} or its last good copy`);
  const text = tokensFileText({ ...file, tokens: (file.tokens ?? []).filter((t) => !gone.has(t.token)) });
  // The copy first: a run cut short between the two leaves the token in tokens.json, where it shows.
  await writePrivate(previousCopy(path), text);
  await writePrivate(path, text);
  return gone.size;
}

const noCloudData = (dataDir: string): KedgeError =>
  new KedgeError('NotFound', `no kedge cloud data in ${resolve(dataDir)} (no ${TOKENS_FILE}): start the cloud first (kedge cloud or npm start)`);
