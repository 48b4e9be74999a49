import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { newPod, podRef, startFirstPod } from '../support/cluster-pods.js';
import { pass, runUntil } from '../support/settle.js';

/** The seed's question: what happens while the scheduler is down? */
describe('scheduler stopped while the cloud runs', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('leaves new pods Pending and running pods untouched, and binds them once it starts', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    const running = await startFirstPod(c, 'before');

    await c.cloud.components.stop('scheduler');
    await c.api.create(podRef('during'), newPod('during'));
    await pass(c.clock, 30_000, 1_000);
    const waiting = await c.api.get<Pod>(podRef('during'));
    expect(waiting.spec.nodeName).toBeUndefined();
    expect(waiting.status?.phase).toBe('Pending');
    const untouched = await c.api.get<Pod>(podRef('before'));
    expect(untouched.status?.phase).toBe('Running');
    expect(untouched.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(untouched.metadata.uid).toBe(running.metadata.uid);

    await c.cloud.components.start('scheduler');
    await runUntil(c.clock, async () => (await c.api.get<Pod>(podRef('during'))).status?.phase === 'Running', 'the waiting pod bound and Running');
  });
});
