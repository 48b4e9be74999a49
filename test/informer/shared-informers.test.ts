import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import { apiFixture, ADMIN_TOKEN, pod } from '../support/api-fixture.js';
import { SharedInformers } from '../../cloud/informer/shared-informers.js';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { runUntil } from '../support/settle.js';

const names = (events: CacheEvent<Pod>[]): string[] => events.map((e) => (e.type === 'SYNCED' ? 'SYNCED' : `${e.type} ${e.object.metadata.name}`));

describe('SharedInformers', () => {
  it('shares one watch per resource and replays the cache to a late subscriber', async () => {
    const f = await apiFixture();
    const loopback = f.api.loopback(ADMIN_TOKEN);
    let watching = 0;
    const api: ApiClient = {
      ...loopback,
      watch: (ref, options) => new Observable((subscriber) => {
        watching++;
        const inner = loopback.watch(ref, options).subscribe(subscriber as never);
        return () => (watching--, inner.unsubscribe());
      }),
    };
    await api.create({ resource: 'pods', namespace: 'default' }, pod('a'));
    const informers = new SharedInformers(api, { clock: f.clock, logger: silentLogger });
    const first: CacheEvent<Pod>[] = [];
    const one = informers.of<Pod>({ resource: 'pods' }).subscribe((e) => first.push(e));
    await runUntil(f.clock, () => first.some((e) => e.type === 'SYNCED'), 'first list');
    expect(watching).toBe(1);

    const late: CacheEvent<Pod>[] = [];
    const two = informers.of<Pod>({ resource: 'pods' }).subscribe((e) => late.push(e));
    expect(names(late)).toEqual(['ADDED a', 'SYNCED']);
    expect(watching).toBe(1);

    await api.create({ resource: 'pods', namespace: 'default' }, pod('b'));
    await runUntil(f.clock, () => late.length === 3 && first.length === 3, 'b to both');
    expect(names(late).at(-1)).toBe('ADDED b');
    one.unsubscribe();
    two.unsubscribe();
    expect(watching).toBe(0);
  });
});
