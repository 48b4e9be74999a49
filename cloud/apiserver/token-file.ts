import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KedgeError } from '../../shared/errors.js';
import type { TokenEntry } from './authn.js';
import { readRecovering } from '../../shared/recovering-read.js';
import { silentLogger } from '../../shared/log.js';
import { apiTokens, lostTokens, newToken, TOKENS_FILE, writePrivate, type StoredCredentials } from './credentials.js';
import { NODE_USER_PREFIX, NODES_GROUP } from './node-authz.js';
import type { TokenSource } from './token-reload.js';

/**
 * API tokens added while the cloud runs (`kedge token create`). They live in tokens.json next
 * to the generated credentials, under "tokens", so a file without them still reads as before.
 */
export const TOKEN_ROLES = ['admin', 'viewer', 'node'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

type TokensFile = StoredCredentials & { tokens?: TokenEntry[] };

/** tokens.json as the running apiserver sees it: stamped by mtime, size and inode (a write replaces the file). */
export function tokenFileSource(dataDir: string): TokenSource {
  const path = join(dataDir, TOKENS_FILE);
  return {
    stamp: async () => {
      const s = await stat(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      return s && `${s.mtimeMs}:${s.size}:${s.ino}`;
    },
    read: async () => apiTokensOf(parseTokensFile(await readFile(path, 'utf8'), path)),
  };
}

/** Every token the file lets into the API: the admin, the cloud's own, then the added ones. */
export function apiTokensOf(file: TokensFile): TokenEntry[] {
  return [...apiTokens(file), ...(file.tokens ?? [])];
}

/** The file's content, checked: the generated tokens and well-formed added entries. */
export function parseTokensFile(text: string, path: string): TokensFile {
  try {
    return checkTokensFile(text);
  } catch (err) {
    throw new KedgeError('Internal', `${path} is damaged: ${(err as Error).message}`);
  }
}

function checkTokensFile(text: string): TokensFile {
  const file = JSON.parse(text) as Partial<TokensFile>;
  if (typeof file.admin !== 'string' || typeof file.cloud !== 'string' || typeof file.edge !== 'string') throw new Error('expected admin, cloud and edge tokens');
  const tokens: unknown = file.tokens ?? [];
  if (!Array.isArray(tokens) || !tokens.every(isTokenEntry)) throw new Error('"tokens" must be a list of {token, user, role, groups?}');
  return { ...file, admin: file.admin, cloud: file.cloud, edge: file.edge, tokens };
}

function isTokenEntry(v: unknown): v is TokenEntry {
  const e = v as Partial<TokenEntry> | null;
  const strings = (x: unknown): boolean => Array.isArray(x) && x.every((g) => typeof g === 'string');
  return !!e && typeof e.token === 'string' && e.token !== '' && typeof e.user === 'string' && typeof e.role === 'string' && (e.groups === undefined || strings(e.groups));
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
  const read = await readRecovering(path, { parse: checkTokensFile, logger: silentLogger, otherwise: (problem) => lostTokens(dataDir, problem) });
  const file = read.value;
  if (!file) throw new KedgeError('NotFound', `no kedge cloud data in ${dataDir} (no ${TOKENS_FILE}): start the cloud first (kedge cloud or npm start)`);
  const text = JSON.stringify({ ...file, tokens: [...(file.tokens ?? []), entry] }, null, 2) + '\n';
  await writePrivate(path, text, { keepPrevious: read.problem === undefined });
}
