import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import { mosquittoPasswordFile } from '../../cloud/hub/mosquitto-config.js';
import { hashPassword } from '../../cloud/hub/password-hash.js';

/** TEST HELPER. The hub's broker password in the tests' password files. */
export const CLOUD_PASSWORD = 'cloud-secret';
export const nodePasswords: Record<string, string> = { 'edge-1': 'password-1', 'edge-2': 'password-2' };

/** TEST HELPER. A passwd file as `kedge broker-config mosquitto` writes it, for the cloud (given its hub password) and the nodes above. */
export async function writePasswordFile(dir: string, cloudPassword = CLOUD_PASSWORD): Promise<string> {
  const path = join(dir, 'passwd');
  const users = [[CLOUD_USERNAME, cloudPassword], ...Object.entries(nodePasswords)].map(([username, password]) => ({ username: username!, passwordHash: hashPassword(password!) }));
  await writeFile(path, mosquittoPasswordFile(users));
  return path;
}

