import { describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { NodeSession } from '../../cloud/hub/node-session.js';
import { desiredOf } from '../../cloud/hub/resync.js';
import type { ConfigMap } from '../../shared/config-types.js';
import { FakeClock } from '../../shared/clock.js';
import { decodeDown } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type HelloMessage, type ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

const timing = { resendMinMs: 100, resendMaxMs: 400 };
const pod = (name: string, uid: string, rv: string): Pod => ({
  metadata: { namespace: 'default', name, uid, resourceVersion: rv },
  spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' },
});

const configMap = (uid: string, rv: string) => desiredOf('ConfigMap', { metadata: { namespace: 'default', name: 'cfg', uid, resourceVersion: rv }, data: { k: rv } } as ConfigMap);

function setup() {
  const clock = new FakeClock();
  const ledger = new MemoryAckLedger();
  const wire: DownMessage[] = [];
  const cloud = new EnvelopeStamper('cloud', 'c0');
  const edge = new EnvelopeStamper('edge-1', 'e1');
  const transport = {
    send: (_node: string, draft: Parameters<EnvelopeStamper['stamp']>[0]) => {
      const m = cloud.stamp(draft) as DownMessage;
      wire.push(m);
      return m;
    },
    resend: (_node: string, m: DownMessage) => void wire.push(m),
  };
  const stale: { uid: string; ranForMs: number }[] = [];
  const onStaleStopped = (_node: string, ref: ObjectRef, deletedAt: number) => void stale.push({ uid: ref.uid, ranForMs: clock.now() - deletedAt });
  const session = new NodeSession('edge-1', { clock, timing, ledger, transport, onStaleStopped });
  const hello = (holds: ObjectRef[] = []): HelloMessage => edge.stamp({ type: 'hello', body: { bootId: 'b', holds } }) as HelloMessage;
  const kinds = () => wire.map((m) => (m.type === 'apply' || m.type === 'delete' ? `${m.type} ${m.ref.uid}@${m.ref.resourceVersion ?? ''}` : m.type));
  return { clock, ledger, wire, session, hello, kinds, stale };
}

describe('NodeSession', () => {
  it('sends nothing before hello, then the difference and synced [SYNC-4][SYNC-10]', () => {
    const t = setup();
    t.session.podBound(pod('a', 'ua', '5'));
    expect(t.wire).toEqual([]);
    const h = t.hello();
    t.session.hello(h);
    expect(t.kinds()).toEqual(['apply ua@5', 'synced']);
    expect(t.wire[1]).toMatchObject({ type: 'synced', parentId: h.id, body: { applies: 1, deletes: 0 } });
  });

  it('records acks in the ledger and stops re-sending [SYNC-5]', async () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    expect(t.session.ack(t.wire[1]!.id)).toBe(true);
    expect(t.ledger.get('edge-1', 'ua')?.resourceVersion).toBe('5');
    await t.clock.advance(1000);
    expect(t.kinds()).toEqual(['synced', 'apply ua@5']);
    expect(t.session.ack(t.wire[1]!.id)).toBe(false);
  });

  it('re-sends the same envelope with doubling backoff up to the max [SYNC-4]', async () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    await t.clock.advance(99);
    expect(t.wire).toHaveLength(2);
    await t.clock.advance(1); // 100
    await t.clock.advance(200); // 300
    await t.clock.advance(400); // 700
    await t.clock.advance(400); // 1100
    expect(t.wire).toHaveLength(6);
    expect(new Set(t.wire.slice(1).map((m) => m.id)).size).toBe(1);
  });

  it('on a slow link: re-sends nothing queued behind messages the node keeps acking, and learns how long its acks take', async () => {
    const t = setup();
    t.session.hello(t.hello());
    for (let i = 0; i < 6; i++) t.session.podBound(pod(`p${i}`, `u${i}`, '5'));
    const sent = t.wire.slice(1);
    expect(sent).toHaveLength(6);
    // A 256 kbit/s link: each is acked 80 ms after the one before; the first after the round trip.
    for (const [i, m] of sent.entries()) {
      await t.clock.advance(i === 0 ? 90 : 80);
      expect(t.session.ack(m.id)).toBe(true);
    }
    expect(t.wire).toHaveLength(7); // the last one waited 490 ms, beyond resendMinMs, and was never sent again
    // Then one is lost: it goes out again once the node has been silent for the wait it learnt.
    t.session.podBound(pod('lost', 'ul', '5'));
    await t.clock.advance(100);
    expect(t.wire).toHaveLength(8);
    await t.clock.advance(300);
    expect(t.kinds().at(-1)).toBe('apply ul@5');
    expect(t.wire).toHaveLength(9);
  });

  it('coalesces: only the newest version is pending [SYNC-3]', () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.podBound(pod('a', 'ua', '6'));
    t.session.podBound(pod('a', 'ua', '6'));
    expect(t.kinds()).toEqual(['synced', 'apply ua@5', 'apply ua@6']);
    t.session.ack(t.wire[1]!.id); // the late ack of v5 still tells us what the edge holds
    expect(t.ledger.get('edge-1', 'ua')?.resourceVersion).toBe('5');
    expect(t.session.pending).toBe(1);
    t.session.ack(t.wire[2]!.id);
    expect(t.ledger.get('edge-1', 'ua')?.resourceVersion).toBe('6');
    expect(t.session.pending).toBe(0);
  });

  it('keeps at most the pending transmission and the one it superseded awaiting an ack, for a node that never acks', () => {
    const t = setup();
    t.session.hello(t.hello());
    for (let rv = 1; rv <= 100; rv++) t.session.podBound(pod('a', 'ua', String(rv)));
    expect(t.session.awaitingAck).toBe(2);
    t.session.ack(t.wire.at(-2)!.id); // the superseded one still counts...
    expect(t.ledger.get('edge-1', 'ua')?.resourceVersion).toBe('99');
    expect(t.session.ack(t.wire[1]!.id)).toBe(false); // ...not the ones before it
    t.session.ack(t.wire.at(-1)!.id);
    expect(t.session.awaitingAck).toBe(0);
  });

  it('tombstones a delivered pod and forgets it once acked [SYNC-3][SYNC-5]', () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.ack(t.wire[1]!.id);
    t.session.podGone('ua');
    expect(t.wire[2]).toMatchObject({ type: 'delete', ref: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'ua' } });
    t.session.ack(t.wire[2]!.id);
    expect(t.ledger.get('edge-1', 'ua')).toBeUndefined();
  });

  it('drops a pending apply that never left the cloud instead of sending a tombstone', () => {
    const t = setup();
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.podGone('ua');
    t.session.hello(t.hello());
    expect(t.kinds()).toEqual(['synced']);
  });

  it('stops re-sending on presence offline of the same epoch only', async () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    expect(t.session.offline('other')).toBe(false);
    expect(t.session.offline('e1')).toBe(true);
    expect(t.session.connected).toBe(false);
    await t.clock.advance(1000);
    t.session.podBound(pod('b', 'ub', '6'));
    expect(t.kinds()).toEqual(['synced', 'apply ua@5']);
  });

  it('resumes a node that was online before the hub listened from its ledger, without synced [SYNC-14]', () => {
    const t = setup();
    const ref = (name: string, uid: string, rv: string): ObjectRef => ({ kind: 'Pod', namespace: 'default', name, uid, resourceVersion: rv });
    t.ledger.reset('edge-1', [ref('a', 'ua', '5'), ref('z', 'uz', '3'), ref('k', 'uk', '7')]);
    t.session.podBound(pod('a', 'ua', '6'));
    t.session.podBound(pod('b', 'ub', '1'));
    t.session.podBound(pod('k', 'uk', '7'));
    expect(t.wire).toEqual([]);

    expect(t.session.resume('e1')).toBe(true);
    expect(t.session.connected).toBe(true);
    expect(t.kinds().sort()).toEqual(['apply ua@6', 'apply ub@1', 'delete uz@']);
    expect(t.session.resume('e1')).toBe(false);
    expect(t.session.offline('e1')).toBe(true);
  });

  it('re-sends on resume what was in flight when the node went away', async () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.offline('e1');
    await t.clock.advance(1000);
    expect(t.kinds()).toEqual(['synced', 'apply ua@5']);
    t.session.resume('e2');
    expect(t.kinds()).toEqual(['synced', 'apply ua@5', 'apply ua@5']);
    expect(t.session.ack(t.wire[2]!.id)).toBe(true);
    await t.clock.advance(1000);
    expect(t.wire).toHaveLength(3);
  });

  it('answers the hello that follows a resume as any other', () => {
    const t = setup();
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.resume('e1');
    t.session.hello(t.hello([{ kind: 'Pod', namespace: 'default', name: 'a', uid: 'ua', resourceVersion: '5' }]));
    expect(t.kinds()).toEqual(['apply ua@5', 'synced']);
    expect(t.wire[1]).toMatchObject({ type: 'synced', body: { applies: 0, deletes: 0 } });
  });

  it('reports a pod deleted while the node was away once the edge confirms it stopped it', async () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.podBound(pod('b', 'ub', '6'));
    t.session.ack(t.wire[1]!.id);
    t.session.ack(t.wire[2]!.id);
    t.session.offline('e1');
    await t.clock.advance(60_000);
    t.session.podGone('ua'); // evicted while the node is unreachable
    await t.clock.advance(240_000);
    t.session.hello(t.hello([{ kind: 'Pod', namespace: 'default', name: 'a', uid: 'ua', resourceVersion: '5' }, { kind: 'Pod', namespace: 'default', name: 'b', uid: 'ub', resourceVersion: '6' }]));
    const tombstone = t.wire.find((m) => m.type === 'delete')!;
    expect(t.stale).toEqual([]);
    await t.clock.advance(1_000);
    t.session.ack(tombstone.id);
    expect(t.stale).toEqual([{ uid: 'ua', ranForMs: 241_000 }]);
  });

  it('does not report pods deleted while the node was connected', () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.podBound(pod('a', 'ua', '5'));
    t.session.ack(t.wire[1]!.id);
    t.session.podGone('ua');
    t.session.ack(t.wire.find((m) => m.type === 'delete')!.id);
    expect(t.stale).toEqual([]);
  });

  it('asks the edge to re-report statuses while the node controller has a pod marked not ready [SYNC-15]', () => {
    const t = setup();
    const conditions = (ready: 'True' | 'False', containersReady: 'True' | 'False') => [
      { type: 'Ready', status: ready },
      { type: 'ContainersReady', status: containersReady },
    ];
    const withStatus = (p: Pod, ready: 'True' | 'False', containersReady: 'True' | 'False'): Pod => ({ ...p, status: { conditions: conditions(ready, containersReady) } });
    const a = pod('a', 'ua', '5');
    t.session.podBound(withStatus(a, 'True', 'True'));
    const resend = () => {
      t.session.hello(hello(t));
      const synced = t.wire.filter((m) => m.type === 'synced').at(-1);
      return synced?.type === 'synced' ? synced.body.resendStatuses : 'no synced';
    };
    const hello = (x: typeof t) => x.hello([{ kind: 'Pod', namespace: 'default', name: 'a', uid: 'ua', resourceVersion: '5' }]);
    expect(resend()).toBeUndefined();
    t.session.statusChanged(withStatus(a, 'False', 'True')); // the node controller's mark
    expect(resend()).toBe(true);
    t.session.statusChanged(withStatus(a, 'False', 'False')); // the edge's own report: not ready
    expect(resend()).toBeUndefined();
    t.session.statusChanged(withStatus(a, 'False', 'True'));
    t.session.podGone('ua');
    expect(resend()).toBeUndefined();
  });

  it('rejects a synced whose resendStatuses is not a boolean', () => {
    const cloud = new EnvelopeStamper('cloud', 'c9');
    const synced = { ...cloud.stamp({ type: 'synced', parentId: 'e1.1', body: { applies: 0, deletes: 0 } }), body: { applies: 0, deletes: 0, resendStatuses: 'yes' } };
    expect(decodeDown(JSON.stringify(synced))).toEqual({ ok: false, reason: 'synced: body.resendStatuses must be a boolean' });
  });
});

