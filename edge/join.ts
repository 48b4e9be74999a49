import { request } from 'node:https';
import { join } from 'node:path';
import { brokerUrls } from '../shared/broker-urls.js';
import { isKedgeError, KedgeError } from '../shared/errors.js';
import { parseJoinToken, pinnedCa, type JoinToken } from '../shared/join-token.js';
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
  /** The broker, or with several clouds every cloud's broker, comma-separated (tried in turn). */
  brokerUrl: string;
  caPem: string;
}

export const CREDENTIAL_FILE = 'credential.json';
const parseCredential = jsonDocument<EdgeCredential>({ cloud: 'string', node: 'string', tokenId: 'string', password: 'string', brokerUrl: 'string', caPem: 'string' });
const CA_PATH = '/cacerts';
const JOIN_PATH = '/kedge/v1/join';
/** Far more than a CA certificate or a credential: an answer beyond it is not a kedge cloud's. */
const MAX_ANSWER_BYTES = 64 * 1024;

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
 * Joins the cloud once, as k3s agents do: downloads the CA, trusts it only if it is one
 * certificate whose fingerprint is the token's, then presents the token over TLS checked
 * against that one certificate and keeps the node credential it gets. Later starts with the
 * same token reuse the credential, once it is checked against the token again.
 */
export async function joinCloud(o: JoinOptions): Promise<EdgeCredential> {
  const token = parseJoinToken(o.token);
  const path = join(o.dataDir, CREDENTIAL_FILE);
  const kept = await readRecovering(path, { parse: parseCredential, logger: o.logger, otherwise: 'joining the cloud again with the token' });
  const reuse = keptCredential(kept.value, path, o, token);
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
  const { password, brokerUrl } = credentialIn(answer);
  o.logger.info('joined the cloud', { cloud: o.cloudUrl, broker: brokerUrl });
  return { cloud: o.cloudUrl, node: o.node, tokenId: token.id, password, brokerUrl, caPem };
}

/** The credential kept from an earlier join with this token, if it still trusts only the CA the token pins. */
function keptCredential(kept: EdgeCredential | undefined, path: string, o: JoinOptions, token: JoinToken): EdgeCredential | undefined {
  if (!kept || kept.cloud !== o.cloudUrl || kept.node !== o.node || kept.tokenId !== token.id) return undefined;
  try {
    return { ...kept, caPem: pinnedCa(kept.caPem, token.caHash, path) };
  } catch (err) {
    o.logger.warn(`${path} trusts more than the one CA the token pins: joining again`, { error: (err as Error).message });
    return undefined;
  }
}

async function fetchPinnedCa(cloudUrl: string, token: JoinToken): Promise<string> {
  // Not verified yet, on purpose: the fingerprint in the token is what makes it trusted.
  const answer = await call(cloudUrl, CA_PATH, { method: 'GET', ca: undefined });
  try {
    return pinnedCa(answer, token.caHash, `${cloudUrl}${CA_PATH}`);
  } catch (err) {
    const hint = isKedgeError(err, 'Forbidden') ? 'another cloud, or something in between; the token was not sent' : 'is this a kedge cloud?';
    throw new KedgeError(isKedgeError(err, 'Forbidden') ? 'Forbidden' : 'Invalid', `${(err as Error).message}: ${hint}`);
  }
}

/** The password and broker URL of the cloud's answer to a join. */
function credentialIn(answer: string): { password: string; brokerUrl: string } {
  let parsed: { password?: unknown; brokerUrl?: unknown } | undefined;
  try {
    parsed = JSON.parse(answer) as typeof parsed;
  } catch {
    // told below
  }
  const { password, brokerUrl } = parsed ?? {};
  if (typeof password !== 'string' || typeof brokerUrl !== 'string' || !isBrokerList(brokerUrl)) {
    throw new KedgeError('Internal', `the cloud answered the join without a credential and an mqtt:// or mqtts:// broker: ${answer.slice(0, 200)}`);
  }
  return { password, brokerUrl };
}

/** mqtt:// or mqtts:// URLs, one or a cluster's comma-separated. */
function isBrokerList(value: string): boolean {
  try {
    return brokerUrls(value).length > 0;
  } catch {
    return false;
  }
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
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.destroy();
        return reject(new KedgeError('Forbidden', `${url.href} answered ${status}, a redirect to ${res.headers.location ?? 'nowhere'}: not followed (give --cloud the address the cloud itself answers at)`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_ANSWER_BYTES) return void chunks.push(c);
        res.destroy();
        reject(new KedgeError('TooLarge', `${url.href} answered with more than ${MAX_ANSWER_BYTES / 1024} KiB: not a kedge cloud's answer`));
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (status < 300) return resolve(text);
        reject(new KedgeError(status === 403 ? 'Forbidden' : status === 401 ? 'Unauthorized' : 'Internal', `${url.href}: ${status} ${statusMessage(text)}`));
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
