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

  it.each([
    [['--node-cidr-mask-size', '8'], 'error: Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family (--cluster-cidr 127.64.0.0/10 is a /10, --node-cidr-mask-size is 8)'],
    [['--cluster-cidr', 'fd00::/48'], 'error: invalid --cluster-cidr "fd00::/48": not an IPv4 CIDR such as 127.64.0.0/10 (kedge allocates IPv4 pod ranges only)'],
  ])('kedge cloud %j refuses the pod network before it starts, exit 1', async (...args) => {
    const [flags, message] = args as [string[], string];
    const run = await kedge('cloud', '--data-dir', '/nonexistent/kedge-never-made', '--api-port', '0', '--mqtt-port', '0', ...flags);
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, message]);
  });

  it('kedge cloud --node-name takes a valid node name only, exit 1', async () => {
    const run = await kedge('cloud', '--data-dir', '/nonexistent/kedge-never-made', '--api-port', '0', '--mqtt-port', '0', '--node-name', 'Edge_1');
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, `error: option '--node-name <name>' argument 'Edge_1' is invalid. "Edge_1" is not a valid node name (lower-case letters, digits, '-' and '.'; not kedge-cloud or kedge-cloud-…, the cloud's names).`]);
  });

  it('kedge cloud --event-ttl takes a positive Go duration only, exit 1', async () => {
    const run = await kedge('cloud', '--data-dir', '/nonexistent/kedge-never-made', '--api-port', '0', '--mqtt-port', '0', '--event-ttl', '1 hour');
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, `error: option '--event-ttl <duration>' argument '1 hour' is invalid. expected a positive duration such as 1h, 30m or 90s, got "1 hour".`]);
  });

  it('kedge cloud --heap-growth takes a percent from 0 to 1000 only, exit 1', async () => {
    const run = await kedge('cloud', '--data-dir', '/nonexistent/kedge-never-made', '--api-port', '0', '--mqtt-port', '0', '--heap-growth', '-5');
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, `error: option '--heap-growth <percent>' argument '-5' is invalid. expected a number from 0 to 1000, got "-5".`]);
  });

  it('kedge cloud --leader-elect-* timings must elect as client-go requires, exit 1; --leader-elect takes a Go bool', async () => {
    const dir = ['--data-dir', '/nonexistent/kedge-never-made', '--api-port', '0', '--mqtt-port', '0'];
    const deadline = await kedge('cloud', ...dir, '--leader-elect-renew-deadline', '20s');
    expect([deadline.code, deadline.stderr.split('\n')[0]]).toEqual([1, 'error: invalid leader election timing: leaseDuration must be greater than renewDeadline (--leader-elect-lease-duration=15s --leader-elect-renew-deadline=20s --leader-elect-retry-period=2s)']);
    const retry = await kedge('cloud', ...dir, '--leader-elect-retry-period', '9s');
    expect(retry.stderr.split('\n')[0]).toBe('error: invalid leader election timing: renewDeadline must be greater than retryPeriod*JitterFactor (--leader-elect-lease-duration=15s --leader-elect-renew-deadline=10s --leader-elect-retry-period=9s)');
    const bool = await kedge('cloud', ...dir, '--leader-elect=maybe');
    expect([bool.code, bool.stderr.split('\n')[0]]).toEqual([1, `error: option '--leader-elect [bool]' argument 'maybe' is invalid. strconv.ParseBool: parsing "maybe": invalid syntax.`]);
  });

  it('kedge edge --pod-cidr takes an IPv4 CIDR with room for pods only, exit 1', async () => {
    const run = await kedge('edge', '--node', 'edge-1', '--token', 't', '--broker', 'mqtt://127.0.0.1:1', '--pod-cidr', '127.64.1.0/31');
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([1, `error: option '--pod-cidr <cidr>' argument '127.64.1.0/31' is invalid. "127.64.1.0/31" is not an IPv4 CIDR with room for pods (e.g. 127.64.1.0/24).`]);
  });
});
