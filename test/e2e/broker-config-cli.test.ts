import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { hashPassword, verifyPassword } from '../../cloud/hub/password-hash.js';
import { JOIN_NAMESPACE, nodeCredentialSecret } from '../../cloud/join/secrets.js';
import { readyField } from '../../sim/role-process.js';
import { startCloudProcess, type CloudProcess } from '../support/cloud-process.js';
import { kedge } from '../support/kedge-cli.js';

/** `username → hash` from a Mosquitto password file. */
const passwd = async (out: string): Promise<Map<string, string>> =>
  new Map((await readFile(join(out, 'passwd'), 'utf8')).trim().split('\n').map((line) => line.split(/:(.*)/s).slice(0, 2) as [string, string]));

/** `kedge broker-config mosquitto`, as a user runs it. */
describe('kedge broker-config mosquitto', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const tempDir = async (prefix: string): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };

  it('without a running cloud: kedge-cloud and the --node users only, and says so', async () => {
    const dir = await tempDir('kedge-broker-config-');
    const [data, out] = [join(dir, 'cloud'), join(dir, 'mosquitto')];
    const run = await kedge('broker-config', 'mosquitto', '--data-dir', data, '--out', out, '--node', 'edge-1:first:password');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `warning: no credentials in ${data} yet: generated them (tokens.json), as the cloud does at its first start\n` +
        `warning: no cloud answers for ${data}: the password file holds kedge-cloud and the --node users only; run this again while the cloud runs to add the nodes that joined it\n`,
    );
    expect(run.stdout).toContain(`wrote ${out}/passwd (2 users: kedge-cloud, edge-1), ${out}/acl and ${out}/mosquitto.conf\n`);
    expect(run.stdout).toContain(`mosquitto -c ${out}/mosquitto.conf`);

    const users = await passwd(out);
    expect([...users.keys()]).toEqual(['kedge-cloud', 'edge-1']);
    expect(verifyPassword((await readCredentials(data))!.hub!, users.get('kedge-cloud')!)).toBe(true);
    expect(verifyPassword('first:password', users.get('edge-1')!)).toBe(true);
    expect((await stat(join(out, 'passwd'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(out, 'acl'))).mode & 0o777).toBe(0o644);
    const conf = await readFile(join(out, 'mosquitto.conf'), 'utf8');
    expect(conf).toContain('listener 1883 127.0.0.1\n');
    expect(conf).toContain(`password_file ${out}/passwd\n`);
    expect(conf).toContain(`acl_file ${out}/acl\n`);
    expect(await readFile(join(out, 'acl'), 'utf8')).toContain('pattern read kedge/v1/%u/down\n');
  });

  it.each([
    [['--node', 'edge-1'], /^error: option '--node <name:password>' argument 'edge-1' is invalid\. expected <name>:<password>/],
    [['--node', 'kedge-cloud:x'], /argument 'kedge-cloud:x' is invalid\. "kedge-cloud" is not a node name/],
    [['--node', 'Edge_1:x'], /argument 'Edge_1:x' is invalid/],
    [['--port', '0'], /^error: option '--port <port>' argument '0' is invalid\. expected a number from 1 to 65535/],
  ])('refuses %j with exit code 1', async (args, message) => {
    const dir = await tempDir('kedge-broker-config-bad-');
    const run = await kedge('broker-config', 'mosquitto', '--data-dir', dir, '--out', join(dir, 'out'), ...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  it('needs --out', async () => {
    const run = await kedge('broker-config', 'mosquitto');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/required option '--out <dir>' not specified/);
  });

  describe('with the cloud running', () => {
    let cloud: CloudProcess;
    beforeAll(async () => {
      cloud = await startCloudProcess('broker-config', ['--disable', 'scheduler,controller-manager']);
      cleanup.push(() => cloud.stop());
    });

    it("adds every node credential the cloud holds, with the hash it holds; --node replaces one, and says so", async () => {
      const api = createRemoteClient(readyField(await cloud.cloud.ready, 'api'), (await readCredentials(cloud.dir))!.admin);
      const hashes = { 'edge-7': hashPassword('seven'), 'edge-8': hashPassword('eight') };
      for (const [node, passwordHash] of Object.entries(hashes)) {
        await api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, nodeCredentialSecret({ node, passwordHash, tokenId: 'abcdef' }));
      }
      await api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated' }, data: {} });
      const out = join(cloud.dir, 'mosquitto');

      const run = await kedge('broker-config', 'mosquitto', '--data-dir', cloud.dir, '--out', out, '--port', '11883', '--node', 'edge-8:replaced');
      expect(run.stderr).toBe('warning: --node edge-8 replaces the credential edge-8 got when it joined\n');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`--broker mqtt://127.0.0.1:11883`);
      const users = await passwd(out);
      expect([...users.keys()]).toEqual(['kedge-cloud', 'edge-7', 'edge-8']);
      expect(users.get('edge-7')).toBe(hashes['edge-7']);
      expect(verifyPassword('replaced', users.get('edge-8')!)).toBe(true);
      expect(await readFile(join(out, 'mosquitto.conf'), 'utf8')).toContain('listener 11883 127.0.0.1\n');
    });
  });
});
