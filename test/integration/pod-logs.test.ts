import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { pass, runUntil } from '../support/settle.js';

const ref = { resource: 'pods', namespace: 'default', name: 'web' };
const web: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { 'app-offline.kubeedge.io': 'autonomy' } },
  spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'kedge.io/web:1' }] },
};

/** pods/log travels to the edge over the sync link and back [SYNC-16] (following one: pod-logs-follow.test.ts). */
describe('kubectl logs', () => {
  let cluster: Cluster<FakeClock> | undefined;
  let home: string | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
    if (home) await rm(home, { recursive: true, force: true });
    home = undefined;
  });

  const getLog = async (c: Cluster<FakeClock>, query = ''): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${c.cloud.apiUrl.replace(/^https:/, 'http:')}/api/v1/namespaces/default/pods/web/log${query}`, {
      headers: { authorization: `Bearer ${c.cloud.credentials.admin}` },
    });
    return { status: res.status, text: await res.text() };
  };

  it('fetches a container log from its edge, and names the node and since when while it is away', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    await c.api.create(ref, web);
    await runUntil(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'web Running');
    await pass(c.clock, 3 * 60_000, 1_000);

    const log = await getLog(c, '?tailLines=2');
    expect(log.status).toBe(200);
    expect(log.text).toBe('[kedge sim] app: running for 2m\n[kedge sim] app: running for 3m\n');
    expect((await getLog(c, '?container=nope')).status).toBe(400);
    expect((await getLog(c, '?sinceSeconds=90')).text).toBe(log.text);
    expect((await getLog(c, '?tailLines=1&limitBytes=10')).text).toBe('[kedge sim');

    if (hasKubectl) {
      home = await mkdtemp(join(tmpdir(), 'kedge-logs-'));
      const out = await kubectlIn(home, c.cloud.kubeconfigPath)('logs', 'web', '--timestamps');
      expect(out.stderr).toBe('');
      expect(out.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[kedge sim\] app: started \(image kedge.io\/web:1, attempt 0\)\n/);
    }

    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the hub to notice', { budgetMs: 2 * c.timing.keepaliveMs });
    const away = await getLog(c);
    expect(away.status).toBe(503);
    expect(JSON.parse(away.text)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', message: expect.stringMatching(/^node "edge-1" is unreachable since \d{4}-.*Z \(.+ ago\): cannot get the logs of pod default\/web$/) });

    c.heal('edge-1');
    await runUntil(c.clock, async () => (await getLog(c)).status === 200, 'logs again after heal');
  });
});
