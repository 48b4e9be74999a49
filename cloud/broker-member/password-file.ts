import { stat, readFile } from 'node:fs/promises';
import { Subject, type Observable } from 'rxjs';
import type { Logger } from '../../shared/log.js';
import { CLOUD_USERNAME } from '../hub/acl.js';
import type { Authenticate } from '../hub/broker.js';
import { verifyPassword } from '../hub/password-hash.js';

export interface PasswordFileAccess {
  /** For BrokerOptions.authenticate: the file's users, each with its own password. */
  readonly authenticate: Authenticate;
  /** Nodes whose line went away or changed when the file was read again (BrokerOptions.revoked$). */
  readonly revoked$: Observable<string>;
}

/** `username:hash` lines as Mosquitto reads them; blank lines and `#` comments are skipped. */
export function parsePasswordFile(text: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) users.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return users;
}

/**
 * Who a broker member admits: the users of the password file that `kedge broker-config
 * mosquitto` writes for Mosquitto (the hub as kedge-cloud, each joined node by name), so one
 * setup serves both. The file is read again when it changes (checked at each CONNECT), as
 * Mosquitto does on SIGHUP; a node whose line went or changed is disconnected.
 */
export async function passwordFileAccess(path: string, logger: Logger): Promise<PasswordFileAccess> {
  const revoked = new Subject<string>();
  let users = parsePasswordFile(await readFile(path, 'utf8'));
  let changedAt = (await stat(path)).mtimeMs;
  logger.info('broker users read', { passwordFile: path, users: users.size });
  const current = async (): Promise<Map<string, string>> => {
    const mtime = await stat(path).then((s) => s.mtimeMs, () => changedAt);
    if (mtime === changedAt) return users;
    changedAt = mtime;
    const next = parsePasswordFile(await readFile(path, 'utf8'));
    for (const [user, hash] of users) if (next.get(user) !== hash && user !== CLOUD_USERNAME) revoked.next(user);
    users = next;
    logger.info('broker users read again', { passwordFile: path, users: users.size });
    return users;
  };
  return {
    authenticate: async (username, password) => {
      const hash = (await current()).get(username);
      return hash !== undefined && verifyPassword(password, hash);
    },
    revoked$: revoked.asObservable(),
  };
}
