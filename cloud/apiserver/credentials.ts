import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KedgeError } from '../../shared/errors.js';
import type { TokenEntry } from './authn.js';
import { certCovers, generateServingCert, type ServingCert } from './tls-cert.js';

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
/** What the serving certificate covers by default. */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

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

/**
 * The apiserver's serving certificate from `<dataDir>/tls.crt` and `tls.key`, generated (or
 * regenerated, when it no longer covers `hosts` or is about to expire) as needed.
 */
export async function loadOrCreateServingCert(dataDir: string, hosts: string[], now: number): Promise<ServingCert> {
  const certPath = join(dataDir, TLS_CERT_FILE);
  const keyPath = join(dataDir, TLS_KEY_FILE);
  const existing = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]).catch(() => undefined);
  if (existing) {
    const cert = { certPem: existing[0], keyPem: existing[1] };
    if (certCovers(cert, hosts, now)) return cert;
  }
  const cert = generateServingCert({ commonName: 'kedge-apiserver', hosts, now });
  await mkdir(dataDir, { recursive: true });
  await writePrivate(keyPath, cert.keyPem);
  await writePrivate(certPath, cert.certPem);
  return cert;
}

/** Writes via a temporary file, fsynced, and a rename, so a crash leaves the old file or the whole new one; mode 0600. */
export async function writePrivate(path: string, content: string): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const file = await open(tmp, 'w', 0o600);
  try {
    await file.writeFile(content);
    await file.chmod(0o600); // whatever the umask made of the mode
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path).catch(async (err: unknown) => {
    await rm(tmp, { force: true });
    throw err;
  });
}
