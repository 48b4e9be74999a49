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

const podOfSize = (name: string, annotationBytes: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, annotations: { 'example.com/blob': 'b'.repeat(annotationBytes) } },
  spec: { containers: [{ name: 'app', image: 'kedge.io/hello:1.0' }] },
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

  it('the deepest pod the API accepts runs on its edge; one level deeper is a 422 naming the field', async () => {
    expect(MAX_PAYLOAD_NESTING).toBe(MAX_OBJECT_NESTING + 1);
    await cluster.api.create(PODS, podNested('deepest', MAX_OBJECT_NESTING));
    await runs('deepest');

    const err = await refusal(cluster.api.create(PODS, podNested('deeper', MAX_OBJECT_NESTING + 1)));
    const field = `spec.containers[0]${'.x'.repeat(MAX_OBJECT_NESTING + 1 - 4)}`;
    expect([err.code, err.message]).toEqual(['Invalid', `Pod "deeper" is invalid: ${field}: Too deep: must have at most 64 levels of nesting (what the sync carries to edges)`]);
    expect(err.details?.causes?.[0]).toMatchObject({ reason: 'FieldValueTooLong', field });
  });

  it('a patch may not make a stored object deeper than that, by any patch type', async () => {
    await cluster.api.create(PODS, podNested('patched', 10));
    const tooDeep = async (patch: unknown, type: 'strategic' | 'merge' | 'json'): Promise<string> => (await refusal(cluster.api.patch({ ...PODS, name: 'patched' }, patch, type))).message;
    const strategic = { spec: { containers: [{ name: 'app', y: chain(MAX_OBJECT_NESTING) }] } };
    expect(await tooDeep(strategic, 'strategic')).toContain('spec.containers[0].y.x.x');
    expect(await tooDeep({ metadata: { labels: { a: 'b' } }, spec: { z: chain(MAX_OBJECT_NESTING) } }, 'merge')).toContain('spec.z.x.x');
    // y sits at level 8 (pod, spec, containers, the container, x, x, x): a value 58 deep ends at level 65.
    const op = [{ op: 'add', path: '/spec/containers/0/x/x/x/y', value: chain(MAX_OBJECT_NESTING - 6) }];
    expect(await tooDeep(op, 'json')).toContain('spec.containers[0].x.x.x.y.x');
    expect((await cluster.api.get<Pod>({ ...PODS, name: 'patched' })).metadata.labels).toBeUndefined();
  });

  it('a pod near the size limit runs on its edge; one past it is a 413', async () => {
    await cluster.api.create(PODS, podOfSize('large', MAX_OBJECT_BYTES - 8 * 1024));
    await runs('large');
    const err = await refusal(cluster.api.create(PODS, podOfSize('larger', MAX_OBJECT_BYTES)));
    expect(err.code).toBe('TooLarge');
    expect(err.message).toMatch(/^Request entity too large: Pod "larger" is \d+ bytes as JSON; the limit is 1032192 \(what the sync carries to edges\)$/);
  });
});
