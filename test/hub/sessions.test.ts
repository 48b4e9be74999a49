import { describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { onlyStatusChanged, Sessions } from '../../cloud/hub/sessions.js';
import { FakeClock } from '../../shared/clock.js';
import { EnvelopeStamper, type DownDraft, type DownMessage, type HelloMessage } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

const pod = (nodeName: string | undefined, rv: string): Pod => ({
  metadata: { namespace: 'default', name: 'web', uid: 'u1', resourceVersion: rv },
  spec: { containers: [{ name: 'c' }], ...(nodeName ? { nodeName } : {}) },
});

describe('Sessions routing [SYNC-2][SYNC-3]', () => {
  it('sends a tombstone to the old node when a pod is bound elsewhere, an apply to the new one', () => {
    const wire: { node: string; m: DownMessage }[] = [];
    const cloud = new EnvelopeStamper('cloud', 'c');
    const ledger = new MemoryAckLedger();
    const sessions = new Sessions({
      clock: new FakeClock(),
      timing: { resendMinMs: 100, resendMaxMs: 100 },
      ledger,
      transport: {
        send: (node: string, draft: DownDraft) => {
          const m = cloud.stamp(draft) as DownMessage;
          wire.push({ node, m });
          return m;
        },
        resend: () => {},
      },
    });
    for (const node of ['a', 'b']) {
      const hello = new EnvelopeStamper(node, `${node}1`).stamp({ type: 'hello', body: { bootId: 'x', holds: [] } }) as HelloMessage;
      sessions.get(node).hello(hello);
    }
    const first = pod('a', '5');
    sessions.onPodEvent({ type: 'ADDED', object: pod(undefined, '4') });
    sessions.onPodEvent({ type: 'MODIFIED', object: first, old: pod(undefined, '4') });
    sessions.get('a').ack(wire.at(-1)!.m.id);
    sessions.onPodEvent({ type: 'MODIFIED', object: pod('b', '6'), old: first });
    const summary = wire.filter(({ m }) => m.type !== 'synced').map(({ node, m }) => `${node} ${m.type}`);
    expect(summary).toEqual(['a apply', 'a delete', 'b apply']);
    sessions.onPodEvent({ type: 'DELETED', object: pod('b', '7') });
    expect(wire.at(-1)).toMatchObject({ node: 'b', m: { type: 'delete', ref: { uid: 'u1' } } });
    expect(sessions.connected()).toEqual(['a', 'b']);
    sessions.close();
  });
});

describe('onlyStatusChanged [SYNC-3]', () => {
  const owners = (time: string) => [{ manager: 'kubelet', operation: 'Update', subresource: 'status', time }];
  const withStatus = (phase: 'Pending' | 'Running', rv: string, time: string): Pod => {
    const p = pod('a', rv);
    return { ...p, metadata: { ...p.metadata, managedFields: owners(time) }, status: { phase } } as Pod;
  };

  it('takes a status write, which also moves managedFields, for a change of status alone: nothing goes down', () => {
    expect(onlyStatusChanged(withStatus('Pending', '5', '2026-01-01T00:00:00Z'), withStatus('Running', '6', '2026-01-01T00:00:01Z'))).toBe(true);
  });

  it('still sees a change of labels or spec', () => {
    const before = withStatus('Running', '5', 't');
    const relabelled = { ...before, metadata: { ...before.metadata, labels: { run: '1' } } };
    expect(onlyStatusChanged(before, relabelled)).toBe(false);
    expect(onlyStatusChanged(before, { ...before, spec: { ...before.spec, containers: [{ name: 'c', image: 'x:2' }] } })).toBe(false);
  });
});
