import { randomBytes } from 'node:crypto';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sameSecret } from '../shared/digest.js';
import { writePrivate } from '../shared/private-file.js';

/** Where an edge keeps the bearer token its local API wants for a change (POST), beside its cache. */
export const LOCAL_API_TOKEN_FILE = 'local-api.token';

export function localApiTokenPath(dataDir: string): string {
  return join(dataDir, LOCAL_API_TOKEN_FILE);
}

/**
 * The edge's local API token: the one in its data dir (made owner-only again), else a new one
 * written there (0600, durably). Anyone on the machine reaches 127.0.0.1; only the data dir's
 * owner reads this file, so only they may stop and start the edge's components.
 */
export async function loadLocalApiToken(dataDir: string): Promise<string> {
  const path = localApiTokenPath(dataDir);
  const kept = (await readFile(path, 'utf8').catch(() => '')).trim();
  if (kept) {
    await chmod(path, 0o600);
    return kept;
  }
  const token = randomBytes(32).toString('base64url');
  await writePrivate(path, token + '\n');
  return token;
}

/** Whether a request's Authorization header carries `token` as its bearer token. */
export function carriesToken(authorization: string | undefined, token: string): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  return bearer !== undefined && sameSecret(bearer, token);
}
