import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { nodeName } from '../options.js';

interface CreateOptions {
  role: 'admin' | 'viewer' | 'node';
  dataDir: string;
  name?: string;
  node?: string;
  server?: string;
  output?: 'kubeconfig' | 'token';
}

/** Where the new token's kubeconfig points: the server (from the data dir's kubeconfig unless given) and the cloud's CA. */
async function clusterOf(o: CreateOptions): Promise<{ server: string; caPem: string }> {
  const { readKubeconfig } = await import('../../sim/fleet-pods.js');
  const { TLS_CERT_FILE, KUBECONFIG_FILE } = await import('../../cloud/apiserver/credentials.js');
  const server =
    o.server ??
    (await readKubeconfig(join(o.dataDir, KUBECONFIG_FILE)).catch(() => {
      throw new Error(`no readable ${join(o.dataDir, KUBECONFIG_FILE)} to take the server from: start the cloud once, or pass --server`);
    })).server;
  const caPem = await readFile(join(o.dataDir, TLS_CERT_FILE), 'utf8').catch(() => {
    throw new Error(`no ${join(o.dataDir, TLS_CERT_FILE)} (the cloud's certificate): start the cloud once`);
  });
  return { server, caPem };
}

/** Checks everything first, then appends the token, so a failed run leaves tokens.json as it was. */
async function createToken(o: CreateOptions): Promise<string> {
  const { addApiToken, newTokenEntry } = await import('../../cloud/apiserver/token-file.js');
  const { buildKubeconfig, readCredentials } = await import('../../cloud/apiserver/credentials.js');
  if (o.role === 'node' && !o.node) throw new Error('--role node needs --node <name> (the node the token acts for)');
  if (o.role === 'node' && o.name) throw new Error('--name does not apply to node tokens: their user is system:node:<node>');
  if (o.role !== 'node' && o.node) throw new Error(`--node applies only to --role node`);
  if (!(await readCredentials(o.dataDir))) throw new Error(`no kedge cloud data in ${o.dataDir}: start one there first (kedge cloud --data-dir ${o.dataDir}, or npm start for the demo)`);
  const output = o.output ?? (o.role === 'node' ? 'token' : 'kubeconfig');
  const cluster = output === 'kubeconfig' ? await clusterOf(o) : undefined;
  const entry = newTokenEntry(o.role, { name: o.name, node: o.node });
  await addApiToken(o.dataDir, entry);
  if (!cluster) return `${entry.token}\n`;
  const { stringify } = await import('yaml');
  return stringify(buildKubeconfig(cluster.server, entry.token, cluster.caPem, 'kedge', entry.user));
}

export function tokenCommand(): Command {
  const create = new Command('create')
    .description("Add an API token to a cloud's data dir and print a kubeconfig for it; the running cloud accepts it within a second.")
    .addOption(new Option('--role <role>', 'admin (everything), viewer (read only) or node (what a kubelet may do)').choices(['admin', 'viewer', 'node']).makeOptionMandatory())
    .option('--data-dir <dir>', 'data dir of the cloud or demo (its tokens.json, kubeconfig and tls.crt)', DEFAULT_DEMO_DATA_DIR)
    .option('--name <user>', 'user name of an admin or viewer token (default kedge-<role>)')
    .option('--node <name>', 'the node a node token acts for (its user is system:node:<name>)', nodeName)
    .option('--server <url>', "API URL in the kubeconfig (default: the one in the data dir's kubeconfig)")
    .addOption(new Option('-o, --output <format>', 'what to print (default: kubeconfig; token for --role node)').choices(['kubeconfig', 'token']))
    .action(async (o: CreateOptions) => {
      try {
        process.stdout.write(await createToken(o));
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
    });
  return new Command('token').description('API tokens for people and nodes.').addCommand(create);
}
