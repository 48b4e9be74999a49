import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import type { Secret } from '../../shared/config-types.js';
import { isKedgeError } from '../../shared/errors.js';
import { signedByAnotherCa } from '../../shared/certificate-refused.js';
import { cliName } from '../../shared/cli-name.js';
import { anotherCloudError, cloudClient } from '../cloud-request.js';
import { textTable } from '../text-table.js';
import { realClock } from '../../shared/clock.js';

/** Join tokens as Secrets of the running cloud (cloud/join/secrets.ts), through its API. */
export interface JoinTokenOptions {
  dataDir: string;
  node?: string;
  bootstrap?: boolean;
  /** Go duration; "0": never expires. */
  ttl: string;
  description?: string;
}

export const DEFAULT_TTL = '24h';

export async function createJoinToken(o: JoinTokenOptions, now = realClock.now()): Promise<string> {
  const { parseGoDuration } = await import('../../shared/go-duration.js');
  const { formatJoinToken, caFingerprint, newBootstrapToken } = await import('../../shared/join-token.js');
  const { bootstrapTokenSecret, JOIN_NAMESPACE } = await import('../../cloud/join/secrets.js');
  const { CA_CERT_FILE } = await import('../../cloud/apiserver/auth/credentials.js');
  const ttl = parseGoDuration(o.ttl);
  if (ttl === undefined || ttl < 0) throw new Error(`--ttl: "${o.ttl}" is not a duration such as 24h, 90m or 0 (never expires)`);
  const caFile = join(resolve(o.dataDir), CA_CERT_FILE);
  const caPem = await readFile(caFile, 'utf8').catch(() => {
    throw new Error(`no ${caFile} (the cloud's CA): is ${resolve(o.dataDir)} a cloud's data dir? start the cloud there once`);
  });
  const caHash = caFingerprint(caPem, caFile); // before the token exists: a CA file holding more than one certificate makes none
  const api = await cloudClient(o.dataDir);
  const { id, secret } = newBootstrapToken();
  const expires = ttl === 0 ? undefined : now + ttl;
  const description = o.description ?? (o.node ? `join token for node ${o.node}` : 'join token for any node');
  await api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, bootstrapTokenSecret({ id, secret, expires, node: o.node, description })).catch(explained(o.dataDir, 'refused the token'));
  const until = expires === undefined ? 'never expires' : `valid until ${new Date(expires).toISOString()}`;
  const forWhom = o.node ? `node ${o.node}` : 'any node name';
  const edge = `kedge edge --node ${o.node ?? '<name>'} --cloud https://<cloud address>:6443 --token <the token below>`;
  return `join token ${id} for ${forWhom}, ${until}; revoke it with: ${cliName()} token revoke ${id}${dataDirFlag(o.dataDir)}\non the edge: ${edge}\n${formatJoinToken({ caHash, id, secret })}\n`;
}

export async function listJoinTokens(dataDir: string, now = realClock.now()): Promise<string> {
  const { bootstrapTokenOf, nodeCredentialOf, JOIN_NAMESPACE } = await import('../../cloud/join/secrets.js');
  const api = await cloudClient(dataDir);
  const secrets = (await api.list<Secret>({ resource: 'secrets', namespace: JOIN_NAMESPACE }).catch(explained(dataDir, 'refused the list'))).items;
  const credentials = secrets.flatMap((s) => nodeCredentialOf(s) ?? []);
  const rows = secrets.flatMap((s) => bootstrapTokenOf(s) ?? []).map((t) => [
    t.id,
    t.node ?? '<any>',
    t.expires === undefined ? '<never>' : t.expires <= now ? `expired ${new Date(t.expires).toISOString()}` : new Date(t.expires).toISOString(),
    credentials.filter((c) => c.tokenId === t.id).map((c) => c.node).join(',') || '<none>',
  ]);
  if (rows.length === 0) return 'no join tokens\n';
  return textTable([['ID', 'NODE', 'EXPIRES', 'JOINED'], ...rows]) + '\n';
}

/** Deleting the token's Secret revokes it; the cloud then revokes every credential obtained with it. */
export async function revokeJoinToken(dataDir: string, id: string): Promise<string> {
  const { bootstrapTokenName, JOIN_NAMESPACE } = await import('../../cloud/join/secrets.js');
  const api = await cloudClient(dataDir);
  await api.delete({ resource: 'secrets', namespace: JOIN_NAMESPACE, name: bootstrapTokenName(id) }).catch((err: Error) => {
    if (isKedgeError(err, 'NotFound')) throw new Error(`no join token ${id} (kedge token list${dataDirFlag(dataDir)} shows them)`);
    return explained(dataDir, 'refused to revoke it')(err);
  });
  return `join token ${id} revoked; nodes that joined with it are disconnected and refused\n`;
}

const dataDirFlag = (dataDir: string): string => (dataDir === DEFAULT_DEMO_DATA_DIR ? '' : ` --data-dir ${dataDir}`);

/** A failed call to the cloud, told apart: it does not answer, or it answered no. */
function explained(dataDir: string, refused: string): (err: Error) => never {
  return (err) => {
    if (signedByAnotherCa(err)) throw anotherCloudError(dataDir, err.message);
    if (isKedgeError(err, 'Unavailable')) throw new Error(`the cloud of ${resolve(dataDir)} does not answer (${err.message}): is it running, and reachable from here?`);
    throw new Error(`the cloud of ${resolve(dataDir)} ${refused}: ${err.message}`);
  };
}
