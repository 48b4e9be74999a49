import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { KedgeError } from '../../../shared/errors.js';
import { silentLogger, type Logger } from '../../../shared/log.js';
import { makePrivateDir, writePrivate } from '../../../shared/private-file.js';
import type { TokenEntry } from './authn.js';
import { readTokensFile, TOKENS_FILE, tokensFileText, type TokensFile } from './tokens-document.js';
import { caUsable, certCovers, generateCa, generateServingCert, hasKeyIdentifiers, reissueCa, type ServingCert } from './tls-cert.js';

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

/** The generated credentials in tokens.json (without `hub` as a cloud older than the hub's own password wrote it). */
export type StoredCredentials = Omit<TokensFile, 'tokens'>;

export const ADMIN_USER = 'kedge-admin';
export const CLOUD_USER = 'system:kedge-cloud';
export { TOKENS_FILE } from './tokens-document.js';
export const KUBECONFIG_FILE = 'kubeconfig';
export const TLS_CERT_FILE = 'tls.crt';
export const TLS_KEY_FILE = 'tls.key';
/** The CA every client of the cloud trusts (kubeconfig, edges). */
export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export { LOOPBACK_HOSTS } from '../../network.js';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Reads the stored tokens, or generates and stores them on first start (never over a damaged
 * file). A file written before the hub had a password of its own gains one (everything else
 * in it kept).
 */
export async function loadOrCreateCredentials(dataDir: string, logger: Logger = silentLogger): Promise<Credentials> {
  const path = join(dataDir, TOKENS_FILE);
  const { value: stored, problem } = await readTokensFile(dataDir, logger);
  if (stored?.hub !== undefined) return { ...credentialsIn(stored), hub: stored.hub };
  const creds: Credentials = stored ? { ...credentialsIn(stored), hub: newToken() } : { admin: newToken(), cloud: newToken(), hub: newToken(), edge: newToken() };
  await makePrivateDir(dataDir);
  // A damaged file is replaced, not kept as the last good copy.
  await writePrivate(path, tokensFileText({ ...stored, ...creds }), { keepPrevious: problem === undefined });
  return creds;
}

/**
 * The stored tokens, or undefined when none were generated yet. A damaged tokens.json falls
 * back to its last good copy (with a WARN); with none, this throws: new tokens would lock out
 * every kubeconfig, token and edge given the old ones.
 */
export async function readCredentials(dataDir: string, logger: Logger = silentLogger): Promise<StoredCredentials | undefined> {
  const { value } = await readTokensFile(dataDir, logger);
  return value && credentialsIn(value);
}

const credentialsIn = ({ admin, cloud, hub, edge }: StoredCredentials): StoredCredentials => ({ admin, cloud, edge, ...(hub !== undefined && { hub }) });

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
  await makePrivateDir(dataDir);
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
 * good; again only when it expires within a year; never over a damaged one) and the serving
 * certificate from `tls.crt` and `tls.key`, issued again by the CA when it no longer covers
 * `hosts`, is about to expire, was not signed by this CA, is damaged, or lacks what strict
 * verification asks for.
 */
export async function loadOrCreateServingCert(dataDir: string, hosts: string[], now: number, logger: Logger = silentLogger, clusterCa?: ServingCert): Promise<CloudTls> {
  await makePrivateDir(dataDir);
  // With several clouds, the cluster's CA (from the store) signs each one's certificate.
  const ca = clusterCa ?? (await loadOrCreateCa(dataDir, now, logger));
  const { pair } = await readPair(dataDir, TLS_CERT_FILE, TLS_KEY_FILE);
  if (certCovers(pair, hosts, now, ca.certPem)) return { ...pair, caPem: ca.certPem };
  const serving = generateServingCert({ commonName: 'kedge-cloud', hosts, now, issuer: ca });
  await writePair(dataDir, TLS_CERT_FILE, TLS_KEY_FILE, serving);
  return { ...serving, caPem: ca.certPem };
}

/**
 * The CA, kept while usable. One made before kedge wrote key identifiers is issued again with
 * the same name and key (docs/operations.md says why); one that is there but damaged is never
 * replaced silently: a new CA would void every join token.
 */
export async function loadOrCreateCa(dataDir: string, now: number, logger: Logger): Promise<ServingCert> {
  const { pair, found } = await readPair(dataDir, CA_CERT_FILE, CA_KEY_FILE);
  const usable = caUsable(pair, now);
  if (usable && hasKeyIdentifiers(pair.certPem)) return pair;
  // Intact: usable at some time (it merely expires).
  if (!usable && found && !caUsable(pair, Number.NEGATIVE_INFINITY)) throw lostCa(dataDir);
  const ca = usable ? reissueCa(pair, now) : generateCa({ commonName: 'kedge-ca', now });
  await writePair(dataDir, CA_CERT_FILE, CA_KEY_FILE, ca);
  if (!found) logger.warn(`no CA in ${resolve(dataDir)}: created a new one (join tokens made for another data dir will not work)`);
  if (usable) {
    logger.warn(
      'issued the CA certificate again, same name and key, with the key identifiers strict verification asks for: joined edges and kubeconfigs keep trusting the cloud; join tokens made before pin the old certificate: make new ones',
      { ca: join(dataDir, CA_CERT_FILE) },
    );
  }
  return ca;
}

/** `<dataDir>/ca.crt` and `ca.key` as they are (empty strings for a missing file). */
export async function readCaFiles(dataDir: string): Promise<ServingCert> {
  return (await readPair(dataDir, CA_CERT_FILE, CA_KEY_FILE)).pair;
}

/** Writes `<dataDir>/ca.key` then `ca.crt`. */
export const writeCaFiles = (dataDir: string, ca: ServingCert): Promise<void> => writePair(dataDir, CA_CERT_FILE, CA_KEY_FILE, ca);

/** A certificate and its key as read (empty strings for a missing file), and whether either file was there. */
async function readPair(dataDir: string, certFile: string, keyFile: string): Promise<{ pair: ServingCert; found: boolean }> {
  const [certPem, keyPem] = await Promise.all([certFile, keyFile].map((file) => readFile(join(dataDir, file), 'utf8').catch(() => undefined)));
  return { pair: { certPem: certPem ?? '', keyPem: keyPem ?? '' }, found: certPem !== undefined || keyPem !== undefined };
}

async function writePair(dataDir: string, certFile: string, keyFile: string, cert: ServingCert): Promise<void> {
  await writePrivate(join(dataDir, keyFile), cert.keyPem);
  await writePrivate(join(dataDir, certFile), cert.certPem);
}

function lostCa(dataDir: string): KedgeError {
  const [cert, key] = [join(dataDir, CA_CERT_FILE), join(dataDir, CA_KEY_FILE)];
  return new KedgeError(
    'Internal',
    `${cert} and ${key} do not hold a CA and its key (one is missing or damaged). A new CA would void every join token and cut off ` +
      `every edge, so none is made: restore both from a backup of ${dataDir}, or remove both to make a new CA (every edge then joins again)`,
  );
}

export { writePrivate } from '../../../shared/private-file.js';
