import { describe, expect, it } from 'vitest';
import type { Pod, Toleration } from '../../shared/types.js';
import { apiFixture, pod, type ApiFixture } from '../support/api-fixture.js';

/** ValidatePodUpdate: what an update, a patch of any type or an apply may change in a pod. */

const pods = '/api/v1/namespaces/default/pods';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const FORBIDDEN_PREFIX =
  'Pod "t1" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n  core.PodSpec{';

type Status = { reason: string; message: string; details?: { causes?: { field?: string; reason?: string; message?: string }[] } };

async function boundPod(extra: Partial<Pod['spec']> = {}): Promise<ApiFixture> {
  const f = await apiFixture();
  const body = pod('t1');
  body.spec = { ...body.spec, ...extra };
  expect((await f.json('POST', pods, { body })).status).toBe(201);
  expect((await f.json('POST', `${pods}/t1/binding`, { body: { target: { name: 'edge-1' } } })).status).toBe(201);
  return f;
}

async function patch(f: ApiFixture, body: unknown, contentType = MERGE): Promise<{ status: number; body: Status & Pod }> {
  return f.json<Status & Pod>('PATCH', `${pods}/t1`, { body, contentType });
}

describe('pod updates', () => {
  it('refuses a new nodeName with every patch type, apply and PUT, naming the change in a diff', async () => {
    const f = await boundPod();
    const merge = await patch(f, { spec: { nodeName: 'other' } });
    expect(merge.status).toBe(422);
    expect(merge.body.reason).toBe('Invalid');
    expect(merge.body.message.startsWith(FORBIDDEN_PREFIX)).toBe(true);
    expect(merge.body.message).toContain('- \tNodeName:');
    expect(merge.body.message).toContain('"edge-1"');
    expect(merge.body.message).toContain('+ \tNodeName:');
    expect(merge.body.message).toContain('"other"');
    expect(merge.body.details?.causes).toEqual([expect.objectContaining({ field: 'spec', reason: 'FieldValueForbidden' })]);
    expect((await patch(f, { spec: { nodeName: 'other' } }, SMP)).status).toBe(422);
    expect((await patch(f, [{ op: 'replace', path: '/spec/nodeName', value: 'other' }], JSON_PATCH)).status).toBe(422);
    const applied = await f.json<Status>('PATCH', `${pods}/t1`, {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't1' }, spec: { nodeName: 'other', containers: [{ name: 'app', image: 'nginx:1.27' }] } },
      contentType: 'application/apply-patch+yaml', query: { fieldManager: 'test', force: 'true' },
    });
    expect(applied.status).toBe(422);
    expect(applied.body.message.startsWith(FORBIDDEN_PREFIX)).toBe(true);
    const current = (await f.json<Pod>('GET', `${pods}/t1`)).body;
    const put = await f.json<Status>('PUT', `${pods}/t1`, { body: { ...current, spec: { ...current.spec, restartPolicy: 'Never' } } });
    expect(put.status).toBe(422);
    expect(put.body.message).toContain('RestartPolicy:');
    expect((await f.json<Pod>('GET', `${pods}/t1`)).body.spec.nodeName).toBe('edge-1');
  });

  it('lets images, labels and annotations change, and a PUT that leaves defaulted fields out', async () => {
    const f = await boundPod();
    const image = await patch(f, { metadata: { labels: { a: 'b' }, annotations: { n: 'x' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } }, SMP);
    expect(image.status).toBe(200);
    expect(image.body.spec.containers[0]!.image).toBe('nginx:1.28');
    const current = (await f.json<Pod>('GET', `${pods}/t1`)).body;
    const { restartPolicy: _r, dnsPolicy: _d, ...withoutDefaults } = current.spec;
    expect((await f.json('PUT', `${pods}/t1`, { body: { ...current, spec: withoutDefaults } })).status).toBe(200);
  });

  it('refuses adding or removing a container, and an empty image', async () => {
    const f = await boundPod();
    const added = await patch(f, [{ op: 'add', path: '/spec/containers/-', value: { name: 'd', image: 'busybox' } }], JSON_PATCH);
    expect(added.body.message).toBe('Pod "t1" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers');
    const empty = await patch(f, [{ op: 'replace', path: '/spec/containers/0/image', value: '' }], JSON_PATCH);
    expect(empty.body.message).toBe('Pod "t1" is invalid: spec.containers[0].image: Required value');
    const spaced = await patch(f, [{ op: 'replace', path: '/spec/containers/0/image', value: ' nginx' }], JSON_PATCH);
    expect(spaced.body.message).toBe('Pod "t1" is invalid: spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace');
  });

  it('lets activeDeadlineSeconds be set and lowered, never raised or removed', async () => {
    const f = await boundPod();
    expect((await patch(f, { spec: { activeDeadlineSeconds: 100 } })).status).toBe(200);
    expect((await patch(f, { spec: { activeDeadlineSeconds: 50 } })).status).toBe(200);
    const raised = await patch(f, { spec: { activeDeadlineSeconds: 60 } });
    expect(raised.body.message).toBe('Pod "t1" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value');
    const removed = await patch(f, { spec: { activeDeadlineSeconds: null } });
    expect(removed.body.message).toBe('Pod "t1" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value');
  });

  it('lets tolerations be added and their tolerationSeconds change, but not an existing one be removed or changed', async () => {
    const f = await boundPod();
    const current = (await f.json<Pod>('GET', `${pods}/t1`)).body;
    const tolerations = current.spec.tolerations!;
    const added: Toleration[] = [...tolerations, { key: 'dedicated', operator: 'Equal', value: 'edge', effect: 'NoSchedule' }];
    expect((await patch(f, { spec: { tolerations: added } })).status).toBe(200);
    const shorter = added.map((t) => (t.tolerationSeconds ? { ...t, tolerationSeconds: 10 } : t));
    expect((await patch(f, { spec: { tolerations: shorter } })).status).toBe(200);
    const removed = await patch(f, { spec: { tolerations: shorter.filter((t) => t.key !== 'dedicated') } });
    expect(removed.body.message).toBe('Pod "t1" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
  });

  it('lets terminationGracePeriodSeconds change only from a negative value to 1', async () => {
    const f = await boundPod({ terminationGracePeriodSeconds: -1 });
    expect((await patch(f, { spec: { terminationGracePeriodSeconds: 5 } })).status).toBe(422);
    expect((await patch(f, { spec: { terminationGracePeriodSeconds: 1 } })).status).toBe(200);
    expect((await patch(f, { spec: { terminationGracePeriodSeconds: 2 } })).status).toBe(422);
  });

  it('lets scheduling gates be removed, not added, and a gated pod gain nodeSelector entries', async () => {
    const f = await apiFixture();
    const body = pod('t1');
    body.spec = { ...body.spec, schedulingGates: [{ name: 'a' }, { name: 'b' }], nodeSelector: { zone: 'x' } };
    expect((await f.json('POST', pods, { body })).status).toBe(201);
    expect((await patch(f, { spec: { nodeSelector: { disk: 'ssd' } } })).status).toBe(200);
    const changed = await patch(f, { spec: { nodeSelector: { zone: 'y' } } });
    expect(changed.body.message).toBe('Pod "t1" is invalid: spec.nodeSelector: Invalid value: {"zone":"y","disk":"ssd"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)');
    const added = await patch(f, { spec: { schedulingGates: [{ name: 'a' }, { name: 'c' }] } });
    expect(added.body.message).toBe("Pod \"t1\" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'c'");
    expect((await patch(f, { spec: { schedulingGates: [{ name: 'b' }] } })).status).toBe(200);
  });

  it('keeps the mirror pod annotation as it was created', async () => {
    const f = await boundPod();
    const added = await patch(f, { metadata: { annotations: { 'kubernetes.io/config.mirror': 'x' } } });
    expect(added.body.message).toBe('Pod "t1" is invalid: metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation');
  });

  it('still writes status through pods/status', async () => {
    const f = await boundPod();
    const current = (await f.json<Pod>('GET', `${pods}/t1`)).body;
    const put = await f.json<Pod>('PUT', `${pods}/t1/status`, { body: { ...current, status: { phase: 'Running' } } });
    expect(put.status).toBe(200);
    expect(put.body.status?.phase).toBe('Running');
  });
});
