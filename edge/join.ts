import { request } from 'node:https';
import { join } from 'node:path';
import { KedgeError } from '../shared/errors.js';
import { caFingerprint, parseJoinToken, type JoinToken } from '../shared/join-token.js';
import type { Logger } from '../shared/log.js';
import { makePrivateDir, writePrivate } from '../shared/private-file.js';
import { jsonDocument, readRecovering } from '../shared/recovering-read.js';

/** What an edge keeps after joining (`<data dir>/credential.json`, mode 0600). */
export interface EdgeCredential {
  cloud: string;
  node: string;
  /** The id of the join token it was obtained with: another token means joining again. */
  tokenId: string;
  password: string;
  brokerUrl: string;
  caPem: string;
}

export const CREDENTIAL_FILE = 'credential.json';
const parseCredential = jsonDocument<EdgeCredential>({ cloud: 'string', node: 'string', tokenId: 'string', password: 'string', brokerUrl: 'string', caPem: 'string' });
const CA_PATH = '/cacerts';
const JOIN_PATH = '/kedge/v1/join';

export interface JoinOptions {
  /** e.g. https://10.0.0.1:6443 */
  cloudUrl: string;
  /** K10<CA fingerprint>::<id>.<secret> (kedge token create --node). */
  token: string;
  node: string;
  dataDir: string;
  logger: Logger;
}

/**
 * Joins the cloud once, as k3s agents do: downloads the CA, trusts it only if its fingerprint
 * is the token's, then presents the token over TLS checked against that CA and keeps the node
 * credential it gets. Later starts with the same token reuse the credential.
 */
export async function joinCloud(o: JoinOptions): Promise<EdgeCredential> {
  const token = parseJoinToken(o.token);
  const path = join(o.dataDir, CREDENTIAL_FILE);
  const kept = await readRecovering(path, { parse: parseCredential, logger: o.logger, otherwise: 'joining the cloud again with the token' });
  const reuse = kept.value && kept.value.cloud === o.cloudUrl && kept.value.node === o.node && kept.value.tokenId === token.id ? kept.value : undefined;
  if (reuse && kept.problem === undefined) return reuse;
  const credential = reuse ?? (await requestCredential(o, token));
  await makePrivateDir(o.dataDir);
  // A damaged file is replaced, not kept as the last good copy.
  await writePrivate(path, JSON.stringify(credential, null, 2) + '\n', { keepPrevious: kept.problem === undefined });
  return credential;
}

async function requestCredential(o: JoinOptions, token: JoinToken): Promise<EdgeCredential> {
  const caPem = await fetchPinnedCa(o.cloudUrl, token);
  const answer = await call(o.cloudUrl, JOIN_PATH, { method: 'POST', ca: caPem, bearer: `${token.id}.${token.secret}`, body: JSON.stringify({ node: o.node }) });
  const { password, brokerUrl } = JSON.parse(answer) as { password?: unknown; brokerUrl?: unknown };
  if (typeof password !== 'string' || typeof brokerUrl !== 'string') throw new KedgeError('Internal', `the cloud answered the join without a credential: ${answer.slice(0, 200)}`);
  o.logger.info('joined the cloud', { cloud: o.cloudUrl, broker: brokerUrl });
  return { cloud: o.cloudUrl, node: o.node, tokenId: token.id, password, brokerUrl, caPem };
}

async function fetchPinnedCa(cloudUrl: string, token: JoinToken): Promise<string> {
  // Not verified yet, on purpose: the fingerprint in the token is what makes it trusted.
  const caPem = await call(cloudUrl, CA_PATH, { method: 'GET', ca: undefined });
  let fingerprint: string;
  try {
    fingerprint = caFingerprint(caPem);
  } catch {
    throw new KedgeError('Invalid', `${cloudUrl}${CA_PATH} did not answer with a certificate: is this a kedge cloud?`);
  }
  if (fingerprint !== token.caHash) {
    throw new KedgeError('Forbidden', `the CA of ${cloudUrl} (sha256 ${fingerprint}) is not the one the token pins (${token.caHash}): another cloud, or something in between`);
  }
  return caPem;
}


interface CallOptions {
  method: 'GET' | 'POST';
  /** The CA to verify the cloud against; undefined: no verification. */
  ca: string | undefined;
  bearer?: string;
  body?: string;
}

function call(cloudUrl: string, path: string, o: CallOptions): Promise<string> {
  const url = new URL(path, cloudUrl);
  if (url.protocol !== 'https:') return Promise.reject(new KedgeError('Invalid', `--cloud must be an https:// URL, got ${cloudUrl}`));
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: o.method,
      timeout: 15_000,
      ...(o.ca ? { ca: o.ca } : { rejectUnauthorized: false }),
      headers: { ...(o.bearer ? { authorization: `Bearer ${o.bearer}` } : {}), ...(o.body ? { 'content-type': 'application/json' } : {}) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 300) return resolve(text);
        reject(new KedgeError(res.statusCode === 403 ? 'Forbidden' : res.statusCode === 401 ? 'Unauthorized' : 'Internal', `${url.href}: ${res.statusCode} ${statusMessage(text)}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', (err) => {
      const hint = /altnames/.test(err.message) ? ` (the cloud's certificate does not name ${url.hostname}: start the cloud with --tls-san ${url.hostname})` : '';
      reject(new KedgeError('Unavailable', `cannot reach ${url.origin}: ${err.message}${hint}`));
    });
    req.end(o.body);
  });
}

function statusMessage(text: string): string {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text;
  }
}
