import { describe, expect, it } from 'vitest';
import type { Job } from '../../shared/batch-types.js';
import type { Node } from '../../shared/types.js';
import { apiFixture, node, type ApiFixture } from '../support/api-fixture.js';

/** ValidateXUpdate's immutable fields of the kinds beside pods, with kube's wording. */

const MERGE = 'application/merge-patch+json';
type Status = { message: string };
const jobs = '/apis/batch/v1/namespaces/default/jobs';
const services = '/api/v1/namespaces/default/services';

const patch = (f: ApiFixture, path: string, body: unknown): Promise<{ status: number; body: Status }> => f.json<Status>('PATCH', path, { body, contentType: MERGE });

const job = (name: string, spec: Record<string, unknown> = {}): Job => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'busybox' }] } }, ...spec },
});

describe('immutable fields', () => {
  it('keeps a Job\'s podFailurePolicy, backoffLimitPerIndex, managedBy and successPolicy', async () => {
    const f = await apiFixture();
    expect((await f.json('POST', jobs, { body: job('pi', { managedBy: 'kubernetes.io/job-controller' }) })).status).toBe(201);
    const managed = await patch(f, `${jobs}/pi`, { spec: { managedBy: 'example.com/other' } });
    expect(managed.body.message).toBe('Job "pi" is invalid: spec.managedBy: Invalid value: "example.com/other": field is immutable');
    const policy = await patch(f, `${jobs}/pi`, { spec: { podFailurePolicy: { rules: [] }, backoffLimitPerIndex: 1, successPolicy: { rules: [] } } });
    expect(policy.body.message).toContain('spec.podFailurePolicy: Invalid value: {"rules":[]}: field is immutable');
    expect(policy.body.message).toContain('spec.backoffLimitPerIndex: Invalid value: 1: field is immutable');
    expect(policy.body.message).toContain('spec.successPolicy: Invalid value: {"rules":[]}: field is immutable');
  });

  it('lets a suspended Job that never started change its template\'s scheduling directives, and nothing else of it', async () => {
    const f = await apiFixture();
    expect((await f.json('POST', jobs, { body: job('later', { suspend: true }) })).status).toBe(201);
    const directives = { metadata: { annotations: { a: 'b' } }, spec: { nodeSelector: { zone: 'x' }, tolerations: [{ key: 'k', operator: 'Exists' }], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Exists' }] }] } } } } };
    expect((await patch(f, `${jobs}/later`, { spec: { template: directives } })).status).toBe(200);
    const image = await f.json<Status>('PATCH', `${jobs}/later`, { body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'alpine' }], contentType: 'application/json-patch+json' });
    expect(image.body.message).toMatch(/^Job "later" is invalid: spec\.template: Invalid value: .*: field is immutable$/);

    expect((await f.json('POST', jobs, { body: job('now') })).status).toBe(201);
    const running = await patch(f, `${jobs}/now`, { spec: { template: { spec: { nodeSelector: { zone: 'x' } } } } });
    expect(running.body.message).toMatch(/spec\.template: Invalid value: .*: field is immutable$/);
  });

  it('keeps a Service\'s primary IP family and a LoadBalancer\'s class', async () => {
    const f = await apiFixture();
    const lb = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/a', selector: { app: 'x' }, ports: [{ port: 80 }] } };
    expect((await f.json('POST', services, { body: lb })).status).toBe(201);
    const moved = await patch(f, `${services}/lb`, { spec: { loadBalancerClass: 'example.com/b' } });
    expect(moved.body.message).toBe('Service "lb" is invalid: spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set');
    const family = await patch(f, `${services}/lb`, { spec: { ipFamilies: ['IPv6'] } });
    expect(family.body.message).toContain('spec.ipFamilies[0]: Invalid value: []core.IPFamily{"IPv6"}: may not change once set');
  });

  it('keeps a Node\'s providerID once set', async () => {
    const f = await apiFixture();
    expect((await f.json('POST', '/api/v1/nodes', { body: node('edge-1') })).status).toBe(201);
    expect((await patch(f, '/api/v1/nodes/edge-1', { spec: { providerID: 'kedge://edge-1' } })).status).toBe(200);
    const changed = await patch(f, '/api/v1/nodes/edge-1', { spec: { providerID: 'kedge://other' } });
    expect(changed.body.message).toBe('Node "edge-1" is invalid: spec.providerID: Forbidden: node updates may not change providerID except from "" to valid');
    expect((await f.json<Node>('GET', '/api/v1/nodes/edge-1')).body.spec?.providerID).toBe('kedge://edge-1');
  });

  it('keeps a PersistentVolume\'s nodeAffinity once set', async () => {
    const f = await apiFixture();
    const required = (value: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [value] }] }] } });
    const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'local' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], local: { path: '/data' }, nodeAffinity: required('edge-1') } };
    expect((await f.json('POST', '/api/v1/persistentvolumes', { body: pv })).status).toBe(201);
    const moved = await patch(f, '/api/v1/persistentvolumes/local', { spec: { nodeAffinity: required('edge-2') } });
    expect(moved.body.message).toMatch(/^PersistentVolume "local" is invalid: nodeAffinity: Invalid value: .*"edge-2".*: field is immutable, except for updating from beta label to GA$/);
  });
});
