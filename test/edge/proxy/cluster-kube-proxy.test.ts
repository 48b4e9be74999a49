import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PORTALS_FILE } from '../../../edge/network/proxy/portals-file.js';
import { FakeClock } from '../../../shared/clock.js';
import { Cluster } from '../../../sim/local-cluster.js';
import { holdIn } from '../fixtures.js';
import { endpoints, service } from './proxy-fixtures.js';
import { backend, whoAnswers, type Backend } from './sockets.js';

describe('kube-proxy in the in-process Cluster', () => {
  let cluster: Cluster<FakeClock> | undefined;
  let echo: Backend | undefined;
  afterEach(async () => {
    await cluster?.stop();
    await echo?.close();
    cluster = undefined;
  });

  it('runs none by default: no component, no listener', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    expect(cluster.edge('edge-1').components.map((c) => c.name)).toEqual(['kedge-cni']);
  });

  it('with serviceProxy, every edge runs it; restarted, the agent catches up with what the cache holds', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, serviceProxy: true });
    echo = await backend('echo-1');
    const edge = cluster.edge('edge-1');
    const agent = edge.components.find((c) => c.name === 'kube-proxy')!;
    expect(agent?.name).toBe('kube-proxy');
    holdIn(edge.cache, service('web', [{ name: 'http', port: 80 }]));
    holdIn(edge.cache, endpoints('web', [{ ip: '127.0.0.2', nodeName: 'edge-2' }], [{ name: 'http', port: Number(echo.endpoint.split(':')[1]) }]));
    await agent!.stop();
    await agent!.start();
    const portals = JSON.parse(await readFile(join(cluster.dir, 'edges', 'edge-1', PORTALS_FILE), 'utf8')) as { portals: Record<string, number> };
    expect(await whoAnswers(portals.portals['default/web:http']!)).toBe('echo-1');
  });
});
