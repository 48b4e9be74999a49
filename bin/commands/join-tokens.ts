import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cloudClient } from '../cloud-request.js';
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
  const { parseGoDuration } = await import('../../cloud/controllers/node-lifecycle/go-duration.js');
  const { formatJoinToken, caFingerprint, newBootstrapToken } = await import('../../shared/join-token.js');
  const { bootstrapTokenSecret, JOIN_NAMESPACE } = await import('../../cloud/join/secrets.js');
  const { CA_CERT_FILE } = await import('../../cloud/apiserver/credentials.js');
  const errors = await import('../../shared/errors.js');
  const ttl = parseGoDuration(o.ttl);
  if (ttl === undefined || ttl < 0) throw new Error(`--ttl: "${o.ttl}" is not a duration such as 24h, 90m or 0 (never expires)`);
  const caPem = await readFile(join(o.dataDir, CA_CERT_FILE), 'utf8').catch(() => {
    throw new Error(`no ${join(o.dataDir, CA_CERT_FILE)} (the cloud's CA): is ${o.dataDir} a cloud's data dir? start the cloud there once`);
  });
  const api = await cloudClient(o.dataDir);
  const { id, secret } = newBootstrapToken();
  const expires = ttl === 0 ? undefined : now + ttl;
  const description = o.description ?? (o.node ? `join token for node ${o.node}` : 'join token for any node');
  await api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, bootstrapTokenSecret({ id, secret, expires, node: o.node, description })).catch((err: Error) => {
    const { isKedgeError } = errors;
    throw new Error(isKedgeError(err, 'Unavailable') ? `the cloud of ${o.dataDir} does not answer (${err.message}): is it running, and reachable from here?` : `the cloud of ${o.dataDir} refused the token: ${err.message}`);
  });
  const until = expires === undefined ? 'never expires' : `valid until ${new Date(expires).toISOString()}`;
  const forWhom = o.node ? `node ${o.node}` : 'any node name';
  const edge = `kedge edge --node ${o.node ?? '<name>'} --cloud https://<cloud address>:6443 --token <the token below>`;
  return `join token ${id} for ${forWhom}, ${until}; revoke it with: kedge token revoke ${id}\non the edge: ${edge}\n${formatJoinToken({ caHash: caFingerprint(caPem), id, secret })}\n`;
}

export async function listJoinTokens(dataDir: string, now = realClock.now()): Promise<string> {
  const { bootstrapTokenOf, nodeCredentialOf, JOIN_NAMESPACE } = await import('../../cloud/join/secrets.js');
  const api = await cloudClient(dataDir);
  const secrets = (await api.list<import('../../shared/config-types.js').Secret>({ resource: 'secrets', namespace: JOIN_NAMESPACE })).items;
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
    throw new Error(/not found/i.test(err.message) ? `no join token ${id} (kedge token list shows them)` : err.message);
  });
  return `join token ${id} revoked; nodes that joined with it are disconnected and refused\n`;
}
