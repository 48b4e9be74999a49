import { join } from 'node:path';
import { silentLogger, type Logger } from '../../../shared/log.js';
import { makePrivateDir, writePrivate } from '../../../shared/private-file.js';
import { loadOrCreateCa, loadOrCreateCredentials, readCaFiles, writeCaFiles, type Credentials } from './credentials.js';
import type { ServingCert } from './tls-cert.js';
import { readTokensFile, TOKENS_FILE, tokensFileText, type TokensFile } from './tokens-document.js';

/**
 * What every cloud of one cluster serves alike: the generated credentials (tokens.json) and
 * the CA (ca.crt, ca.key). Each cloud's serving certificate is its own, signed by this CA.
 */
export interface ClusterIdentity {
  credentials: Credentials;
  ca: ServingCert;
}

/** The data dir's own credentials and CA, made on its first start (as a single cloud always did). */
export async function loadOrCreateLocalIdentity(dataDir: string, now: number, logger: Logger): Promise<ClusterIdentity> {
  const credentials = await loadOrCreateCredentials(dataDir, logger);
  await makePrivateDir(dataDir);
  return { credentials, ca: await loadOrCreateCa(dataDir, now, logger) };
}

/** What writing the cluster's identity into a data dir found there. */
export type MirrorResult = 'same' | 'new' | 'replaced';

/**
 * Writes the cluster's identity into the data dir where it differs, so that the kubeconfig,
 * `kedge token create` and the join tokens it prints keep reading these files. The API tokens
 * added with `kedge token create` stay. Each file is written whole (a cut leaves the old or the
 * new one, and the next start writes again from the store); tokens first, then the CA's key and
 * certificate.
 */
export async function mirrorIdentity(dataDir: string, identity: ClusterIdentity): Promise<MirrorResult> {
  await makePrivateDir(dataDir);
  // A damaged tokens.json is replaced from the store: its WARN would only alarm.
  const read = await readTokensFile(dataDir, silentLogger).catch(() => ({ value: undefined, problem: 'unreadable' }));
  const local = read.value;
  const ca = await readCaFiles(dataDir);
  const sameTokens = local !== undefined && sameCredentials(local, identity.credentials);
  const sameCa = ca.certPem === identity.ca.certPem && ca.keyPem === identity.ca.keyPem;
  if (sameTokens && sameCa) return 'same';
  if (!sameTokens) {
    const file: TokensFile = { ...identity.credentials, ...(local?.tokens ? { tokens: local.tokens } : {}) };
    await writePrivate(join(dataDir, TOKENS_FILE), tokensFileText(file), { keepPrevious: read.problem === undefined && local !== undefined });
  }
  if (!sameCa) await writeCaFiles(dataDir, identity.ca);
  return local === undefined && ca.certPem === '' ? 'new' : 'replaced';
}

const sameCredentials = (a: TokensFile, b: Credentials): boolean => a.admin === b.admin && a.cloud === b.cloud && a.hub === b.hub && a.edge === b.edge;
