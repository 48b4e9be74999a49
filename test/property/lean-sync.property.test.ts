import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import { canonicalJson } from '../../shared/protocol/object-patch.js';
import { mulberry32 } from '../support/random.js';
import { NODE, SyncPipeline, type Rng } from './sync-pipeline.js';

/**
 * Property (lean sync, docs/protocol.md): whatever the cloud does to a node's pods (creates,
 * changes of spec, labels or status alone, deletes, names reused by new uids), and whatever the
 * link does (loss, duplicates, any order, reconnects that lose every ack in flight), an edge
 * fed patches, status-less applies and compressed payloads ends holding exactly what an edge
 * fed whole objects holds: at every point where both links are quiet, statuses the edges
 * report themselves included. Replay one seed with KEDGE_SEED=<n>.
 */
const only = process.env.KEDGE_SEED === undefined ? undefined : Number(process.env.KEDGE_SEED);
const seeds = (count: number): number[] => (only !== undefined ? [only] : Array.from({ length: count }, (_, i) => i + 1));

const below = (rng: Rng, n: number): number => Math.floor(rng() * n);
const NAMES = ['web', 'db', 'cache', 'queue'];
const IMAGES = ['nginx:1', 'nginx:2', 'redis:7'];

/** The cloud's side: the node's live pods, each change at a new store revision, as informer events. */
class CloudModel {
  readonly live = new Map<string, Pod>(); // name → pod
  private revision = 100;
  private uids = 0;

  step(rng: Rng): { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: Pod; old?: Pod } | undefined {
    const name = NAMES[below(rng, NAMES.length)]!;
    const pod = this.live.get(name);
    if (!pod) return { type: 'ADDED', object: this.save(this.created(name)) };
    const roll = rng();
    const rv = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, resourceVersion: String(++this.revision) } });
    let next: Pod;
    if (roll < 0.2) {
      this.live.delete(name);
      return { type: 'DELETED', object: rv(pod) };
    } else if (roll < 0.45) next = { ...rv(pod), metadata: { ...rv(pod).metadata, labels: { app: name, run: String(below(rng, 5)) } } };
    else if (roll < 0.7) next = { ...rv(pod), spec: { ...pod.spec, containers: [{ name: 'main', image: IMAGES[below(rng, IMAGES.length)]! }] } };
    else if (roll < 0.8) next = { ...rv(pod), metadata: { ...pod.metadata, resourceVersion: String(this.revision), deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 } };
    else next = { ...rv(pod), status: statusOf(rng, 'cloud') }; // a status written in the cloud (the node controller): not sent alone
    return { type: 'MODIFIED', object: this.save(next), old: pod };
  }

  private created(name: string): Pod {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', uid: `uid-${++this.uids}`, resourceVersion: String(++this.revision), labels: { app: name }, managedFields: [{ manager: 'kubectl' }] },
      spec: { nodeName: NODE, containers: [{ name: 'main', image: 'nginx:1' }], restartPolicy: 'Always' },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    } as Pod;
  }

  private save(pod: Pod): Pod {
    this.live.set(pod.metadata.name!, pod);
    return pod;
  }
}

function statusOf(rng: Rng, by: string): PodStatus {
  const ready = rng() < 0.5 ? 'True' : 'False';
  return { phase: rng() < 0.7 ? 'Running' : 'Pending', conditions: [{ type: 'Ready', status: ready, lastProbeTime: null, lastTransitionTime: `2026-01-01T00:00:0${below(rng, 9)}Z`, reason: by }] } as PodStatus;
}

/** Both links quiet: every message delivered, re-sends fired until nothing is pending. */
async function drain(clock: FakeClock, rng: Rng, pipes: SyncPipeline[]): Promise<void> {
  for (let round = 0; round < 200; round++) {
    for (const p of pipes) await p.deliver(rng, 1_000);
    if (pipes.every((p) => p.inFlight === 0 && p.pending === 0)) return;
    await clock.advance(4_000);
  }
  throw new Error('the links never went quiet');
}

describe('lean sync: the same edge store as whole objects (property)', () => {
  const pipes: SyncPipeline[] = [];
  afterEach(() => pipes.splice(0).forEach((p) => p.close()));

  const tally = new Map<string, number>();

  it.each(seeds(60))('seed %i', async (seed) => {
    const rng = mulberry32(seed);
    const clock = new FakeClock();
    const cloud = new CloudModel();
    const lean = new SyncPipeline(true, clock);
    const full = new SyncPipeline(false, clock);
    pipes.push(lean, full);
    for (const p of pipes) p.reconnect();
    for (let step = 0; step < 40 + below(rng, 60); step++) {
      const roll = rng();
      if (roll < 0.45) {
        const event = cloud.step(rng);
        if (event) for (const p of pipes) p.podEvent(event as Parameters<SyncPipeline['podEvent']>[0]);
      } else if (roll < 0.75) {
        // Some of the time the edge's acks stay in flight: its next change is patched against a version it has left.
        const [count, loss, dup, downOnly] = [1 + below(rng, 6), rng() * 0.3, rng() * 0.2, rng() < 0.3];
        for (const p of pipes) await p.deliver(rng, count, loss, dup, downOnly);
      } else if (roll < 0.82) {
        for (const p of pipes) p.reconnect(); // acks in flight lost; the hello's holds become the ledger
      } else if (roll < 0.88) {
        await clock.advance(1_000 + below(rng, 4_000)); // re-sends
      } else {
        // The links go quiet; the edges agree; then both report the same status of their own for a pod.
        await drain(clock, rng, pipes);
        expect(lean.store()).toEqual(full.store());
        const held = lean.cache.objects().filter((o) => o.kind === 'Pod');
        if (held.length === 0) continue;
        const uid = held[below(rng, held.length)]!.uid;
        const [status, heard] = [statusOf(rng, 'edge'), rng() < 0.8];
        for (const p of pipes) p.report(uid, status, clock.now(), heard);
      }
    }
    await drain(clock, rng, pipes);
    expect(lean.store()).toEqual(full.store());
    // And both hold exactly the cloud's pods: the same uids, with spec and metadata as the cloud has them (a change of status alone is not sent).
    const desired = (p: Pod): string => canonicalJson([{ ...p.metadata, resourceVersion: undefined, managedFields: undefined }, p.spec]);
    const wanted = [...cloud.live.values()].map(desired).sort();
    const held = (p: SyncPipeline): string[] => p.cache.objects().map((o) => desired(o.object as Pod)).sort();
    expect(held(lean)).toEqual(wanted);
    for (const [form, n] of lean.forms) tally.set(form, (tally.get(form) ?? 0) + n);
    tally.set('refused', (tally.get('refused') ?? 0) + lean.handler.refused);
    expect(full.forms.get('patch') ?? 0).toBe(0);
  });

  it.skipIf(only !== undefined)('went through every lean form and refusal in those runs', () => {
    for (const form of ['patch', 'patch keepStatus', 'apply', 'apply keepStatus', 'compressed', 'refused']) expect(tally.get(form) ?? 0, form).toBeGreaterThan(0);
  });
});
