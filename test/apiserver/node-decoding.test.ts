import { describe, expect, it } from 'vitest';
import { apiFixture, node, pod } from '../support/api-fixture.js';

/** Node fields of the wrong JSON type are refused as kube-apiserver's decoding refuses them, by any writer. */
describe('Node decoding', () => {
  it.each([
    ['status.conditions a number', { conditions: 1 }, 'Go struct field NodeStatus.status.conditions of type []v1.NodeCondition'],
    ['a condition type a number', { conditions: [{ type: 5, status: 'True' }] }, 'Go struct field NodeCondition.status.conditions.type of type string'],
    ['capacity values booleans', { capacity: { pods: true } }, 'Go struct field NodeStatus.status.capacity of type resource.Quantity'],
    ['addresses an object', { addresses: { type: 'InternalIP' } }, 'Go struct field NodeStatus.status.addresses of type []v1.NodeAddress'],
  ])('refuses %s with 400', async (_what, status, message) => {
    const f = await apiFixture();
    const created = await f.json('POST', '/api/v1/nodes', { body: { ...node('n1'), status } });
    expect(created.status).toBe(400);
    expect(created.body.message).toContain(message);
    await f.json('POST', '/api/v1/nodes', { body: node('n2') });
    const patched = await f.json('PATCH', '/api/v1/nodes/n2/status', { body: { status }, contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(400);
  });

  it('refuses a pod whose image is not a string with 400, as kube\'s decoding does, not a 500', async () => {
    const f = await apiFixture();
    const bad = pod('p');
    (bad.spec.containers[0] as { image: unknown }).image = 5;
    const res = await f.json('POST', '/api/v1/namespaces/default/pods', { body: bad });
    expect(res.status).toBe(400);
  });
});
