import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { writePrivate } from '../../shared/private-file.js';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KedgeError } from '../../shared/errors.js';
import type { TokenEntry } from './authn.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { caUsable, certCovers, generateCa, generateServingCert, hasKeyIdentifiers, reissueCa, type ServingCert } from './tls-cert.js';

/**
 * The cloud's generated credentials, kept in `<dataDir>/tokens.json` (mode 0600):
 * - admin: the kubectl user (role admin), written into `<dataDir>/kubeconfig`;
 * - cloud: the in-process components' loopback token (user system:kedge-cloud, role admin);
 * - edge: the bootstrap token edges present to the MQTT broker;
 * - tokens: API tokens added later by `kedge token create` (optional; see token-file.ts).
 */
export interface Credentials {
  admin: string;
  cloud: string;
  edge: string;
}

export const ADMIN_USER = 'kedge-admin';
export const CLOUD_USER = 'system:kedge-cloud';
export const TOKENS_FILE = 'tokens.json';
export const KUBECONFIG_FILE = 'kubeconfig';
export const TLS_CERT_FILE = 'tls.crt';
export const TLS_KEY_FILE = 'tls.key';
/** The CA every client of the cloud trusts (kubeconfig, edges). */
export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export { LOOPBACK_HOSTS } from '../network.js';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Reads the stored tokens, or generates and stores them on first start. */
export async function loadOrCreateCredentials(dataDir: string): Promise<Credentials> {
  const existing = await readCredentials(dataDir);
  if (existing) return existing;
  const creds: Credentials = { admin: newToken(), cloud: newToken(), edge: newToken() };
  await mkdir(dataDir, { recursive: true });
  await writePrivate(join(dataDir, TOKENS_FILE), JSON.stringify(creds, null, 2) + '\n');
  return creds;
}

/** The stored tokens, or undefined when none were generated yet. */
export async function readCredentials(dataDir: string): Promise<Credentials | undefined> {
  let text: string;
  try {
    text = await readFile(join(dataDir, TOKENS_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  if (typeof parsed.admin !== 'string' || typeof parsed.cloud !== 'string' || typeof parsed.edge !== 'string') {
    throw new KedgeError('Internal', `${join(dataDir, TOKENS_FILE)} is damaged: expected admin, cloud and edge tokens`);
  }
  return { admin: parsed.admin, cloud: parsed.cloud, edge: parsed.edge };
}

/** The edge bootstrap token (for the MQTT broker's authentication). NotFound before the cloud's first start. */
export async function readEdgeBootstrapToken(dataDir: string): Promise<string> {
  const creds = await readCredentials(dataDir);
  if (!creds) throw new KedgeError('NotFound', `no credentials in ${dataDir}: start the cloud first`);
  return creds.edge;
}

/** Alias of readEdgeBootstrapToken (sim/demo.ts uses this name). */
export const readEdgeToken = readEdgeBootstrapToken;

/** The tokens the apiserver accepts: the admin user and the cloud's own components. */
export function apiTokens(creds: Credentials): TokenEntry[] {
  return [
    { token: creds.admin, user: ADMIN_USER, role: 'admin', groups: ['system:masters'] },
    { token: creds.cloud, user: CLOUD_USER, role: 'admin', groups: ['system:masters'] },
  ];
}

/**
 * A kubeconfig for `server` with a bearer token and context "kedge". With `caPem` (an https
 * server) clients verify the server against it; without, it sets insecure-skip-tls-verify so
 * that @kubernetes/client-node 1.x accepts an http:// server. Note: kubectl never sends a
 * token over plain http, so kubectl needs the https form.
 */
export function buildKubeconfig(server: string, token: string, caPem?: string, name = 'kedge', user = `${name}-admin`): Record<string, unknown> {
  const cluster = caPem ? { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } : { server, 'insecure-skip-tls-verify': true };
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name, context: { cluster: name, user, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
}

/** Writes `<dataDir>/kubeconfig` (YAML, mode 0600) and returns its path. */
export async function writeKubeconfig(dataDir: string, server: string, token: string, caPem?: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, KUBECONFIG_FILE);
  await writePrivate(path, stringify(buildKubeconfig(server, token, caPem)));
  return path;
}

/** The cloud's TLS material: its CA (what clients trust) and the serving certificate the CA signed. */
export interface CloudTls extends ServingCert {
  caPem: string;
}

/**
 * The CA from `<dataDir>/ca.crt` and `ca.key` (generated once, so join tokens that pin it stay
 * good) and the serving certificate from `tls.crt` and `tls.key`, issued again by the CA when
 * it no longer covers `hosts`, is about to expire, was not signed by this CA, or lacks what
 * strict verification asks for. A CA certificate made before kedge wrote key identifiers is
 * issued again with the same name and key (docs/operations.md says why).
 */
export async function loadOrCreateServingCert(dataDir: string, hosts: string[], now: number, logger: Logger = silentLogger): Promise<CloudTls> {
  await mkdir(dataDir, { recursive: true });
  const ca = await loadOrCreateCa(dataDir, now, logger);
  const serving = await loadOrCreate(dataDir, TLS_CERT_FILE, TLS_KEY_FILE, (c) => certCovers(c, hosts, now, ca.certPem), () =>
    generateServingCert({ commonName: 'kedge-cloud', hosts, now, issuer: ca }),
  );
  return { ...serving, caPem: ca.certPem };
}

async function loadOrCreateCa(dataDir: string, now: number, logger: Logger): Promise<ServingCert> {
  const existing = await readPair(dataDir, CA_CERT_FILE, CA_KEY_FILE);
  if (existing && caUsable(existing, now) && hasKeyIdentifiers(existing.certPem)) return existing;
  const kept = existing && caUsable(existing, now);
  const ca = kept ? reissueCa(existing, now) : generateCa({ commonName: 'kedge-ca', now });
  await writePair(dataDir, CA_CERT_FILE, CA_KEY_FILE, ca);
  if (kept) {
    logger.warn(
      'issued the CA certificate again, same name and key, with the key identifiers strict verification asks for: joined edges and kubeconfigs keep trusting the cloud; join tokens made before pin the old certificate: make new ones',
      { ca: join(dataDir, CA_CERT_FILE) },
    );
  }
  return ca;
}

async function loadOrCreate(dataDir: string, certFile: string, keyFile: string, usable: (c: ServingCert) => boolean, create: () => ServingCert): Promise<ServingCert> {
  const existing = await readPair(dataDir, certFile, keyFile);
  if (existing && usable(existing)) return existing;
  const cert = create();
  await writePair(dataDir, certFile, keyFile, cert);
  return cert;
}

async function readPair(dataDir: string, certFile: string, keyFile: string): Promise<ServingCert | undefined> {
  const read = await Promise.all([readFile(join(dataDir, certFile), 'utf8'), readFile(join(dataDir, keyFile), 'utf8')]).catch(() => undefined);
  return read && { certPem: read[0], keyPem: read[1] };
}

async function writePair(dataDir: string, certFile: string, keyFile: string, cert: ServingCert): Promise<void> {
  await writePrivate(join(dataDir, keyFile), cert.keyPem);
  await writePrivate(join(dataDir, certFile), cert.certPem);
}

export { writePrivate } from '../../shared/private-file.js';
