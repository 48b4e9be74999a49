import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import type { Node } from '../../shared/types.js';
import { cloudsApi } from '../../sim/clouds/clouds-api.js';
import { readLeaders } from '../../sim/clouds/leaders.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { liveProcesses } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/** `kedge demo --clouds 2` as a user starts it: an etcd of its own, two clouds on it, an edge given both brokers. */
describe('kedge demo --clouds', () => {
  let dir: string;
  let demo: RoleProcess | undefined;
  afterAll(async () => {
    await demo?.stop(20_000);
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('starts the clouds on one etcd, says where each is, and stops every process with it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-clouds-'));
    const lines: string[] = [];
    demo = startRole({ name: 'demo', args: ['demo', '--clouds', '2', '--nodes', '1', '--time-scale', '10', '--data-dir', dir], readyPattern: /^Ctrl-C stops everything/, clock: realClock, onLine: (l) => lines.push(l) });
    await demo.ready;
    const out = lines.join('\n');
    expect(out).toMatch(/kedge demo ready: 2 clouds on one etcd \(1 member: http:\/\/127\.0\.0\.1:\d+\), 1 edges given every cloud's broker/);
    const apis = [...out.matchAll(/cloud-\d \(pid \d+\): API (\S+),/g)].map((m) => m[1]!);
    expect(apis).toHaveLength(2);
    const clouds = [1, 2].map((i) => ({ name: `cloud-${i}`, dataDir: join(dir, 'several-clouds', 'clouds', `cloud-${i}`), apiUrl: apis[i - 1]!, brokerUrl: '' }));
    const access = await cloudsApi(apis, clouds[0]!.dataDir);
    try {
      const leaders = await readLeaders(access.api, clouds);
      expect(new Set(Object.values(leaders)).size, JSON.stringify(leaders)).toBe(1);
      expect(out).toContain(`# ${leaders['kedge-hub']}, which leads`);
      const nodes = (await access.api.list<Node>({ resource: 'nodes' })).items.map((n) => n.metadata.name).sort();
      expect(nodes).toEqual(['cloud-1', 'cloud-2', 'edge-1']);
    } finally {
      access.close();
    }
    await demo.stop(20_000);
    await waitFor(async () => (await liveProcesses()).every((p) => !p.args.some((a) => a.includes(dir))), 'no process naming the data dir', 10_000, 100);
  }, 90_000);
});
