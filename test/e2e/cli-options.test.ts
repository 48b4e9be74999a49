import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../shared/repo-paths.js';
import { kedge } from '../support/kedge-cli.js';

/** What every kedge command answers before it starts anything. */
describe('kedge options', () => {
  it.each([['--version'], ['-V']])('%s prints the version of package.json', async (flag) => {
    const { version } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(await kedge(flag)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    [['edge'], "error: required options '--node <name>', '--token <token>' and '--cloud <url>' (or '--broker <url>') not specified"],
    [['edge', '--node', 'edge-1'], "error: required options '--token <token>' and '--cloud <url>' (or '--broker <url>') not specified"],
    [['edge', '--node', 'edge-1', '--token', 't'], "error: required option '--cloud <url>' (or '--broker <url>') not specified"],
    [['fleet'], "error: required options '--nodes <n>', '--broker <url>' and '--token <token>' not specified"],
    [['fleet', '--broker', 'mqtt://127.0.0.1:1883'], "error: required options '--nodes <n>' and '--token <token>' not specified"],
    [['broker-config', 'mosquitto'], "error: required option '--out <dir>' not specified"],
  ])('kedge %j names every missing required option at once, exit 1', async (args, message) => {
    const run = await kedge(...args);
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, message]);
  });

  it('kedge edge --pod-cidr takes an IPv4 CIDR with room for pods only, exit 1', async () => {
    const run = await kedge('edge', '--node', 'edge-1', '--token', 't', '--broker', 'mqtt://127.0.0.1:1', '--pod-cidr', '127.64.1.0/31');
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, `error: option '--pod-cidr <cidr>' argument '127.64.1.0/31' is invalid. "127.64.1.0/31" is not an IPv4 CIDR with room for pods (e.g. 127.64.1.0/24).`]);
  });
});
