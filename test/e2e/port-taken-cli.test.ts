import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kedgeBin } from '../../sim/role-process.js';
import { run } from '../support/kedge-cli.js';

const FREE = '0';

/** A port another process already listens on: one clear line names it and the option that changes it, never a bare EADDRINUSE. */
describe('kedge on a port that is taken', () => {
  let taken: Server;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    port = (taken.address() as AddressInfo).port;
    dir = await mkdtemp(join(tmpdir(), 'kedge-port-taken-'));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  // P: the taken port; P-1: one below it (edge i's local API is the base port + i).
  it.each([
    [['demo', '--api-port', 'P', '--mqtt-port', FREE, '--local-api-base-port', FREE], 'the API', '--api-port'],
    [['demo', '--api-port', FREE, '--mqtt-port', 'P', '--local-api-base-port', FREE], 'the MQTT broker', '--mqtt-port'],
    [['demo', '--nodes', '1', '--api-port', FREE, '--mqtt-port', FREE, '--local-api-base-port', 'P-1'], "edge-1's local API, --local-api-base-port + 1", '--local-api-base-port'],
    [['cloud', '--api-port', 'P', '--mqtt-port', FREE], 'the API', '--api-port'],
    [['cloud', '--api-port', FREE, '--mqtt-port', 'P'], 'the embedded MQTT broker', '--mqtt-port'],
    [['edge', '--node', 'edge-1', '--broker', 'mqtt://127.0.0.1:1', '--token', 't', '--local-api-port', 'P'], 'the local API', '--local-api-port'],
  ])('kedge %j says so in one line naming the port and its option, exit 1', async (args, what, option) => {
    const dataDir = join(dir, `${args[0]}${option}`);
    const argv = args.map((a) => (a === 'P' ? String(port) : a === 'P-1' ? String(port - 1) : a));
    const said = await run(process.execPath, [kedgeBin, ...argv, '--data-dir', dataDir], { timeoutMs: 20_000 }); // it exits, too
    expect([said.code, said.stdout]).toEqual([1, '']);
    const errors = said.stderr.split('\n').filter((l) => / ERROR /.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.split(' ERROR ')[1]).toMatch(/^\[[\w/-]+\] cannot start: /);
    expect(errors[0]!.split(' cannot start: ')[1]).toBe(`port ${port} on 127.0.0.1 (${what}) is in use by another process: choose another with ${option} <port>, or 0 for a free one`);
    expect(said.stderr).not.toContain('EADDRINUSE');
  });
});
