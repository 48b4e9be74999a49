import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stableJson } from '../../cloud/client/object-meta.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** What these tests read of an object `kubectl get -o json` prints. */
interface Live {
  metadata: { resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string>; managedFields?: unknown };
  spec?: { template?: { spec?: { containers?: Record<string, unknown>[] } } };
}

/** A Deployment with two containers, the first with ports and env. */
function twoContainers(image: string): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'pair', labels: { app: 'pair' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'pair' } },
      template: {
        metadata: { labels: { app: 'pair' } },
        spec: {
          runtimeClassName: 'sim',
          containers: [
            { name: 'web', image, ports: [{ containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'demo' }] },
            { name: 'sidecar', image: 'kedge.io/sidecar:1.0' },
          ],
        },
      },
    },
  };
}

/** The real kubectl's client-side apply (strategic merge patch), server-side apply and server dry run. */
describe.skipIf(!hasKubectl)('kubectl apply: strategic merge, --server-side, --dry-run=server', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const examples = join(import.meta.dirname, '../../examples');

  async function json(...args: string[]): Promise<Live> {
    const run = await kubectl('get', ...args, '-o', 'json');
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as Live;
  }

  beforeAll(async () => {
    f = await httpApiFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('changes one container\'s image and keeps the other container, the ports, the env; last-applied is byte-exact', async () => {
    const file = join(f.dir, 'pair.json');
    await writeFile(file, JSON.stringify(twoContainers('kedge.io/hello:1.0')));
    expect(await kubectl('apply', '-f', file)).toEqual({ code: 0, stdout: 'deployment.apps/pair created\n', stderr: '' });

    const edited = twoContainers('kedge.io/hello:2.0');
    await writeFile(file, JSON.stringify(edited));
    expect(await kubectl('apply', '-f', file)).toEqual({ code: 0, stdout: 'deployment.apps/pair configured\n', stderr: '' });

    const live = await json('deployment', 'pair');
    expect(live.spec?.template?.spec?.containers).toEqual([
      { name: 'web', image: 'kedge.io/hello:2.0', ports: [{ containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'MODE', value: 'demo' }], ...defaultsOf(live, 0) },
      { name: 'sidecar', image: 'kedge.io/sidecar:1.0', ...defaultsOf(live, 1) },
    ]);
    // kubectl records the manifest as sent: namespace filled in, the annotation's own map emptied.
    const withEmptyAnnotations = { ...edited, metadata: { ...(edited.metadata as object), annotations: {}, namespace: 'default' } };
    expect(live.metadata.annotations?.[LAST_APPLIED]).toBe(stableJson(withEmptyAnnotations) + '\n');
    expect(await kubectl('apply', '-f', file)).toEqual({ code: 0, stdout: 'deployment.apps/pair unchanged\n', stderr: '' });
  });

  it('applies examples/deployment.yaml server-side twice: created, then nothing written', async () => {
    const manifest = join(examples, 'deployment.yaml');
    expect(await kubectl('apply', '--server-side', '-f', manifest)).toEqual({ code: 0, stdout: 'deployment.apps/web serverside-applied\n', stderr: '' });
    const first = await json('deployment', 'web', '--show-managed-fields');
    expect(first.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' })]);

    expect(await kubectl('apply', '--server-side', '-f', manifest)).toEqual({ code: 0, stdout: 'deployment.apps/web serverside-applied\n', stderr: '' });
    const second = await json('deployment', 'web');
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    // Fields the applied configuration does not mention stay.
    expect((await kubectl('label', 'deployment', 'web', 'extra=yes')).code).toBe(0);
    expect(await kubectl('apply', '--server-side', '-f', manifest)).toEqual({ code: 0, stdout: 'deployment.apps/web serverside-applied\n', stderr: '' });
    expect((await json('deployment', 'web')).metadata.labels).toEqual({ app: 'web', extra: 'yes' });
  });

  it('refuses an apply patch without fieldManager, as kube does', async () => {
    const req: ApiRequest = {
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/c',
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${f.token}`, 'content-type': 'application/apply-patch+yaml' },
      body: Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n'),
    };
    const res = await f.api.handle(req);
    expect(res).toMatchObject({ status: 422, body: { reason: 'Invalid', message: expect.stringContaining('fieldManager: Required value') } });
  });

  it('--dry-run=server runs the create and the delete but stores nothing', async () => {
    const pod = join(examples, 'pod.yaml');
    expect(await kubectl('apply', '--dry-run=server', '-f', pod)).toEqual({ code: 0, stdout: 'pod/hello created (server dry run)\n', stderr: '' });
    expect((await kubectl('get', 'pod', 'hello')).stderr).toContain('NotFound');

    expect((await kubectl('apply', '-f', pod)).code).toBe(0);
    const before = await json('pod', 'hello');
    expect(await kubectl('delete', 'pod', 'hello', '--dry-run=server')).toEqual({ code: 0, stdout: 'pod "hello" deleted (server dry run)\n', stderr: '' });
    expect(await kubectl('label', 'pod', 'hello', 'x=y', '--dry-run=server')).toEqual({ code: 0, stdout: 'pod/hello labeled (server dry run)\n', stderr: '' });
    expect(await json('pod', 'hello')).toEqual(before);
  });

  it('a dry-run create still fails validation', async () => {
    const bad = join(f.dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [] } }));
    const run = await kubectl('create', '--dry-run=server', '-f', bad);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/invalid|Required/i);
  });
});

/** What the server defaulted on a container besides the fields under test (kept out of the comparison). */
function defaultsOf(live: Live, i: number): Record<string, unknown> {
  const { name: _n, image: _i, ports: _p, env: _e, ...rest } = live.spec!.template!.spec!.containers![i]!;
  return rest;
}
