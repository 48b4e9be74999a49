import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateServingCert, writeKubeconfig } from '../../cloud/apiserver/auth/credentials.js';
import { realClock } from '../../shared/clock.js';
import { readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { kedge } from '../support/kedge-cli.js';
import { waitFor } from '../support/wait.js';

/**
 * Data dirs are relative to the current directory: a cloud started from another folder makes
 * a new cluster with a new CA. Every role says which data dir it uses, absolute, and a
 * command that meets another cloud than its data dir's says so.
 */
describe('data dirs, absolute', () => {
  let dir: string;
  let cloud: RoleProcess;
  let cloudReady: string;
  const lines: string[] = [];
  const roles: RoleProcess[] = [];
  /** As a user gives it: relative to the current directory. */
  const relativeTo = (path: string): string => relative(process.cwd(), path);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-data-dir-'));
    cloud = startRole({
      name: 'cloud',
      args: ['cloud', '--data-dir', relativeTo(join(dir, 'cloud')), '--api-port', '0', '--mqtt-port', '0', '--store', 'memory'],
      readyPattern: /^kedge cloud ready /,
      clock: realClock,
      onLine: (line) => lines.push(line),
    });
    roles.push(cloud);
    cloudReady = await cloud.ready;
  });
  afterAll(async () => {
    for (const role of roles.reverse()) await role.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the cloud names its data dir, absolute, in its ready line, and says loudly that it made a new CA there', async () => {
    expect(readyField(cloudReady, 'data-dir')).toBe(join(dir, 'cloud'));
    expect(readyField(cloudReady, 'kubeconfig')).toBe(join(dir, 'cloud', 'kubeconfig'));
    await waitFor(() => lines.some((l) => l.includes(`WARN  [cloud] no CA in ${join(dir, 'cloud')}: created a new one (join tokens made for another data dir will not work)`)), 'the new CA warning', 10_000, 20);
  });

  it('an edge names its data dir, absolute, in its ready line', async () => {
    const { edge: token } = JSON.parse(await readFile(join(dir, 'cloud', 'tokens.json'), 'utf8')) as { edge: string };
    const edge = startRole({
      name: 'edge',
      args: ['edge', '--node', 'dd-1', '--broker', readyField(cloudReady, 'mqtt'), '--token', token, '--data-dir', relativeTo(join(dir, 'edge')), '--local-api-port', '0'],
      readyPattern: /^kedge edge dd-1 ready /,
      clock: realClock,
    });
    roles.push(edge);
    expect(readyField(await edge.ready, 'data-dir')).toBe(join(dir, 'edge'));
  });

  it('a data dir that names no cloud: the command says which data dir it looked in, absolute', async () => {
    const out = await kedge('component', 'status', '--data-dir', relativeTo(join(dir, 'nowhere')));
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`no kedge cloud found with data dir ${join(dir, 'nowhere')} `);
  });

  it('a data dir whose kubeconfig names an address where another cloud (another CA) answers: the command says so', async () => {
    // Another data dir, with a CA of its own, whose kubeconfig names this cloud's address.
    const other = join(dir, 'other');
    const { caPem } = await loadOrCreateServingCert(other, ['127.0.0.1'], realClock.now());
    const server = readyField(cloudReady, 'api');
    await writeKubeconfig(other, server, 'some-token', caPem);
    const expected = `that is not the cloud of data dir ${other} (its certificate is not signed by the CA in ${join(other, 'kubeconfig')}). Another cloud, with a data dir and CA of its own, answers there`;
    const status = await kedge('component', 'status', '--data-dir', relativeTo(other));
    expect([status.code, status.stderr]).toEqual([1, expect.stringContaining(`error: the cloud at ${server} answers: ${expected}`)]);
    const token = await kedge('token', 'create', '--node', 'dd-2', '--data-dir', relativeTo(other));
    expect([token.code, token.stderr]).toEqual([1, expect.stringContaining(expected)]);
  });
});
