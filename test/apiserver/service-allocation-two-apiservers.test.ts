import { describe, expect, it } from 'vitest';
import { clusterResources, createApiServer, ensureSystemNamespaces, type ApiClient } from '../../cloud/apiserver/index.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Service } from '../../shared/service-types.js';

const services = { resource: 'services', namespace: 'default' };
const service = (name: string, type: 'ClusterIP' | 'NodePort'): Service => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type, selector: { app: name }, ports: [{ port: 80 }] },
});

/** Two apiservers on one store (two clouds) creating Services at the same moment never hand out one clusterIP or nodePort twice. */
describe('Service allocation across apiservers sharing a store', () => {
  async function twoApiservers(): Promise<[ApiClient, ApiClient]> {
    const store = new MemoryStore();
    const make = () => createApiServer({ store, clock: realClock, logger: silentLogger, tokens: [{ token: 't', user: 'admin', role: 'admin' }], resources: clusterResources }).loopback('t');
    const clients: [ApiClient, ApiClient] = [make(), make()];
    await ensureSystemNamespaces(clients[0]);
    return clients;
  }

  it('gives Services created at once through both distinct clusterIPs and nodePorts', async () => {
    const [a, b] = await twoApiservers();
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).create<Service>(services, service(`s${i}`, i % 4 < 2 ? 'NodePort' : 'ClusterIP'))),
    );
    const ips = created.map((s) => s.spec!.clusterIP);
    expect(new Set(ips).size).toBe(20);
    const nodePorts = created.flatMap((s) => (s.spec!.ports ?? []).map((p) => p.nodePort).filter((p) => p !== undefined));
    expect(nodePorts.length).toBe(10);
    expect(new Set(nodePorts).size).toBe(10);
  });

  it('a dry run reserves nothing', async () => {
    const [a, b] = await twoApiservers();
    const dry = await a.create<Service>(services, service('dry', 'ClusterIP'), { dryRun: true });
    const real = await b.create<Service>(services, service('real', 'ClusterIP'));
    expect(real.spec!.clusterIP).toBe(dry.spec!.clusterIP);
  });
});
