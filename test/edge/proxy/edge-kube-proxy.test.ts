import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { testNetwork } from '../../support/test-network.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EdgeHandle } from '../../../edge/main.js';
import { CACHE_FILE, openLowdbCache } from '../../../edge/metamanager/lowdb-cache.js';
import { PORTALS_FILE } from '../../../edge/network/proxy/portals-file.js';
import { ProcessRuntime } from '../../../edge/runtime/process-runtime.js';
import { FakeClock } from '../../../shared/clock.js';
import { memoryLogger } from '../../../shared/log.js';
import type { KubeObject } from '../../../shared/types.js';
import { eventually } from '../../support/eventually.js';
import { MemorySync, NODE_PASSWORD } from '../../support/memory-sync.js';
import { EdgeFleet, timing } from '../edge-harness.js';
import { holdIn, pod } from '../fixtures.js';
import { nodeScript } from '../process-workloads.js';
import { endpoints, service } from './proxy-fixtures.js';
import { backend, whoAnswers, type Backend } from './sockets.js';

/** Connects to $WEB_SERVICE_HOST:$WEB_SERVICE_PORT and prints what it hears first. */
const client = nodeScript(`
  const s = require('node:net').connect(Number(process.env.WEB_SERVICE_PORT), process.env.WEB_SERVICE_HOST);
  s.once('data', (d) => { console.log('heard ' + d + ' at ' + process.env.WEB_SERVICE_HOST + ':' + process.env.WEB_SERVICE_PORT); s.destroy(); });
  s.on('error', (e) => console.log('error ' + e.message));`);

describe('kube-proxy in a running edge (offline: from its cache)', () => {
  let dir: string;
  let clock: FakeClock;
  let fleet: EdgeFleet;
  let sync: MemorySync;
  let echo: Backend;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edge-proxy-'));
    clock = new FakeClock();
    fleet = new EdgeFleet(clock, memoryLogger('edge'));
    sync = new MemorySync({ clock, timing });
    sync.broker.stop(); // the cloud is unreachable throughout
    echo = await backend('echo-1');
  });
  afterEach(async () => {
    await fleet.stopAll();
    await sync.close();
    (await ProcessRuntime.open({ dataDir: dir, clock, reboot: true, network: testNetwork() })).close(); // kills what still runs
    await echo.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function seed(objects: (KubeObject & { kind: string })[]): Promise<void> {
    const cache = await openLowdbCache(join(dir, CACHE_FILE));
    for (const o of objects) holdIn(cache, o);
    await cache.flush();
  }

  const start = (): Promise<EdgeHandle> => fleet.start({ brokerUrl: 'memory://broker', transport: sync.transport, token: NODE_PASSWORD, dataDir: dir, nodeIp: '127.0.0.1' });
  const portal = async (): Promise<number> => (JSON.parse(await readFile(join(dir, PORTALS_FILE), 'utf8')) as { portals: Record<string, number> }).portals['default/web:http']!;

  it('routes at once from the cache, gives a process pod the portal in its env, counts in /metrics, and keeps the portal across a restart', async () => {
    const port = Number(echo.endpoint.split(':')[1]);
    const clientPod = pod('client', 'u-client', { runtimeClassName: 'process', restartPolicy: 'Never', containers: [{ name: 'app', ...client }] });
    await seed([service('web', [{ name: 'http', port: 80 }]), endpoints('web', [{ ip: '127.0.0.2', nodeName: 'edge-2' }], [{ name: 'http', port }]), { ...clientPod, kind: 'Pod' }]);

    const edge = await start();
    expect(edge.components.map((c) => [c.name, c.running()])).toEqual([['kedge-cni', true], ['kube-proxy', true]]);
    const first = await portal();
    expect(await whoAnswers(first)).toBe('echo-1');

    const said = await eventually(clock, async () => {
      const [c] = await edge.runtime.listContainers();
      const lines = c ? await edge.runtime.logs(c.id) : [];
      return lines.find((l) => l.text.startsWith('heard') || l.text.startsWith('error'))?.text;
    }, 'the client pod to reach the Service', { stepMs: 100 });
    expect(said).toBe(`heard echo-1 at 127.0.0.1:${first}`);
    const metrics = await (await fetch(`${edge.localApiUrl}/metrics`)).text();
    expect(metrics).toContain('kedge_proxy_connections_total{service="default/web:http"} 2');

    await fleet.stopAll();
    await start();
    expect(await portal()).toBe(first);
    expect(await whoAnswers(first)).toBe('echo-1');
  });
});
