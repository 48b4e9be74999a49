import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/**
 * The real kubectl's generator commands: their typed client sends Kubernetes protobuf bodies
 * (and accepts protobuf or JSON answers; kedge answers JSON).
 */
describe.skipIf(!hasKubectl)('kubectl create <generator> with protobuf bodies', () => {
  let f: HttpApiFixture;
  const seen: ApiRequest[] = [];
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const posted = (path: string): ApiRequest[] => seen.filter((r) => r.method === 'POST' && r.path === path);
  const created = (text: string): Run => ({ code: 0, stdout: `${text} created\n`, stderr: '' });

  beforeAll(async () => {
    f = await httpApiFixture({ tap: (req) => seen.push(req) });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates a namespace, gets it, and deletes it', async () => {
    expect(await kubectl('create', 'namespace', 'foo')).toEqual(created('namespace/foo'));
    const [post] = posted('/api/v1/namespaces');
    expect(post!.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(post!.headers.accept).toBe('application/vnd.kubernetes.protobuf,application/json');

    expect(await kubectl('get', 'namespace', 'foo', '-o', 'jsonpath={.metadata.name} {.status.phase}')).toEqual({ code: 0, stdout: 'foo Active', stderr: '' });

    expect(await kubectl('delete', 'namespace', 'foo', '--wait=false')).toEqual({ code: 0, stdout: 'namespace "foo" deleted\n', stderr: '' });
    // No namespace controller runs here: the namespace is either gone or Terminating.
    const after = await kubectl('get', 'namespace', 'foo', '-o', 'jsonpath={.status.phase}');
    if (after.code === 0) expect(after.stdout).toBe('Terminating');
    else expect(after.stderr).toBe('Error from server (NotFound): namespaces "foo" not found\n');
  });

  it('creates a ConfigMap and a Secret from literals', async () => {
    expect(await kubectl('create', 'configmap', 'x', '--from-literal=a=b')).toEqual(created('configmap/x'));
    expect(await kubectl('create', 'secret', 'generic', 's', '--from-literal=k=v')).toEqual(created('secret/s'));
    for (const path of ['/api/v1/namespaces/default/configmaps', '/api/v1/namespaces/default/secrets']) {
      expect(posted(path).map((r) => r.headers['content-type'])).toEqual(['application/vnd.kubernetes.protobuf']);
    }

    expect((await kubectl('get', 'configmap', 'x', '-o', 'jsonpath={.data.a}')).stdout).toBe('b');
    const secret = await kubectl('get', 'secret', 's', '-o', 'jsonpath={.type} {.data.k}');
    expect(secret).toEqual({ code: 0, stdout: `Opaque ${Buffer.from('v').toString('base64')}`, stderr: '' });
    const listed = await kubectl('get', 'configmap,secret', '-o', 'name');
    expect(listed.stdout.split('\n')).toEqual(expect.arrayContaining(['configmap/x', 'secret/s']));
  });

  it('creates a Deployment', async () => {
    expect(await kubectl('create', 'deployment', 'd', '--image=kedge.io/hello:1.0')).toEqual(created('deployment.apps/d'));
    expect(posted('/apis/apps/v1/namespaces/default/deployments').map((r) => r.headers['content-type'])).toEqual(['application/vnd.kubernetes.protobuf']);
    const got = await kubectl('get', 'deployment', 'd', '-o', 'jsonpath={.spec.replicas} {.spec.selector.matchLabels.app} {.spec.template.spec.containers[0].image}');
    expect(got).toEqual({ code: 0, stdout: '1 d kedge.io/hello:1.0', stderr: '' });
  });

  it('creates a ClusterIP Service', async () => {
    expect(await kubectl('create', 'service', 'clusterip', 's', '--tcp=80:8080')).toEqual(created('service/s'));
    expect(posted('/api/v1/namespaces/default/services').map((r) => r.headers['content-type'])).toEqual(['application/vnd.kubernetes.protobuf']);
    const got = await kubectl('get', 'service', 's', '-o', 'jsonpath={.spec.type} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.selector.app}');
    expect(got).toEqual({ code: 0, stdout: 'ClusterIP 80 8080 s', stderr: '' });
    const table = await kubectl('get', 'service', 's');
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\ns\s+ClusterIP\s+\S+\s+<none>\s+80\/TCP\s+\d+s\n$/);
  });
});
