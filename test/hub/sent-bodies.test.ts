import { describe, expect, it } from 'vitest';
import { SentBodies } from '../../cloud/hub/sent-bodies.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';

const ref = (uid: string, rv: string) => ({ kind: 'Pod', namespace: 'default', name: uid, uid, resourceVersion: rv });
const body = (uid: string, rv: string): SyncedObject => ({ metadata: { name: uid, namespace: 'default', uid, resourceVersion: rv }, spec: { containers: [] } }) as SyncedObject;

describe('SentBodies: the bases of patches, bounded', () => {
  it('keeps the two newest versions of an object: an edge further behind gets it whole', () => {
    const bodies = new SentBodies();
    for (const rv of ['1', '2', '3']) bodies.remember(ref('u', rv), body('u', rv));
    expect(bodies.get('u', '1')).toBeUndefined();
    expect(bodies.get('u', '2')).toEqual(body('u', '2'));
    expect(bodies.get('u', '3')).toEqual(body('u', '3'));
    expect(bodies.size).toBe(2);
  });

  it('holds at most its limit, the least recently used going first', () => {
    const bodies = new SentBodies(2);
    bodies.remember(ref('a', '1'), body('a', '1'));
    bodies.remember(ref('b', '2'), body('b', '2'));
    bodies.get('a', '1'); // used: b is now the oldest
    bodies.remember(ref('c', '3'), body('c', '3'));
    expect([bodies.get('a', '1'), bodies.get('b', '2'), bodies.get('c', '3')].map((b) => b?.metadata.uid)).toEqual(['a', undefined, 'c']);
    expect(bodies.size).toBe(2);
    for (const rv of ['4', '5', '6']) bodies.remember(ref('a', rv), body('a', rv));
    expect(bodies.size).toBe(2);
  });
});
