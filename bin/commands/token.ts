import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { cliName } from '../../shared/cli-name.js';
import { nodeName } from '../options.js';
import { printOrFail } from '../print-or-fail.js';
import { createJoinToken, DEFAULT_TTL, listJoinTokens, revokeJoinToken } from './join-tokens.js';

interface CreateOptions {
  role?: 'admin' | 'viewer' | 'node';
  dataDir: string;
  name?: string;
  node?: string;
  server?: string;
  output?: 'kubeconfig' | 'token';
}

/** Where the new token's kubeconfig points: the server (from the data dir's kubeconfig unless given) and the cloud's CA. */
async function clusterOf(o: CreateOptions): Promise<{ server: string; caPem: string }> {
  const { readKubeconfig } = await import('../../sim/fleet-pods.js');
  const { CA_CERT_FILE, KUBECONFIG_FILE } = await import('../../cloud/apiserver/auth/credentials.js');
  const { onlyCertificate } = await import('../../shared/join-token.js');
  const dataDir = resolve(o.dataDir);
  const server =
    o.server ??
    (await readKubeconfig(join(dataDir, KUBECONFIG_FILE)).catch(() => {
      throw new Error(`no readable ${join(dataDir, KUBECONFIG_FILE)} to take the server from: start the cloud once, or pass --server`);
    })).server;
  const caFile = join(dataDir, CA_CERT_FILE);
  const caPem = await readFile(caFile, 'utf8').catch(() => {
    throw new Error(`no ${caFile} (the cloud's CA): start the cloud once`);
  });
  // The kubeconfig trusts exactly the cloud's CA, whatever else the file might hold.
  return { server, caPem: onlyCertificate(caPem, caFile).toString() };
}

/** A join token (--node or --bootstrap), or an API token (--role). */
async function createToken(o: CreateOptions & { bootstrap?: boolean; ttl: string; description?: string }): Promise<string> {
  if (!o.role) {
    if (!o.node && !o.bootstrap) throw new Error('say what the token is for: --node <name> or --bootstrap (a join token), or --role admin|viewer|node (an API token)');
    if (o.node && o.bootstrap) throw new Error('--bootstrap is a join token for any node name: leave out --node, or --bootstrap');
    return createJoinToken(o);
  }
  if (o.bootstrap) throw new Error('--bootstrap makes a join token: leave out --role');
  return createApiToken({ ...o, role: o.role });
}

/** Checks everything first, then appends the token, so a failed run leaves tokens.json as it was. */
async function createApiToken(o: CreateOptions & { role: NonNullable<CreateOptions['role']> }): Promise<string> {
  const { addApiToken, newTokenEntry } = await import('../../cloud/apiserver/auth/token-file.js');
  const { buildKubeconfig, readCredentials } = await import('../../cloud/apiserver/auth/credentials.js');
  const { createLogger } = await import('../../shared/log.js');
  if (o.role === 'node' && !o.node) throw new Error('--role node needs --node <name> (the node the token acts for)');
  if (o.role === 'node' && o.name) throw new Error('--name does not apply to node tokens: their user is system:node:<node>');
  if (o.role !== 'node' && o.node) throw new Error(`--node applies only to --role node`);
  if (!(await readCredentials(o.dataDir, createLogger('token')))) throw new Error(`no kedge cloud data in ${resolve(o.dataDir)}: start one there first (${cliName()} cloud --data-dir ${o.dataDir}, or npm start for the demo)`);
  const output = o.output ?? (o.role === 'node' ? 'token' : 'kubeconfig');
  const cluster = output === 'kubeconfig' ? await clusterOf(o) : undefined;
  const entry = newTokenEntry(o.role, { name: o.name, node: o.node });
  await addApiToken(o.dataDir, entry);
  if (!cluster) return `${entry.token}\n`;
  const { stringify } = await import('yaml');
  return stringify(buildKubeconfig(cluster.server, entry.token, cluster.caPem, 'kedge', entry.user));
}

/** Removes an admin's or viewer's API tokens (--name) or a node's (--node) from the data dir. */
async function deleteApiTokens(o: { dataDir: string; name?: string; node?: string }): Promise<string> {
  if ((o.name === undefined) === (o.node === undefined)) throw new Error('say whose API tokens to delete: --name <user> (an admin or viewer) or --node <name> (a node)');
  const { removeApiTokens } = await import('../../cloud/apiserver/auth/token-file.js');
  const { NODE_USER_PREFIX } = await import('../../cloud/apiserver/auth/node-authz.js');
  const user = o.name ?? `${NODE_USER_PREFIX}${o.node}`;
  const count = await removeApiTokens(o.dataDir, user);
  return `deleted ${count} API token${count === 1 ? '' : 's'} of user ${user}\n`;
}

export function tokenCommand(): Command {
  const create = new Command('create')
    .description(
      'With --node or --bootstrap: a join token for edges on other machines (printed alone on the last line; the cloud must be running). ' +
        "With --role: an API token added to the cloud's data dir, printed as a kubeconfig; the running cloud accepts it within a second.",
    )
    .addOption(new Option('--role <role>', 'an API token: admin (everything), viewer (read only) or node (what a kubelet may do)').choices(['admin', 'viewer', 'node']))
    .option('--bootstrap', 'a join token any node name may use')
    .option('--ttl <duration>', 'how long a join token is good for (0: forever)', DEFAULT_TTL)
    .option('--description <text>', 'a note kept with a join token')
    .option('--data-dir <dir>', 'data dir of the cloud or demo (its tokens.json, kubeconfig and ca.crt)', DEFAULT_DEMO_DATA_DIR)
    .option('--name <user>', 'user name of an admin or viewer token (default kedge-<role>)')
    .option('--node <name>', 'the one node a join token admits; with --role node, the node an API token acts for (user system:node:<name>)', nodeName)
    .option('--server <url>', "API URL in the kubeconfig (default: the one in the data dir's kubeconfig)")
    .addOption(new Option('-o, --output <format>', 'what to print (default: kubeconfig; token for --role node)').choices(['kubeconfig', 'token']))
    .action((o: Parameters<typeof createToken>[0]) => printOrFail(() => createToken(o)));
  const dataDir = ['--data-dir <dir>', 'data dir of the cloud or demo (its kubeconfig names the cloud)', DEFAULT_DEMO_DATA_DIR] as const;
  const list = new Command('list')
    .description('List the join tokens of the running cloud, and the nodes that joined with each.')
    .option(...dataDir)
    .action((o: { dataDir: string }) => printOrFail(() => listJoinTokens(o.dataDir)));
  const revoke = new Command('revoke')
    .description('Revoke a join token: it admits nobody from now on, and the nodes that joined with it are disconnected and refused.')
    .argument('<id>', 'the token id (the 6 characters after "::", or from kedge token list)')
    .option(...dataDir)
    .action((id: string, o: { dataDir: string }) => printOrFail(() => revokeJoinToken(o.dataDir, id)));
  const del = new Command('delete')
    .description("Delete API tokens (made with --role) from the cloud's data dir, tokens.json and its last good copy alike. The generated admin token stays.")
    .option('--name <user>', 'every token of this admin or viewer user')
    .option('--node <name>', 'every token of this node (user system:node:<name>)', nodeName)
    .option('--data-dir <dir>', 'data dir of the cloud or demo (its tokens.json)', DEFAULT_DEMO_DATA_DIR)
    .action((o: Parameters<typeof deleteApiTokens>[0]) => printOrFail(() => deleteApiTokens(o)));
  return new Command('token').description('Join tokens for edges, API tokens for people and nodes.').addCommand(create).addCommand(list).addCommand(revoke).addCommand(del);
}
