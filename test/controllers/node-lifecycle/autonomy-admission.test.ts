import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../shared/types.js';
import { apiFixture, pod } from '../../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';
const notReady300 = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

describe('admission: KubeEdge autonomy label', () => {
  it('gives a pod labelled app-offline.kubeedge.io=autonomy an unreachable toleration without seconds', async () => {
    const f = await apiFixture();
    const res = await f.json<Pod>('POST', pods, { body: pod('offline', { metadata: { name: 'offline', labels: { 'app-offline.kubeedge.io': 'autonomy' } } }) });
    expect(res.status).toBe(201);
    expect(res.body.spec.tolerations).toEqual([notReady300, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
  });

  it('keeps the 300 s default for other pods and other label values', async () => {
    const f = await apiFixture();
    const res = await f.json<Pod>('POST', pods, { body: pod('other', { metadata: { name: 'other', labels: { 'app-offline.kubeedge.io': 'no' } } }) });
    expect(res.body.spec.tolerations).toEqual([notReady300, { ...notReady300, key: 'node.kubernetes.io/unreachable' }]);
  });

  it('leaves an unreachable toleration the user wrote alone', async () => {
    const f = await apiFixture();
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 };
    const body = pod('mine', { metadata: { name: 'mine', labels: { 'app-offline.kubeedge.io': 'autonomy' } }, spec: { containers: [{ name: 'app', image: 'nginx' }], tolerations: [own] } });
    const res = await f.json<Pod>('POST', pods, { body });
    expect(res.body.spec.tolerations).toEqual([own, notReady300]);
  });
});
