import { describe, expect, it } from 'vitest';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import { OwnNodes } from '../../cloud/hub/own-nodes.js';
import type { ReferenceAction } from '../../cloud/hub/reference-index.js';
import type { Node } from '../../shared/types.js';
import { actionLine, cacheEvent } from '../support/plan-steps.js';

const node = (rv: string, o: { uid?: string; podCIDR?: string; labels?: Record<string, string>; heartbeat?: string } = {}): Node => ({
  metadata: { name: 'edge-1', uid: o.uid ?? 'n1', resourceVersion: rv, labels: o.labels ?? { zone: 'a' }, annotations: { a: 'b' } },
  spec: o.podCIDR ? { podCIDR: o.podCIDR, podCIDRs: [o.podCIDR] } : {},
  status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: o.heartbeat ?? 't0' }] },
});
type Step = [CacheEvent<Node>['type'], Node];

function run(steps: Step[]): string[] {
  const own = new OwnNodes();
  let last: ReferenceAction[] = [];
  for (const [type, object] of steps) last = own.onNodeEvent(cacheEvent(type, object));
  return last.map(actionLine);
}

describe('OwnNodes: a node holds its own Node, sent when its labels or spec change [SYNC-19]', () => {
  it.each<{ name: string; steps: Step[]; last: string[] }>([
    { name: 'registered: its node wants it', steps: [['ADDED', node('1')]], last: ['edge-1 want Node/edge-1 n1@1'] },
    { name: 'a heartbeat (status only): nothing', steps: [['ADDED', node('1')], ['MODIFIED', node('2', { heartbeat: 't1' })]], last: [] },
    { name: 'a podCIDR given: the new version', steps: [['ADDED', node('1')], ['MODIFIED', node('2', { heartbeat: 't1' })], ['MODIFIED', node('3', { podCIDR: '127.64.1.0/24' })]], last: ['edge-1 want Node/edge-1 n1@3'] },
    { name: 'a label changed: the new version', steps: [['ADDED', node('1')], ['MODIFIED', node('4', { labels: { zone: 'b' } })]], last: ['edge-1 want Node/edge-1 n1@4'] },
    { name: 'deleted: unwanted', steps: [['ADDED', node('1')], ['DELETED', node('1')]], last: ['edge-1 unwant n1'] },
    { name: 're-registered under a new uid: the old one unwanted', steps: [['ADDED', node('1')], ['MODIFIED', node('9', { uid: 'n2' })]], last: ['edge-1 unwant n1', 'edge-1 want Node/edge-1 n2@9'] },
    { name: 'a late DELETED of an older life: nothing', steps: [['ADDED', node('9', { uid: 'n2' })], ['DELETED', node('1')]], last: [] },
  ])('$name', ({ steps, last }) => {
    expect(run(steps)).toEqual(last);
  });

  it('sends name, uid, resourceVersion, labels and spec only', () => {
    const [want] = new OwnNodes().onNodeEvent({ type: 'ADDED', object: node('3', { podCIDR: '127.64.1.0/24' }) });
    expect(want?.type === 'want' && want.object.object).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'edge-1', uid: 'n1', resourceVersion: '3', labels: { zone: 'a' } },
      spec: { podCIDR: '127.64.1.0/24', podCIDRs: ['127.64.1.0/24'] },
    });
  });
});
