import { describe, expect, it } from 'vitest';
import { ensureKubernetesService } from '../../cloud/apiserver/kinds/bootstrap.js';
import { endpointsText } from '../../cloud/apiserver/kinds/service-printers.js';
import { ipRange, pickNodePort, pickServiceIP, portRange } from '../../cloud/apiserver/kinds/service-ranges.js';
import type { KubeStatus } from '../../shared/errors.js';
import type { Endpoints, Service } from '../../shared/service-types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../support/api-fixture.js';

const services = '/api/v1/namespaces/default/services';
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

const svc = (name: string, spec: Record<string, unknown> = {}): Service =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } }) as Service;

const create = (f: ApiFixture, body: unknown) => f.json<Service & KubeStatus>('POST', services, { body });
const causesOf = (status: KubeStatus) => (status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

describe('core/v1 Services', () => {
  it('fills in kube-apiserver defaults and the first free address of the dynamic band', async () => {
    const f = await apiFixture();
    const res = await create(f, svc('web', { ports: [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090, targetPort: 'metrics' }] }));
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({
      selector: { app: 'web' },
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', targetPort: 80 },
        { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 'metrics' },
      ],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      clusterIP: '10.96.1.1',
      clusterIPs: ['10.96.1.1'],
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    });
    expect(res.body.status).toEqual({ loadBalancer: {} });
  });

  it('never hands out one clusterIP twice, even to concurrent creates, and reuses a freed one', async () => {
    const f = await apiFixture();
    const made = await Promise.all(['a', 'b', 'c', 'd'].map((name) => create(f, svc(name))));
    expect(made.map((r) => r.body.spec.clusterIP).sort()).toEqual(['10.96.1.1', '10.96.1.2', '10.96.1.3', '10.96.1.4']);
    await f.json('DELETE', `${services}/b`);
    const again = await create(f, svc('e'));
    expect(again.body.spec.clusterIP).toBe(made.find((r) => r.body.metadata.name === 'b')!.body.spec.clusterIP);

    const taken = await create(f, svc('f', { clusterIP: again.body.spec.clusterIP }));
    expect(taken.status).toBe(422);
    expect(causesOf(taken.body)).toEqual([`spec.clusterIPs: Invalid value: []string{"${again.body.spec.clusterIP}"}: failed to allocate IP ${again.body.spec.clusterIP}: provided IP is already allocated`]);
    const outside = await create(f, svc('g', { clusterIP: '10.0.0.1' }));
    expect(causesOf(outside.body)).toEqual(['spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12']);
    const chosen = await create(f, svc('h', { clusterIP: '10.96.0.10' }));
    expect(chosen.body.spec.clusterIPs).toEqual(['10.96.0.10']);
  });

  it('allows headless Services, without an address', async () => {
    const f = await apiFixture();
    const headless = await create(f, svc('db', { clusterIP: 'None' }));
    expect(headless.status).toBe(201);
    expect(headless.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
    const selectorless = await create(f, { ...svc('peers', { clusterIP: 'None', ports: [] }), spec: { clusterIP: 'None' } });
    expect(selectorless.body.spec).toMatchObject({ clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    expect((await create(f, svc('next'))).body.spec.clusterIP).toBe('10.96.1.1');
  });

  it('allocates free nodePorts for NodePort Services and checks requested ones', async () => {
    const f = await apiFixture();
    const np = await create(f, svc('web', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443, nodePort: 30443 }] }));
    expect(np.status).toBe(201);
    expect(np.body.spec.ports!.map((p) => p.nodePort)).toEqual([30086, 30443]);
    expect(np.body.spec.externalTrafficPolicy).toBe('Cluster');
    const other = await create(f, svc('api', { type: 'NodePort' }));
    expect(other.body.spec.ports![0]!.nodePort).toBe(30087);

    const clash = await create(f, svc('clash', { type: 'NodePort', ports: [{ port: 80, nodePort: 30443 }] }));
    expect(clash.status).toBe(422);
    expect(causesOf(clash.body)).toEqual(['spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated']);
    const outside = await create(f, svc('low', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }));
    expect(causesOf(outside.body)).toEqual(['spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767']);
    const onClusterIP = await create(f, svc('plain', { ports: [{ port: 80, nodePort: 30500 }] }));
    expect(causesOf(onClusterIP.body)).toEqual(["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  });

  it('keeps allocated values on update, drops nodePorts when leaving NodePort and allocates when entering it', async () => {
    const f = await apiFixture();
    const created = (await create(f, svc('web'))).body;
    const merge = 'application/merge-patch+json';
    const np = await f.json<Service>('PATCH', `${services}/web`, { body: { spec: { type: 'NodePort' } }, contentType: merge });
    expect(np.status).toBe(200);
    expect(np.body.spec.ports![0]!.nodePort).toBe(30086);
    expect(np.body.spec.clusterIP).toBe(created.spec.clusterIP);
    const back = await f.json<Service>('PATCH', `${services}/web`, { body: { spec: { type: 'ClusterIP' } }, contentType: merge });
    expect(back.body.spec.ports![0]!.nodePort).toBeUndefined();
    expect(back.body.spec.externalTrafficPolicy).toBeUndefined();

    // A PUT that leaves clusterIP out keeps it, as kubectl replace expects.
    const { clusterIP: _ip, clusterIPs: _ips, ...rest } = back.body.spec;
    const put = await f.json<Service>('PUT', `${services}/web`, { body: { ...back.body, spec: { ...rest, ports: [{ port: 8080 }] } } });
    expect(put.status).toBe(200);
    expect(put.body.spec).toMatchObject({ clusterIP: created.spec.clusterIP, clusterIPs: [created.spec.clusterIP], ports: [{ port: 8080, protocol: 'TCP', targetPort: 8080 }] });

    const moved = await f.json<KubeStatus>('PATCH', `${services}/web`, { body: { spec: { clusterIP: '10.96.9.9', clusterIPs: ['10.96.9.9'] } }, contentType: merge });
    expect(moved.status).toBe(422);
    expect(causesOf(moved.body)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"10.96.9.9"}: may not change once set']);
  });

  it('rejects invalid ports with 422 and one cause per problem', async () => {
    const f = await apiFixture();
    const none = await create(f, svc('a', { ports: [] }));
    expect(none.status).toBe(422);
    expect(causesOf(none.body)).toEqual(['spec.ports: Required value']);
    const bad = await create(f, svc('b', { ports: [{ port: 0 }, { port: 70000, protocol: 'HTTP', targetPort: 'Not_A_Name' }] }));
    expect(bad.status).toBe(422);
    expect(causesOf(bad.body)).toEqual([
      'spec.ports[0].name: Required value',
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[1].name: Required value',
      'spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[1].targetPort: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
    expect(bad.body.message).toMatch(/^Service "b" is invalid: \[spec\.ports\[0\]\.name: Required value, /);
    const dup = await create(f, svc('c', { ports: [{ name: 'web', port: 80 }, { name: 'web', port: 81 }] }));
    expect(causesOf(dup.body)).toEqual(['spec.ports[1].name: Duplicate value: "web"']);
    const kind = await create(f, svc('d', { type: 'Balancer' }));
    expect(causesOf(kind.body)).toEqual(['spec.type: Unsupported value: "Balancer": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
    const headlessNodePort = await create(f, svc('e', { type: 'NodePort', clusterIP: 'None' }));
    expect(causesOf(headlessNodePort.body)).toContain(`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`);
  });

  it('prints Services and Endpoints as kubectl get shows them', async () => {
    const f = await apiFixture();
    await create(f, svc('web'));
    await create(f, svc('np', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30080 }, { name: 'b', port: 53, protocol: 'UDP' }] }));
    await f.clock.advance(90_000);
    const table = await f.json<{ columnDefinitions: { name: string; priority?: number }[]; rows: { cells: unknown[] }[] }>('GET', services, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => `${c.name}${c.priority ? '*' : ''}`)).toEqual(['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([
      ['np', 'NodePort', '10.96.1.2', '<none>', '80:30080/TCP,53:30086/UDP', '90s', 'app=np'],
      ['web', 'ClusterIP', '10.96.1.1', '<none>', '80/TCP', '90s', 'app=web'],
    ]);

    const ep = (ips: string[], notReady: string[] = []): Endpoints => ({
      metadata: { name: 'web' },
      subsets: [{ addresses: ips.map((ip) => ({ ip })), notReadyAddresses: notReady.map((ip) => ({ ip })), ports: [{ port: 80 }] }],
    });
    await f.json('POST', '/api/v1/namespaces/default/endpoints', { body: ep(['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'], ['10.0.0.9']) });
    await f.json('POST', '/api/v1/namespaces/default/endpoints', { body: { metadata: { name: 'empty' } } });
    const eps = await f.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>('GET', '/api/v1/namespaces/default/endpoints', { accept: tableAccept });
    expect(eps.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Endpoints', 'Age']);
    expect(eps.body.rows.map((r) => r.cells)).toEqual([
      ['empty', '<none>', '0s'],
      ['web', '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...', '0s'],
    ]);
    expect(endpointsText(ep(['10.0.0.1']))).toBe('10.0.0.1:80');
    expect(endpointsText(ep([], ['10.0.0.1']))).toBe('');
  });

  it('is discoverable as svc (category all) and ep', async () => {
    const f = await apiFixture();
    const res = await f.json<{ resources: { name: string; shortNames?: string[]; categories?: string[] }[] }>('GET', '/api/v1');
    const byName = new Map(res.body.resources.map((r) => [r.name, r]));
    expect(byName.get('services')).toMatchObject({ shortNames: ['svc'], categories: ['all'] });
    expect(byName.has('services/status')).toBe(true);
    expect(byName.get('endpoints')).toMatchObject({ shortNames: ['ep'] });
  });

  it('bootstraps the kubernetes Service on the first address, once', async () => {
    const f = await apiFixture();
    const client = f.api.loopback(ADMIN_TOKEN);
    await ensureKubernetesService(client);
    await ensureKubernetesService(client);
    const k = await f.json<Service>('GET', `${services}/kubernetes`);
    expect(k.body.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    expect(k.body.spec).toMatchObject({ type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] });
    expect(k.body.spec.selector).toBeUndefined();
  });
});

describe('service ranges', () => {
  it('picks the lowest free value of the high band, then of the low band', () => {
    const small = ipRange('10.0.0.0/27'); // 30 addresses, the first 16 left to explicit requests
    expect(small).toMatchObject({ cidr: '10.0.0.0/27', size: 30, lowBand: 16 });
    expect(pickServiceIP(small, new Set())).toBe('10.0.0.17');
    const highTaken = new Set(Array.from({ length: 14 }, (_, i) => `10.0.0.${17 + i}`));
    expect(pickServiceIP(small, highTaken)).toBe('10.0.0.1');
    const all = new Set([...highTaken, ...Array.from({ length: 16 }, (_, i) => `10.0.0.${1 + i}`)]);
    expect(pickServiceIP(small, all)).toBeUndefined();
    const ports = portRange(30000, 32767);
    expect(ports.lowBand).toBe(86);
    expect(pickNodePort(ports, new Set([30086, 30087]))).toBe(30088);
  });
});