describe('NodeSession with ConfigMaps and Secrets [SYNC-18]', () => {
  it('sends a wanted ConfigMap, its newer versions, and a tombstone once unwanted; the ledger follows the acks', () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.want(configMap('c1', '5'));
    expect(t.session.ack(t.wire.at(-1)!.id)).toBe(true);
    expect(t.ledger.get('edge-1', 'c1')).toMatchObject({ kind: 'ConfigMap', name: 'cfg', resourceVersion: '5' });
    t.session.want(configMap('c1', '5')); // the same version again (a relist): nothing
    t.session.want(configMap('c1', '6'));
    t.session.ack(t.wire.at(-1)!.id);
    t.session.unwant('c1');
    t.session.ack(t.wire.at(-1)!.id);
    expect(t.kinds()).toEqual(['synced', 'apply c1@5', 'apply c1@6', 'delete c1@']);
    expect(t.ledger.held('edge-1').size).toBe(0);
  });

  it('while the node is away: only the newest version is pending, and it goes out on hello', () => {
    const t = setup();
    t.session.want(configMap('c1', '5'));
    t.session.want(configMap('c1', '7'));
    expect(t.session.pending).toBe(1);
    t.session.hello(t.hello([{ kind: 'ConfigMap', namespace: 'default', name: 'cfg', uid: 'c1', resourceVersion: '5' }]));
    expect(t.kinds()).toEqual(['apply c1@7', 'synced']);
  });

  it('one never sent and unwanted again leaves nothing to send', () => {
    const t = setup();
    t.session.want(configMap('c1', '5'));
    t.session.unwant('c1');
    t.session.hello(t.hello());
    expect([t.kinds(), t.session.desired.size]).toEqual([['synced'], 0]);
  });

  it('a ConfigMap tombstoned while the node was away is no pod: no StalePodStopped', () => {
    const t = setup();
    t.session.hello(t.hello());
    t.session.want(configMap('c1', '5'));
    t.session.ack(t.wire.at(-1)!.id);
    t.session.offline('e1');
    t.session.unwant('c1');
    t.session.hello(t.hello([{ kind: 'ConfigMap', namespace: 'default', name: 'cfg', uid: 'c1', resourceVersion: '5' }]));
    expect(t.kinds().slice(-2)).toEqual(['delete c1@5', 'synced']);
    t.session.ack(t.wire.at(-2)!.id);
    expect([t.stale.map((s) => s.uid), t.ledger.held('edge-1').size]).toEqual([[], 0]);
  });

  it('resumed from its ledger [SYNC-14]: the new uid of a re-created ConfigMap, and a tombstone for the old one', () => {
    const t = setup();
    t.ledger.record('edge-1', { kind: 'ConfigMap', namespace: 'default', name: 'cfg', uid: 'c1', resourceVersion: '5' });
    t.session.want(configMap('c2', '9'));
    expect(t.session.resume('e1')).toBe(true);
    expect(t.kinds().sort()).toEqual(['apply c2@9', 'delete c1@']);
  });
});
