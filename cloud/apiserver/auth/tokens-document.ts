import { join } from 'node:path';
import { KedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import { previousCopy } from '../../../shared/private-file.js';
import { jsonDocument, readRecovering, type Recovered } from '../../../shared/recovering-read.js';
import type { TokenEntry } from './authn.js';

export const TOKENS_FILE = 'tokens.json';

/**
 * `<dataDir>/tokens.json`: the generated credentials (see credentials.ts; `hub` is missing in
 * a file from before the hub had a password of its own) and the API tokens added later by
 * `kedge token create` (see token-file.ts).
 */
export interface TokensFile {
  admin: string;
  cloud: string;
  hub?: string;
  edge: string;
  tokens?: TokenEntry[];
}

const generated = jsonDocument<TokensFile>({ admin: 'string', cloud: 'string', hub: 'string?', edge: 'string', tokens: 'array?' });

/** The one check of the file, for the cloud's start, its token reloader and `kedge token`: throws, saying what is wrong. */
export function parseTokensFile(text: string): TokensFile {
  const file = generated(text);
  if (!(file.tokens ?? []).every(isTokenEntry)) throw new Error('"tokens" must be a list of {token, user, role, groups?}');
  return file;
}

/** The file's text as the cloud and `kedge token` write it. */
export const tokensFileText = (file: TokensFile): string => JSON.stringify(file, null, 2) + '\n';

function isTokenEntry(v: unknown): v is TokenEntry {
  const e = v as Partial<TokenEntry> | null;
  const strings = (x: unknown): boolean => Array.isArray(x) && x.every((g) => typeof g === 'string');
  return !!e && typeof e.token === 'string' && e.token !== '' && typeof e.user === 'string' && typeof e.role === 'string' && (e.groups === undefined || strings(e.groups));
}

/**
 * tokens.json, or its last good copy when it is damaged (with a WARN); undefined before the
 * cloud's first start. With neither good, this throws: new tokens would lock out every
 * kubeconfig, token and edge given the old ones.
 */
export function readTokensFile(dataDir: string, logger: Logger): Promise<Recovered<TokensFile>> {
  return readRecovering(join(dataDir, TOKENS_FILE), { parse: parseTokensFile, logger, otherwise: (problem) => lostTokens(dataDir, problem) });
}

function lostTokens(dataDir: string, problem: string): KedgeError {
  const path = join(dataDir, TOKENS_FILE);
  return new KedgeError(
    'Internal',
    `${path} is ${problem}, and ${previousCopy(path)} is no good copy either. New tokens would lock out every kubeconfig, ` +
      `token and edge given the old ones, so none are made: restore ${TOKENS_FILE} from a backup of ${dataDir}, or remove it to start with new tokens`,
  );
}
