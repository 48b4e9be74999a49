import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import type { RunningController } from '../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../cloud/controllers/events.js';
import { planNamespaceObject, rootCaCertPublisher, serviceAccountController } from '../../cloud/controllers/serviceaccount/index.js';
import { isKedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { KubeObject, Namespace } from '../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../support/api-fixture.js';
import { withInformers } from '../support/controller-context.js';
import { runUntil } from '../support/settle.js';

const ns = (extra: Partial<Namespace['metadata']> = {}, phase = 'Active'): Namespace => ({ metadata: { name: 'team', ...extra }, status: { phase } }) as Namespace;
const sa: KubeObject = { metadata: { name: 'default', namespace: 'team' } };

describe('planNamespaceObject', () => {
  const same = (): boolean => true;
  it.each([
    ['a namespace without it gets it', ns(), undefined, same, 'create'],
    ['a namespace with it is left alone', ns(), sa, same, 'none'],
    ['a changed one is put back', ns(), sa, (): boolean => false, 'update'],
    ['a namespace being deleted gets nothing', ns({ deletionTimestamp: '2026-01-01T00:00:00Z' }, 'Terminating'), undefined, same, 'none'],
    ['a namespace gone gets nothing', undefined, undefined, same, 'none'],
  ] as const)('%s', (_label, namespace, existing, current, type) => {
    expect(planNamespaceObject(namespace, existing, sa, current).type).toBe(type);
  });
});

describe('the serviceaccount controller and the root CA publisher', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let running: RunningController[];
  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    const ctx = withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() });
    running = [await serviceAccountController.start(ctx), await rootCaCertPublisher(() => 'PEM').start(ctx)];
  });
  afterEach(async () => {
    for (const c of running) await c.close();
  });
  const find = (resource: string, namespace: string, name: string) => api.get<KubeObject & { data?: Record<string, string> }>({ resource, namespace, name }).catch((err: unknown) => {
    if (isKedgeError(err, 'NotFound')) return undefined;
    throw err;
  });

  it('every namespace, and one created later, has a default ServiceAccount and kube-root-ca.crt; both come back when deleted', async () => {
    for (const namespace of ['default', 'kube-system']) await runUntil(f.clock, () => find('serviceaccounts', namespace, 'default'), `default SA in ${namespace}`);
    await api.create({ resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'later' } });
    await runUntil(f.clock, () => find('serviceaccounts', 'later', 'default'), 'default SA in a new namespace');
    const cm = await runUntil(f.clock, () => find('configmaps', 'later', 'kube-root-ca.crt'), 'kube-root-ca.crt');
    expect(cm.data).toEqual({ 'ca.crt': 'PEM' });
    await api.delete({ resource: 'serviceaccounts', namespace: 'later', name: 'default' });
    await api.patch({ resource: 'configmaps', namespace: 'later', name: 'kube-root-ca.crt' }, { data: { 'ca.crt': 'other' } }, 'merge');
    await runUntil(f.clock, () => find('serviceaccounts', 'later', 'default'), 'default SA made again');
    await runUntil(f.clock, async () => (await find('configmaps', 'later', 'kube-root-ca.crt'))?.data?.['ca.crt'] === 'PEM', 'kube-root-ca.crt put back');
  });
});
