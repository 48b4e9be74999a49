import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedFieldsEntry } from '../../cloud/apiserver/fields/managed-fields.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

interface Live {
  metadata: { labels?: Record<string, string>; managedFields?: ManagedFieldsEntry[] };
  spec?: { replicas?: number };
  data?: Record<string, string>;
}

function deployment(replicas: number, labels: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { runtimeClassName: 'sim', containers: [{ name: 'web', image: 'kedge.io/hello:1.0' }] } } },
  };
}

/** The contract with the real kubectl: ownership conflicts, --force-conflicts, pruning, and the upgrade from client-side apply. */
describe.skipIf(!hasKubectl)('kubectl apply --server-side with field ownership', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const live = async (...args: string[]): Promise<Live> => JSON.parse((await kubectl('get', ...args, '-o', 'json', '--show-managed-fields')).stdout) as Live;
  const manifest = async (name: string, obj: unknown): Promise<string> => {
    const file = join(f.dir, name);
    await writeFile(file, JSON.stringify(obj));
    return file;
  };

  beforeAll(async () => {
    f = await httpApiFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('apply, scale, apply again: the conflict is reported; --force-conflicts wins; a dropped field is removed', async () => {
    const file = await manifest('web.json', deployment(1, { app: 'web', tier: 'front' }));
    expect(await kubectl('apply', '--server-side', '-f', file)).toMatchObject({ code: 0, stdout: 'deployment.apps/web serverside-applied\n' });
    expect(await kubectl('scale', 'deployment', 'web', '--replicas', '3')).toMatchObject({ code: 0, stdout: 'deployment.apps/web scaled\n' });

    const refused = await kubectl('apply', '--server-side', '-f', file);
    expect(refused.code).not.toBe(0);
    // kubectl 1.32's scale sends no fieldManager: kube names the manager after the user agent.
    expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
    expect((await live('deployment', 'web')).spec?.replicas).toBe(3);

    expect(await kubectl('apply', '--server-side', '--force-conflicts', '-f', file)).toMatchObject({ code: 0, stdout: 'deployment.apps/web serverside-applied\n' });
    const forced = await live('deployment', 'web');
    expect(forced.spec?.replicas).toBe(1);
    expect(forced.metadata.managedFields?.map((e) => e.subresource)).not.toContain('scale');

    await manifest('web.json', deployment(1, { app: 'web' }));
    expect((await kubectl('apply', '--server-side', '-f', file)).code).toBe(0);
    expect((await live('deployment', 'web')).metadata.labels).toEqual({ app: 'web' });
  }, 60_000);

  it('kubectl apply --server-side takes over from client-side apply: no conflict, then it prunes what it dropped', async () => {
    const cm = (data: Record<string, string>): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data });
    const file = await manifest('cm.json', cm({ a: '1', b: '1' }));
    expect((await kubectl('apply', '-f', file)).code).toBe(0);
    expect((await live('configmap', 'settings')).metadata.managedFields?.map((e) => e.manager)).toEqual(['kubectl-client-side-apply']);

    await manifest('cm.json', cm({ a: '2', b: '1' }));
    expect(await kubectl('apply', '--server-side', '-f', file)).toMatchObject({ code: 0, stdout: 'configmap/settings serverside-applied\n' });
    const upgraded = await live('configmap', 'settings');
    expect(upgraded.data).toEqual({ a: '2', b: '1' });
    // kubectl folded its client-side manager into its Apply one, and keeps the annotation under a manager of its own.
    expect(upgraded.metadata.managedFields?.map((e) => `${e.manager}/${e.operation}`).sort()).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);

    await manifest('cm.json', cm({ a: '2' }));
    expect((await kubectl('apply', '--server-side', '-f', file)).code).toBe(0);
    expect((await live('configmap', 'settings')).data).toEqual({ a: '2' });
  }, 60_000);
});
