import { backupBytes } from '../../store/backup.js';
import type { Store } from '../../store/store.js';
import type { UserInfo } from '../auth/authn.js';
import { adminTokenOnly } from '../auth/authz.js';
import { methodNotAllowed, textResponse, type ApiResponse } from '../request.js';

/** GET: the whole store at one revision, as a backup file (cloud/store/backup.ts); an admin's token only. */
export const BACKUP_PATH = '/kedge/v1/backup';

export async function serveBackup(user: UserInfo, method: string, store: Store): Promise<ApiResponse> {
  adminTokenOnly(user, BACKUP_PATH);
  if (method !== 'GET') throw methodNotAllowed(method, BACKUP_PATH, 'GET');
  return textResponse(200, (await backupBytes(store)).toString('utf8'));
}
