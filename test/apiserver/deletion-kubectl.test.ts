import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

describe.skipIf(!hasKubectl)('kubectl delete: the DeleteOptions it sends and the errors it prints', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);

  beforeAll(async () => {
    f = await httpApiFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('--cascade=orphan reaches the apiserver as propagationPolicy Orphan', async () => {
    const api = f.api.loopback(f.token);
    await api.create<Pod>({ resource: 'pods', namespace: 'default' }, {
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
    const r = await kubectl('delete', 'pod', 'held', '--cascade=orphan', '--wait=false');
    expect(r).toMatchObject({ code: 0, stdout: 'pod "held" deleted\n' });
    const held = await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'held' });
    expect(held.metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
    expect(held.metadata.deletionTimestamp).toBeDefined();
  });

  it('prints the Forbidden of an immortal namespace', async () => {
    const r = await kubectl('delete', 'namespace', 'kube-system', '--wait=false');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });
});
