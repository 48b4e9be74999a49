import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { apiFixture } from '../support/api-fixture.js';

const path = '/api/v1/namespaces/default/pods/old';

/** A status write judges the status, not the spec (kube's ValidatePodStatusUpdate). */
describe('a pod stored before a spec rule existed', () => {
  it('still takes status writes; a spec update is refused until the spec is valid', async () => {
    const f = await apiFixture();
    const stored: Pod = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'old', namespace: 'default', uid: 'u-old', resourceVersion: '0', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'gone', mountPath: '/data' }] }] },
      status: { phase: 'Pending' },
    };
    await f.store.create('/registry/pods/default/old', stored);
    const current = (await f.json<Pod>('GET', path)).body;

    const status = await f.json<Pod>('PUT', `${path}/status`, { body: { ...current, status: { phase: 'Running' } } });
    expect([status.status, status.body.status?.phase]).toEqual([200, 'Running']);

    const relabel = await f.json<{ message: string }>('PUT', path, { body: { ...status.body, metadata: { ...status.body.metadata, labels: { a: 'b' } } } });
    expect(relabel.status).toBe(422);
    expect(relabel.body.message).toContain('spec.containers[0].volumeMounts[0].name: Not found: "gone"');
  });
});
