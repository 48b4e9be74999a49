import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import type { NodeSync } from '../../cloud/client/nodesync.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { NODESYNCS } from '../../cloud/hub/nodesync-api.js';
import { NodeSyncLedger } from '../../cloud/hub/nodesync-ledger.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock, settle } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';

const ref = (name: string, rv: string, uid = `uid-${name}`): ObjectRef => ({ kind: 'Pod', namespace: 'default', name, uid, resourceVersion: rv });

/** The real apiserver (MemoryStore), behind a wrapper that logs write calls, can hold them, and can fail them. */
function instrumentedApi(): { api: ApiClient; raw: ApiClient; writes: string[]; hold(): () => void; failNext(n: number): void; clock: FakeClock } {
  const clock = new FakeClock();
  const server = createApiServer({ store: new MemoryStore(), clock, logger: silentLogger, tokens: [{ token: 't', user: 'cloud', role: 'admin' }], resources: clusterResources });
  const raw = server.loopback('t');
  const writes: string[] = [];
  let held: Promise<void> | undefined;
  let failures = 0;
  const write = (verb: 'create' | 'replace' | 'delete') =>
    async (...args: unknown[]): Promise<never> => {
      writes.push(verb);
      await held;
      if (failures > 0 && failures--) throw new KedgeError('Unavailable', 'the store is down');
      return (raw[verb] as (...a: unknown[]) => Promise<never>)(...args);
    };
  const api: ApiClient = { ...raw, get: raw.get, list: raw.list, watch: raw.watch, patch: raw.patch, create: write('create'), replace: write('replace'), delete: write('delete') };
  return {
    api,
    raw,
    writes,
    clock,
    hold() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    failNext: (n) => (failures = n),
  };
}

describe('NodeSyncLedger (ack ledger in NodeSync objects)', () => {
  let t: ReturnType<typeof instrumentedApi>;
  let ledger: NodeSyncLedger;
  const stored = (node: string): Promise<NodeSync> => t.raw.get<NodeSync>({ ...NODESYNCS, name: node });
  const load = (): Promise<NodeSyncLedger> => NodeSyncLedger.load({ api: t.api, clock: t.clock, logger: silentLogger, retryMs: 100, maxRetryMs: 400 });

  beforeEach(async () => {
    t = instrumentedApi();
    ledger = await load();
  });

  it('turns a burst of acks into one write and reads from memory meanwhile', async () => {
    ledger.reset('edge-1', []);
    for (let i = 1; i <= 20; i++) ledger.record('edge-1', ref(`p${i}`, String(i)));
    ledger.forget('edge-1', 'uid-p20');
    expect(ledger.get('edge-1', 'uid-p3')).toMatchObject({ name: 'p3', resourceVersion: '3' });
    await ledger.settled();
    expect(t.writes).toEqual(['create']);
    const sync = await stored('edge-1');
    expect(Object.keys(sync.status!.objects!)).toHaveLength(19);
    expect(sync.status!.objects!['uid-p3']).toEqual({ kind: 'Pod', namespace: 'default', name: 'p3', resourceVersion: '3' });
  });

  it('keeps at most one write in flight per node; what came meanwhile goes out in one more', async () => {
    ledger.record('edge-1', ref('a', '1'));
    const release = t.hold();
    await Promise.resolve();
    for (let i = 2; i <= 10; i++) {
      ledger.record('edge-1', ref(`p${i}`, String(i)));
      await settle(); // acks arriving in separate turns
    }
    ledger.record('edge-2', ref('b', '1')); // another node writes independently
    await settle();
    expect(t.writes).toEqual(['create', 'create']);
    release();
    await ledger.settled();
    expect(t.writes).toEqual(['create', 'create', 'replace']);
    expect(Object.keys((await stored('edge-1')).status!.objects!).sort()).toEqual(['uid-a', ...[2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => `uid-p${i}`)].sort());
  });

  it('on Conflict re-reads the resourceVersion and writes its own view again', async () => {
    ledger.record('edge-1', ref('a', '1'));
    await ledger.settled();
    const current = await stored('edge-1');
    await t.raw.replace({ ...NODESYNCS, name: 'edge-1', subresource: 'status' }, { ...current, status: { objects: {} } }); // someone else wrote it
    ledger.record('edge-1', ref('b', '2'));
    await ledger.settled();
    expect(ledger.counts.conflicts).toBe(1);
    expect(Object.keys((await stored('edge-1')).status!.objects!).sort()).toEqual(['uid-a', 'uid-b']);
  });

  it('creates the NodeSync again when it was deleted behind its back', async () => {
    ledger.record('edge-1', ref('a', '1'));
    await ledger.settled();
    await t.raw.delete({ ...NODESYNCS, name: 'edge-1' });
    ledger.record('edge-1', ref('b', '2'));
    await ledger.settled();
    expect(Object.keys((await stored('edge-1')).status!.objects!).sort()).toEqual(['uid-a', 'uid-b']);
  });

  it('retries a failed write with backoff on the clock until it lands', async () => {
    t.failNext(3);
    ledger.record('edge-1', ref('a', '1'));
    const done = ledger.settled();
    await t.clock.advance(100 + 200 + 400);
    await done;
    expect(t.writes).toEqual(['create', 'create', 'create', 'create']);
    expect((await stored('edge-1')).status!.objects).toHaveProperty('uid-a');
  });

  it('reloads what it wrote; a hello that matches it writes nothing', async () => {
    ledger.reset('edge-1', [ref('a', '1'), ref('b', '2')]);
    ledger.record('edge-2', ref('c', '3'));
    await ledger.settled();
    const again = await load();
    expect(again.nodes()).toEqual(['edge-1', 'edge-2']);
    expect([...again.held('edge-1').values()]).toEqual(expect.arrayContaining([ref('a', '1'), ref('b', '2')]));
    t.writes.length = 0;
    again.reset('edge-1', [ref('b', '2'), ref('a', '1')]);
    await again.settled();
    expect(t.writes).toEqual([]);
    again.reset('edge-1', [ref('a', '5')]);
    await again.settled();
    expect(t.writes).toEqual(['replace']);
    expect(Object.keys((await stored('edge-1')).status!.objects!)).toEqual(['uid-a']);
  });

  it('deletes the NodeSync of a dropped node, and starts afresh if the node comes back', async () => {
    ledger.record('edge-1', ref('a', '1'));
    await ledger.settled();
    ledger.drop('edge-1');
    expect(ledger.held('edge-1').size).toBe(0);
    await ledger.settled();
    await expect(stored('edge-1')).rejects.toMatchObject({ code: 'NotFound' });
    expect(ledger.nodes()).toEqual([]);
    ledger.record('edge-1', ref('b', '2'));
    await ledger.settled();
    expect(Object.keys((await stored('edge-1')).status!.objects!)).toEqual(['uid-b']);
  });

  it('prints Name, Objects and Age', async () => {
    const printer = clusterResources.find((d) => d.resource === 'nodesyncs')!.printer!;
    ledger.reset('edge-1', [ref('a', '1'), ref('b', '2')]);
    await ledger.settled();
    const sync = await stored('edge-1');
    expect(printer.columns.map((c) => c.name)).toEqual(['Name', 'Objects', 'Age']);
    expect(printer.cells(sync, t.clock.now() + 61_000)).toEqual(['edge-1', 2, '61s']);
  });
});
