import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Node, Pod } from '../../shared/types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/**
 * The real kubectl against ConfigMaps, Secrets, RuntimeClasses and the eviction subresource.
 * `kubectl create configmap|secret` (protobuf bodies) is in protobuf-kubectl.test.ts;
 * `kubectl create -f` (JSON) is here.
 */
describe.skipIf(!hasKubectl)('kubectl with ConfigMaps, Secrets and drain', () => {
  let f: HttpApiFixture;
  const seen: ApiRequest[] = [];
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const columns = (line: string | undefined): string[] => (line ?? '').trim().split(/\s{2,}/);

  beforeAll(async () => {
    f = await httpApiFixture({ tap: (req) => seen.push(req) });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates a ConfigMap and a Secret (stringData) and gets them with -o wide', async () => {
    const manifest = join(f.dir, 'config.json');
    await writeFile(manifest, JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'login' }, stringData: { user: 'admin', password: 'hunter2' } },
      ],
    }));
    const created = await kubectl('create', '--validate=false', '-f', manifest);
    expect(created).toMatchObject({ code: 0, stdout: 'configmap/x created\nsecret/login created\n' });

    const r = await kubectl('get', 'cm,secret', '-o', 'wide');
    expect(r.stderr).toBe('');
    const [cmHeader, cmRow, blank, secretHeader, secretRow] = r.stdout.split('\n');
    expect(columns(cmHeader)).toEqual(['NAME', 'DATA', 'AGE']);
    expect(columns(cmRow)).toEqual(['configmap/x', '1', expect.stringMatching(/^\d+s$/)]);
    expect(blank).toBe('');
    expect(columns(secretHeader)).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
    expect(columns(secretRow)).toEqual(['secret/login', 'Opaque', '2', expect.stringMatching(/^\d+s$/)]);

    const user = await kubectl('get', 'secret', 'login', '-o', 'jsonpath={.data.user}');
    expect(Buffer.from(user.stdout, 'base64').toString()).toBe('admin');
  });

  it('lists the runtime classes the cloud starts with', async () => {
    const r = await kubectl('get', 'runtimeclasses');
    expect(r.stderr).toBe('');
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(columns(header)).toEqual(['NAME', 'HANDLER', 'AGE']);
    expect(rows.map((row) => columns(row).slice(0, 2))).toEqual([['kedge-agent', 'kedge-agent'], ['process', 'process'], ['sim', 'sim']]);
  });

  it('drains a node through the eviction subresource', async () => {
    const api = f.api.loopback(f.token);
    await api.create<Node>({ resource: 'nodes' }, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' } } as Node);
    await api.create<Pod>({ resource: 'pods', namespace: 'default' }, {
      metadata: { name: 'bare' },
      spec: { nodeName: 'edge-1', runtimeClassName: 'sim', containers: [{ name: 'app', image: 'kedge.io/hello:1.0' }] },
    });
    seen.length = 0;
    // No kubelet runs here to stop the pod: grace 0 removes it at once instead of marking it.
    const r = await kubectl('drain', 'edge-1', '--ignore-daemonsets', '--force', '--grace-period=0');
    expect(r.stderr).toBe('Warning: deleting Pods that declare no controller: default/bare\n');
    expect(r).toMatchObject({ code: 0, stdout: 'node/edge-1 cordoned\nevicting pod default/bare\npod/bare evicted\nnode/edge-1 drained\n' });
    // Without the eviction subresource, drain falls back to DELETE: it must have evicted.
    expect(seen.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.path}`)).toEqual([
      'PATCH /api/v1/nodes/edge-1',
      'POST /api/v1/namespaces/default/pods/bare/eviction',
    ]);
    const gone = await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'bare' }).catch((err: unknown) => err);
    expect(isKedgeError(gone, 'NotFound')).toBe(true);
    expect((await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).spec?.unschedulable).toBe(true);
  });
});
