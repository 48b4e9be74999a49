import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { apiFixture, pod } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';

interface Reply {
  code?: number;
  reason?: string;
  message?: string;
  metadata: { resourceVersion?: string };
  items?: Pod[];
}

const names = (body: Reply): string[] => (body.items ?? []).map((p) => p.metadata.name!);

describe('list resourceVersion and resourceVersionMatch', () => {
  it("refuses invalid combinations with kube's 422 Invalid ListOptions", async () => {
    const f = await apiFixture();
    const cases: [Record<string, string>, string][] = [
      [{ resourceVersionMatch: 'NotOlderThan' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      [{ resourceVersionMatch: 'Exact', resourceVersion: '0' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      [{ resourceVersionMatch: 'Newest', resourceVersion: '3' }, 'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
      [{ sendInitialEvents: 'true' }, 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ];
    for (const [query, why] of cases) {
      const res = await f.json<Reply>('GET', pods, { query });
      expect({ status: res.status, reason: res.body.reason, message: res.body.message }).toEqual({ status: 422, reason: 'Invalid', message: `ListOptions.meta.k8s.io "" is invalid: ${why}` });
    }
    const two = await f.json<Reply>('GET', pods, { query: { resourceVersionMatch: 'Exact', continue: 'x' } });
    expect(two.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]',
    );
  });

  it('Exact lists the state at that revision; NotOlderThan and no match list the newest', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const then = String(f.store.revision);
    await f.json('POST', pods, { body: pod('b') });
    const exact = await f.json<Reply>('GET', pods, { query: { resourceVersion: then, resourceVersionMatch: 'Exact' } });
    expect([names(exact.body), exact.body.metadata.resourceVersion]).toEqual([['a'], then]);
    const newer = await f.json<Reply>('GET', pods, { query: { resourceVersion: then, resourceVersionMatch: 'NotOlderThan' } });
    expect([names(newer.body), newer.body.metadata.resourceVersion]).toEqual([['a', 'b'], String(f.store.revision)]);
    expect(names((await f.json<Reply>('GET', pods, { query: { resourceVersion: then } })).body)).toEqual(['a', 'b']);
    // kube's legacy rule: a resourceVersion with a limit and no match is read exactly.
    expect(names((await f.json<Reply>('GET', pods, { query: { resourceVersion: then, limit: '10' } })).body)).toEqual(['a']);
  });

  it('answers 410 for an Exact list of a compacted revision, 504 for a revision not reached', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const then = String(f.store.revision);
    await f.json('POST', pods, { body: pod('b') });
    await f.store.compact(f.store.revision);
    const old = await f.json<Reply>('GET', pods, { query: { resourceVersion: then, resourceVersionMatch: 'Exact' } });
    expect([old.status, old.body.reason, old.body.message]).toEqual([410, 'Expired', 'The resourceVersion for the provided list is too old.']);
    const ahead = String(f.store.revision + 10);
    const future = await f.json<Reply & { details: unknown }>('GET', pods, { query: { resourceVersion: ahead, resourceVersionMatch: 'NotOlderThan' } });
    expect([future.status, future.body.reason, future.body.message]).toEqual([504, 'Timeout', `Timeout: Too large resource version: ${ahead}, current: ${f.store.revision}`]);
    expect(future.body.details).toEqual({ causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
  });
});
