import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudMessageHandler } from '../../edge/metamanager/cloud-message-handler.js';
import { createMemoryCache, type CachedObject, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { silentLogger } from '../../shared/log.js';
import { cloudHistory, mulberry32, perturb, type Model, type ObjectMessage, type Rng } from './cloud-stream.js';

/**
 * Property: whatever MQTT and the cloud's outbox do to the stream (duplicates, reordering,
 * stale copies, superseded versions never sent), the edge ends with exactly what the in-order
 * stream leaves it with [SYNC-6][SYNC-7][SYNC-13], and it acks every delivery [SYNC-8].
 * Replay one seed with KEDGE_SEED=<n>.
 */
const only = process.env.KEDGE_SEED === undefined ? undefined : Number(process.env.KEDGE_SEED);
const seeds = (count: number, from = 1): number[] => (only !== undefined ? [only] : Array.from({ length: count }, (_, i) => from + i));

interface Run {
  objects: readonly Readonly<CachedObject>[];
  acks: Map<string, number>;
}

/** Feeds messages to a CloudMessageHandler over `cache`, in bursts handled concurrently. */
async function feed(cache: LocalCache, messages: readonly ObjectMessage[], rng: Rng | undefined): Promise<Run> {
  const acks = new Map<string, number>();
  const handler = new CloudMessageHandler({
    cache,
    send: async (draft) => {
      if (draft.type === 'ack') acks.set(draft.parentId, (acks.get(draft.parentId) ?? 0) + 1);
      return 'ack';
    },
    logger: silentLogger,
    onAck: () => undefined,
    onLogRequest: async () => {},
  });
  for (let i = 0; i < messages.length; ) {
    const burst = rng ? 1 + Math.floor(rng() * 4) : 1;
    await Promise.all(messages.slice(i, i + burst).map((m) => handler.handle(m)));
    i += burst;
  }
  handler.stop();
  return { objects: sorted(cache.objects()), acks };
}

const sorted = (objects: readonly Readonly<CachedObject>[]): Readonly<CachedObject>[] => [...objects].sort((a, b) => a.uid.localeCompare(b.uid));

function modelObjects(model: Model): CachedObject[] {
  return sorted(
    [...model.values()].map((pod) => ({
      uid: pod.metadata.uid!,
      kind: 'Pod',
      namespace: pod.metadata.namespace!,
      name: pod.metadata.name!,
      resourceVersion: pod.metadata.resourceVersion!,
      object: pod,
    })),
  );
}

function deliveries(messages: readonly ObjectMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(m.id, (counts.get(m.id) ?? 0) + 1);
  return counts;
}

/** One seed: the in-order run, then the perturbed run on `open()`'s cache; both must match. */
async function check(seed: number, open: () => Promise<{ cache: LocalCache; reopen?: () => Promise<LocalCache> }>): Promise<void> {
  const rng = mulberry32(seed);
  const { messages, model } = cloudHistory(rng, seed);
  const inOrder = await feed(createMemoryCache(), messages, undefined);
  const why = `seed ${seed} (replay with KEDGE_SEED=${seed})`;
  expect(inOrder.objects, `${why}: the in-order stream`).toEqual(modelObjects(model));

  const stream = perturb(rng, messages);
  const { cache, reopen } = await open();
  const run = await feed(cache, stream, rng);
  if (!isDeepEqual(run.objects, inOrder.objects)) {
    console.error(`edge-apply property failed: ${why}; delivered: ${stream.map((m) => `${m.type} ${m.ref.uid}@${m.ref.resourceVersion}`).join(', ')}`);
  }
  expect(run.objects, `${why}: the perturbed stream`).toEqual(inOrder.objects);
  expect(run.acks, `${why}: one ack per delivery`).toEqual(deliveries(stream));
  if (reopen) expect(sorted((await reopen()).objects()), `${why}: after a restart`).toEqual(inOrder.objects);
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}

describe('edge apply is order-independent (property)', () => {
  it('memory cache: 300 seeds', async () => {
    for (const seed of seeds(300)) await check(seed, async () => ({ cache: createMemoryCache() }));
  });

  describe('lowdb cache', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'kedge-property-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('lowdb cache: 60 seeds, and the same state after a restart', async () => {
      for (const seed of seeds(60, 1001)) {
        const path = join(dir, `${seed}-${CACHE_FILE}`);
        await check(seed, async () => ({ cache: await openLowdbCache(path), reopen: () => openLowdbCache(path) }));
      }
    });
  });
});
