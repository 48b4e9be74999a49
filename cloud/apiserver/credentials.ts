import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { writePrivate } from '../../shared/private-file.js';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KedgeError } from '../../shared/errors.js';
import type { TokenEntry } from './authn.js';
import { caUsable, certCovers, generateCa, generateServingCert, type ServingCert } from './tls-cert.js';

/**
 * The cloud's generated credentials, kept in `<dataDir>/tokens.json` (mode 0600), each for one
 * job only:
 * - admin: the kubectl user (role admin), written into `<dataDir>/kubeconfig`;
 * - cloud: the in-process components' loopback API token (user system:kedge-cloud, role
 *   admin); the broker refuses it;
 * - hub: the cloud hub's broker password (MQTT user kedge-cloud); the API refuses it;
 * - edge: the shared token edges on the cloud's machine present to the broker;
 * - tokens: API tokens added later by `kedge token create` (optional; see token-file.ts).
 */
export interface Credentials {
  admin: string;
  cloud: string;
  hub: string;
  edge: string;
}

/** tokens.json as a cloud older than the hub's own password wrote it. */
export type StoredCredentials = Omit<Credentials, 'hub'> & { hub?: string };

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

/**
 * Reads the stored tokens, or generates and stores them on first start. A file written before
 * the hub had a password of its own gains one (everything else in it kept).
 */
export async function loadOrCreateCredentials(dataDir: string): Promise<Credentials> {
  const path = join(dataDir, TOKENS_FILE);
  const file = await readTokensJson(path);
  if (file) {
    const existing = credentialsIn(file, path);
    if (existing.hub !== undefined) return { ...existing, hub: existing.hub };
    const hub = newToken();
    await writePrivate(path, JSON.stringify({ ...file, hub }, null, 2) + '\n');
    return { ...existing, hub };
  }
  const creds: Credentials = { admin: newToken(), cloud: newToken(), hub: newToken(), edge: newToken() };
  await mkdir(dataDir, { recursive: true });
  await writePrivate(path, JSON.stringify(creds, null, 2) + '\n');
  return creds;
}

/** The stored tokens, or undefined when none were generated yet. */
export async function readCredentials(dataDir: string): Promise<StoredCredentials | undefined> {
  const path = join(dataDir, TOKENS_FILE);
  const file = await readTokensJson(path);
  return file && credentialsIn(file, path);
}

async function readTokensJson(path: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as Record<string, unknown>;
}

function credentialsIn(parsed: Partial<Record<keyof Credentials, unknown>>, path: string): StoredCredentials {
  const { admin, cloud, hub, edge } = parsed;
  if (typeof admin !== 'string' || typeof cloud !== 'string' || typeof edge !== 'string' || (hub !== undefined && typeof hub !== 'string')) {
    throw new KedgeError('Internal', `${path} is damaged: expected admin, cloud, hub and edge tokens`);
  }
  return { admin, cloud, edge, ...(hub !== undefined && { hub }) };
}

/** The edge bootstrap token (for the MQTT broker's authentication). NotFound before the cloud's first start. */
export async function readEdgeBootstrapToken(dataDir: string): Promise<string> {
  const creds = await readCredentials(dataDir);
  if (!creds) throw new KedgeError('NotFound', `no credentials in ${dataDir}: start the cloud first`);
  return creds.edge;
}

/** Alias of readEdgeBootstrapToken (sim/demo.ts uses this name). */
export const readEdgeToken = readEdgeBootstrapToken;

/** The tokens the apiserver accepts: the admin user and the cloud's own components (not the hub's broker password). */
export function apiTokens(creds: Pick<Credentials, 'admin' | 'cloud'>): TokenEntry[] {
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
 * it no longer covers `hosts`, is about to expire, or was not signed by this CA.
 */
export async function loadOrCreateServingCert(dataDir: string, hosts: string[], now: number): Promise<CloudTls> {
  await mkdir(dataDir, { recursive: true });
  const ca = await loadOrCreate(dataDir, CA_CERT_FILE, CA_KEY_FILE, (c) => caUsable(c, now), () => generateCa({ commonName: 'kedge-ca', now }));
  const serving = await loadOrCreate(dataDir, TLS_CERT_FILE, TLS_KEY_FILE, (c) => certCovers(c, hosts, now, ca.certPem), () =>
    generateServingCert({ commonName: 'kedge-cloud', hosts, now, issuer: ca }),
  );
  return { ...serving, caPem: ca.certPem };
}

async function loadOrCreate(dataDir: string, certFile: string, keyFile: string, usable: (c: ServingCert) => boolean, create: () => ServingCert): Promise<ServingCert> {
  const [certPath, keyPath] = [join(dataDir, certFile), join(dataDir, keyFile)];
  const existing = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]).catch(() => undefined);
  if (existing && usable({ certPem: existing[0], keyPem: existing[1] })) return { certPem: existing[0], keyPem: existing[1] };
  const cert = create();
  await writePrivate(keyPath, cert.keyPem);
  await writePrivate(certPath, cert.certPem);
  return cert;
}

export { writePrivate } from '../../shared/private-file.js';
