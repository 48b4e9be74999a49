import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/** The contract: `kubectl patch pod X --type merge -p '{"spec":{"nodeName":"other"}}'` fails with 422 and kube's message. */
describe('kubectl patch of a pod field kube does not let change', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const pods = { resource: 'pods', namespace: 'default' };

  beforeAll(async () => {
    if (!hasKubectl) throw new Error('kubectl (v1.32) is not on PATH: this test drives the real kubectl');
    f = await httpApiFixture();
    const api = f.api.loopback(f.token);
    await api.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't1' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } as Pod);
    await api.create({ ...pods, name: 't1', subresource: 'binding' }, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 't1' }, target: { kind: 'Node', name: 'edge-1' } } as never);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('refuses a new nodeName with 422 and "pod updates may not change fields other than …"', async () => {
    const r = await kubectl('patch', 'pod', 't1', '--type', 'merge', '-p', '{"spec":{"nodeName":"other"}}', '-v=6');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PATCH https:\/\/[^ ]+\/api\/v1\/namespaces\/default\/pods\/t1\?fieldManager=kubectl-patch 422 Unprocessable Entity/);
    expect(r.stderr).toContain(
      'The Pod "t1" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{',
    );
    expect(r.stderr).toMatch(/- \tNodeName: +"edge-1",\n\+ \tNodeName: +"other",/);
    expect((await kubectl('get', 'pod', 't1', '-o', 'jsonpath={.spec.nodeName}')).stdout).toBe('edge-1');
  });

  it('lets kubectl set image change the image', async () => {
    const r = await kubectl('set', 'image', 'pod/t1', 'app=nginx:1.28');
    expect(r).toMatchObject({ code: 0, stdout: 'pod/t1 image updated\n' });
    expect((await kubectl('get', 'pod', 't1', '-o', 'jsonpath={.spec.containers[0].image}')).stdout).toBe('nginx:1.28');
  });
});
