import { describe, expect, it } from 'vitest';
import { markForGracefulDeletion, podGracePeriod } from '../../cloud/apiserver/rest/graceful.js';
import { doneTerminating } from '../../cloud/hub/upstream.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, pod } from '../support/api-fixture.js';

const bound = (extra: Partial<Pod['spec']> = {}, phase?: string): Pod =>
  ({ metadata: { name: 'p' }, spec: { nodeName: 'edge-1', containers: [], ...extra }, status: phase ? { phase } : {} }) as Pod;

describe('graceful pod deletion', () => {
  it.each([
    ['a pod on a node: its terminationGracePeriodSeconds', bound({ terminationGracePeriodSeconds: 45 }), {}, 45],
    ['the default 30 s', bound(), {}, 30],
    ['the DELETE asks for less', bound(), { gracePeriodSeconds: 5 }, 5],
    ['grace 0: at once', bound(), { gracePeriodSeconds: 0 }, 0],
    ['on no node: nothing to wait for', { ...bound(), spec: { containers: [] } } as Pod, {}, 0],
    ['finished: nothing to wait for', bound({}, 'Succeeded'), {}, 0],
  ])('%s', (_what, p, options, grace) => {
    expect(podGracePeriod(p, options)).toBe(grace);
  });

  it('marks once, and only a shorter grace moves the deadline', () => {
    const now = Date.UTC(2026, 0, 1);
    const marked = markForGracefulDeletion(bound(), 30, now)!;
    expect(marked.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
    expect(markForGracefulDeletion(marked, 30, now + 1000)).toBeUndefined();
    expect(markForGracefulDeletion(marked, 5, now + 1000)!.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:06Z', deletionGracePeriodSeconds: 5 });
  });

  it('a pod is done terminating when its edge reports every container terminated [SYNC-17]', () => {
    const deleting = { ...bound(), metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:30Z' } } as Pod;
    const container = { name: 'a', image: 'i', imageID: '', lastState: {}, restartCount: 0 };
    const terminated = { containerStatuses: [{ ...container, ready: false, state: { terminated: { exitCode: 0 } } }] };
    const running = { containerStatuses: [{ ...container, ready: true, state: { running: {} } }] };
    expect(doneTerminating(deleting, terminated)).toBe(true);
    expect(doneTerminating(deleting, running)).toBe(false);
    expect(doneTerminating(bound(), terminated)).toBe(false);
  });

  it('through the API: a bound pod is marked Terminating, an unbound one goes at once', async () => {
    const f = await apiFixture();
    const api = f.api.loopback(ADMIN_TOKEN);
    const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
    await api.create(ref('on-node'), { ...pod('on-node'), spec: { ...pod('on-node').spec, nodeName: 'edge-1' } });
    await api.create(ref('pending'), pod('pending'));
    await api.delete(ref('on-node'));
    await api.delete(ref('pending'));
    const marked = await api.get<Pod>(ref('on-node'));
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(Date.parse(marked.metadata.deletionTimestamp!) - f.clock.now()).toBe(30_000);
    expect(isKedgeError(await api.get(ref('pending')).catch((e: unknown) => e), 'NotFound')).toBe(true);
    await api.delete(ref('on-node'), { gracePeriodSeconds: 0 });
    expect(isKedgeError(await api.get(ref('on-node')).catch((e: unknown) => e), 'NotFound')).toBe(true);
  });
});
