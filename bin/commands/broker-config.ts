import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import type { Secret } from '../../shared/config-types.js';
import { isValidNodeName } from '../../shared/protocol/topics.js';
import { cliName } from '../../shared/cli-name.js';
import { requestAs, runningCloud } from '../cloud-request.js';
import { numberIn } from '../options.js';
import { printOrFail } from '../print-or-fail.js';
import { requireEveryOption } from '../required-options.js';

export interface NodePassword {
  node: string;
  password: string;
}

export interface MosquittoConfigOptions {
  /** The cloud's data dir: its tokens.json, and the kubeconfig that names the running cloud. */
  dataDir: string;
  /** Where passwd, acl and mosquitto.conf go (made if missing). */
  out: string;
  port: number;
  host: string;
  /** Nodes added with a plaintext password, hashed here; they replace a joined node's credential. */
  nodes: readonly NodePassword[];
}

export interface MosquittoConfigResult {
  files: { passwd: string; acl: string; conf: string };
  /** Every username in the password file, kedge-cloud first. */
  users: string[];
}

export const MOSQUITTO_FILES = { passwd: 'passwd', acl: 'acl', conf: 'mosquitto.conf' } as const;

/** `--node name:password`, repeatable. */
export function nodePassword(value: string, previous: NodePassword[] = []): NodePassword[] {
  const colon = value.indexOf(':');
  const node = colon < 0 ? value : value.slice(0, colon);
  const password = colon < 0 ? '' : value.slice(colon + 1);
  if (!isValidNodeName(node)) {
    throw new InvalidArgumentError(`"${node}" is not a node name (lower-case letters, digits, '-' and '.'; not ${CLOUD_USERNAME} or ${CLOUD_USERNAME}-…).`);
  }
  if (password === '') throw new InvalidArgumentError(`expected <name>:<password>, got "${value}".`);
  return [...previous, { node, password }];
}

/** The node credentials the running cloud of `dataDir` holds; undefined when no cloud answers there. */
async function joinedNodes(dataDir: string): Promise<{ node: string; passwordHash: string }[] | undefined> {
  const { JOIN_NAMESPACE, nodeCredentialOf } = await import('../../cloud/join/secrets.js');
  const access = await runningCloud(dataDir);
  if (!access) return undefined;
  const list = (await requestAs(access, 'GET', `/api/v1/namespaces/${JOIN_NAMESPACE}/secrets`)) as { items?: Secret[] };
  return (list.items ?? []).flatMap((secret) => nodeCredentialOf(secret) ?? []);
}

/**
 * Writes passwd (mode 0600), acl and mosquitto.conf for Mosquitto as the broker of the cloud
 * of `dataDir`: kedge-cloud with the hub's broker password, every node that joined the
 * running cloud, and the `nodes` given. Problems worth knowing go to `warn`.
 */
export async function writeMosquittoConfig(o: MosquittoConfigOptions, warn: (line: string) => void): Promise<MosquittoConfigResult> {
  const { loadOrCreateCredentials, readCredentials } = await import('../../cloud/apiserver/auth/credentials.js');
  const { writePrivate } = await import('../../shared/private-file.js');
  const { hashPassword } = await import('../../cloud/hub/password-hash.js');
  const { mosquittoAclFile, mosquittoConf, mosquittoPasswordFile } = await import('../../cloud/hub/mosquitto-config.js');

  if (!(await readCredentials(o.dataDir))) warn(`no credentials in ${o.dataDir} yet: generated them (tokens.json), as the cloud does at its first start`);
  const credentials = await loadOrCreateCredentials(o.dataDir);
  const hashes = new Map([[CLOUD_USERNAME, hashPassword(credentials.hub)]]);
  const joined = await joinedNodes(o.dataDir);
  if (!joined) warn(`no cloud answers for ${o.dataDir}: the password file holds ${CLOUD_USERNAME}${o.nodes.length ? ' and the --node users' : ''} only; run this again while the cloud runs to add the nodes that joined it`);
  for (const { node, passwordHash } of joined ?? []) {
    if (!isValidNodeName(node)) warn(`left out the credential of "${node}": not a name a node may have`);
    else hashes.set(node, passwordHash);
  }
  for (const { node, password } of o.nodes) {
    if (joined?.some((c) => c.node === node)) warn(`--node ${node} replaces the credential ${node} got when it joined`);
    hashes.set(node, hashPassword(password));
  }

  const out = resolve(o.out);
  const files = { passwd: join(out, MOSQUITTO_FILES.passwd), acl: join(out, MOSQUITTO_FILES.acl), conf: join(out, MOSQUITTO_FILES.conf) };
  const users = [...hashes.keys()];
  const passwd = mosquittoPasswordFile(users.map((username) => ({ username, passwordHash: hashes.get(username)! })));
  const conf = mosquittoConf({ port: o.port, host: o.host, passwordFile: files.passwd, aclFile: files.acl });
  await mkdir(out, { recursive: true });
  // Mosquitto started as root reads the file as the mosquitto user: a new file keeps the owner the old one was given.
  const owner = await stat(files.passwd).then((st) => ({ uid: st.uid, gid: st.gid }), () => undefined);
  await writePrivate(files.passwd, passwd);
  if (owner) await chown(files.passwd, owner.uid, owner.gid);
  for (const [path, text] of [[files.acl, mosquittoAclFile()], [files.conf, conf]] as const) {
    await writePrivate(path, text); // whole or not at all: Mosquitto re-reads them on SIGHUP
    await chmod(path, 0o644);
  }
  return { files, users };
}

function summary(r: MosquittoConfigResult, o: MosquittoConfigOptions): string {
  const host = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host;
  return [
    `wrote ${r.files.passwd} (${r.users.length} user${r.users.length === 1 ? '' : 's'}: ${r.users.join(', ')}), ${r.files.acl} and ${r.files.conf}`,
    `start the broker:  mosquitto -c ${r.files.conf}`,
    `then the cloud:    ${cliName()} cloud --data-dir ${o.dataDir} --broker mqtt://${host.includes(':') ? `[${host}]` : host}:${o.port}`,
    '',
  ].join('\n');
}

function mosquittoCommand(): Command {
  const command = new Command('mosquitto')
    .description("Write a password file, an ACL file and a mosquitto.conf that let Mosquitto serve as the cloud's broker, with each node kept to its own topics")
    .option('--data-dir <dir>', "the cloud's data dir (its tokens.json and kubeconfig)", '.kedge/cloud')
    .requiredOption('--out <dir>', 'where to write passwd, acl and mosquitto.conf')
    .option('--port <port>', 'the port Mosquitto listens on', numberIn(1, 65535), 1883)
    .option('--host <address>', 'the address Mosquitto listens on (beyond loopback, add TLS to the listener)', '127.0.0.1')
    .addOption(new Option('--node <name:password>', 'also admit this node with this password (repeatable)').argParser(nodePassword).default([], 'none'));
  return requireEveryOption(command).action(async ({ node, ...rest }: Omit<MosquittoConfigOptions, 'nodes'> & { node: NodePassword[] }) => {
    const o: MosquittoConfigOptions = { ...rest, nodes: node };
    await printOrFail(async () => summary(await writeMosquittoConfig(o, (line) => process.stderr.write(`warning: ${line}\n`)), o));
  });
}

export function brokerConfigCommand(): Command {
  return new Command('broker-config').description('Configuration for an external MQTT broker (kedge cloud --broker).').addCommand(mosquittoCommand());
}
