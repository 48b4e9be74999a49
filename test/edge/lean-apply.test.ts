import { describe, expect, it } from 'vitest';
import { rebuild } from '../../edge/metamanager/lean-apply.js';
import type { CachedObject } from '../../edge/metamanager/local-cache.js';
import { EnvelopeStamper, type ApplyMessage, type PatchMessage } from '../../shared/protocol/envelope.js';
import { mergePatchBetween, syncedDigest, withoutStatus } from '../../shared/protocol/object-patch.js';
import type { Pod } from '../../shared/types.js';

const cloud = new EnvelopeStamper('cloud', 'c1');
const pod = (rv: string, labels: Record<string, string>, phase = 'Pending'): Pod =>
  ({ metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: rv, labels }, spec: { containers: [{ name: 'main', image: 'nginx' }] }, status: { phase } }) as Pod;
const held = (p: Pod, statusVersion?: number): CachedObject =>
  ({ kind: 'Pod', uid: p.metadata.uid!, namespace: 'default', name: 'web', resourceVersion: p.metadata.resourceVersion, object: p, ...(statusVersion !== undefined ? { statusVersion } : {}) }) as CachedObject;
const ref = (p: Pod) => ({ kind: 'Pod', namespace: 'default', name: 'web', uid: p.metadata.uid!, resourceVersion: p.metadata.resourceVersion! });

/** The cloud's patch from `base` to `target`, as the hub makes it. */
function patchOf(base: Pod, target: Pod, keepStatus = false): PatchMessage {
  const view = (p: Pod): Pod => (keepStatus ? withoutStatus(p) : p);
  const body = mergePatchBetween(view(base) as never, view(target) as never)!;
  return cloud.stamp({ type: 'patch', ref: ref(target), base: base.metadata.resourceVersion!, body, digest: syncedDigest('Pod', view(target)), ...(keepStatus ? { keepStatus: true } : {}) }) as PatchMessage;
}

describe('rebuild: what a lean message means, given what the edge holds', () => {
  const v1 = pod('10', { app: 'web' });
  const v2 = pod('12', { app: 'web', run: '1' }, 'Running');

  it('rebuilds exactly the new version from the version the patch names as its base', () => {
    expect(rebuild(patchOf(v1, v2), held(v1))).toEqual({ ok: true, body: v2 });
  });

  it('refuses a patch on another version than its base, even one whose result would pass: never applied to the wrong base', () => {
    const v11 = pod('11', { app: 'web' }); // the same content at another version
    const result = rebuild(patchOf(v1, v2), held(v11));
    expect(result).toEqual({ ok: false, reason: 'holds version 11, the patch is against 10' });
  });

  it('refuses a patch for a uid it does not hold, or holds under another uid', () => {
    expect(rebuild(patchOf(v1, v2), undefined)).toMatchObject({ ok: false, reason: /does not hold Pod u1/ });
    const other = { ...v1, metadata: { ...v1.metadata, uid: 'u0' } };
    expect(rebuild(patchOf(v1, v2), held(other))).toMatchObject({ ok: false });
  });

  it('refuses a patch whose result is not the object the cloud meant (digest)', () => {
    const forged = { ...patchOf(v1, v2), body: { metadata: { labels: { app: 'evil' } } } };
    expect(rebuild(forged, held(v1))).toMatchObject({ ok: false, reason: /digest/ });
  });

  it('refuses a patch whose result is no longer a pod', () => {
    const broken = { ...patchOf(v1, v2), body: { spec: null } };
    broken.digest = syncedDigest('Pod', { ...v1, spec: undefined });
    expect(rebuild(broken, held(v1))).toMatchObject({ ok: false, reason: 'body.spec must be an object' });
  });

  it('keeps the status the edge owns: a status-less patch or apply only for a pod it reported one of', () => {
    const own = { ...v1, status: { phase: 'Running' } } as Pod;
    const patch = patchOf(v1, v2, true);
    expect(patch.body).not.toHaveProperty('status');
    // Without a status: the cache keeps the one it holds, as for any apply once the edge reported [SYNC-12].
    expect(rebuild(patch, held(own, 7))).toEqual({ ok: true, body: withoutStatus(v2) });
    expect(rebuild(patch, held(own))).toEqual({ ok: false, reason: 'no status of its own to keep for this pod' });
    const apply = cloud.stamp({ type: 'apply', ref: ref(v2), body: withoutStatus(v2), keepStatus: true }) as ApplyMessage;
    expect(rebuild(apply, held(own, 7))).toEqual({ ok: true, body: withoutStatus(v2) });
    expect(rebuild(apply, undefined)).toMatchObject({ ok: false });
  });
});

describe('rebuild: a late copy', () => {
  it('takes a patch for a version not newer than the one held (its ack was lost) for the held object, which the cache ignores and acks', () => {
    const v1 = pod('10', { app: 'web' });
    const v2 = pod('12', { app: 'web', run: '1' });
    expect(rebuild(patchOf(v1, v2), held(v2))).toEqual({ ok: true, body: v2 });
  });
});
