import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKedgeError, type KedgeError } from '../../shared/errors.js';
import { FakeClock } from '../../shared/clock.js';
import { MAX_OBJECT_BYTES, MAX_OBJECT_NESTING, MAX_PAYLOAD_NESTING } from '../../shared/protocol/limits.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

const PODS = { resource: 'pods', namespace: 'default' };

/** `{x: {x: … {}}}`, `levels` objects deep. */
function chain(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { x: value };
  return value;
}

/** A pod whose unknown container field makes it exactly `depth` levels deep (pod, spec, containers, the container: 4). */
const podNested = (name: string, depth: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'kedge.io/hello:1.0', x: chain(depth - 4) }] },
});

// The bulk is an env value: kube bounds annotations to 256 KiB, not a container's env.
const podOfSize = (name: string, bulkBytes: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'kedge.io/hello:1.0', env: [{ name: 'BLOB', value: 'b'.repeat(bulkBytes) }] }] },
});

const refusal = async (write: Promise<unknown>): Promise<KedgeError> => {
  const err = await write.then(() => undefined, (e: unknown) => e);
  if (!isKedgeError(err)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
};

/**
 * Nothing is accepted that cannot be delivered: the API and the sync share one nesting limit
 * and one size limit (shared/protocol/limits.ts). The deepest object the API accepts reaches
 * an edge and runs; one level more is refused with a Status naming where. Before, a pod nested
 * 100 levels deep was created, never ran, and was sent to its edge again for ever.
 */
describe('the API accepts only what reaches an edge', () => {
  let cluster: Cluster<FakeClock>;
  beforeAll(async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await runUntil(c.clock, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.length === 1, 'edge-1 registered');
  });
  afterAll(async () => {
    await cluster.stop();
  });

  const runs = async (name: string): Promise<void> => {
    const c = cluster;
    await runUntil(c.clock, async () => (await c.api.get<Pod>({ ...PODS, name })).status?.phase === 'Running', `${name} Running`);
    expect((await c.edgePods('edge-1')).map((p) => p.metadata.name)).toContain(name);
  };

  // A Pod has no free-form field: its schema bounds its depth, and the unknown fields that could
  // nest deeper are dropped on decode, as kube drops them. The nesting limit itself is met only
  // by free-form data (a ControllerRevision's: test/apiserver/bad-inputs.test.ts).
  it('a pod nested past the limit through an unknown field is stored without it, and runs on its edge', async () => {
    expect(MAX_PAYLOAD_NESTING).toBe(MAX_OBJECT_NESTING + 1);
    await cluster.api.create(PODS, podNested('deeper', MAX_OBJECT_NESTING + 1));
    await runs('deeper');
    expect((await cluster.api.get<Pod>({ ...PODS, name: 'deeper' })).spec.containers[0]).not.toHaveProperty('x');
  });

  it('a patch cannot make a stored pod deeper either, by any patch type: the unknown fields are dropped', async () => {
    await cluster.api.create(PODS, podNested('patched', 10));
    const strategic = { spec: { containers: [{ name: 'app', y: chain(MAX_OBJECT_NESTING) }] } };
    await cluster.api.patch({ ...PODS, name: 'patched' }, strategic, 'strategic');
    await cluster.api.patch({ ...PODS, name: 'patched' }, { metadata: { labels: { a: 'b' } }, spec: { z: chain(MAX_OBJECT_NESTING) } }, 'merge');
    await cluster.api.patch({ ...PODS, name: 'patched' }, [{ op: 'add', path: '/spec/containers/0/y', value: chain(MAX_OBJECT_NESTING) }], 'json');
    const stored = await cluster.api.get<Pod>({ ...PODS, name: 'patched' });
    expect(stored.metadata.labels).toEqual({ a: 'b' });
    expect(stored.spec).not.toHaveProperty('z');
    expect(stored.spec.containers[0]).not.toHaveProperty('y');
    expect(stored.spec.containers[0]).not.toHaveProperty('x');
  });

  it('a pod near the size limit runs on its edge; one past it is a 413', async () => {
    await cluster.api.create(PODS, podOfSize('large', MAX_OBJECT_BYTES - 8 * 1024));
    await runs('large');
    const err = await refusal(cluster.api.create(PODS, podOfSize('larger', MAX_OBJECT_BYTES)));
    expect(err.code).toBe('TooLarge');
    expect(err.message).toMatch(/^Request entity too large: Pod "larger" is \d+ bytes as JSON; the limit is 1032192 \(what the sync carries to edges\)$/);
  });
});
