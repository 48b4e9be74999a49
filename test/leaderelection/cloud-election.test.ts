import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloudElection, type CloudElection } from '../../cloud/leaderelection/index.js';
import type { Lease } from '../../shared/config-types.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../support/api-fixture.js';
import { runUntil } from '../support/settle.js';

/** What a cloud's composition root gets: the hub's candidacy (for node admission) and the control plane's `elect`. */
describe("a cloud's leader election", () => {
  let fx: ApiFixture;
  const dirs: string[] = [];
  const elections: CloudElection[] = [];
  afterEach(async () => {
    for (const e of elections.splice(0)) await e.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  async function cloud(enabled = true): Promise<CloudElection> {
    const dataDir = await mkdtemp(join(tmpdir(), 'kedge-election-'));
    dirs.push(dataDir);
    const election = await startCloudElection({ enabled, dataDir, api: fx.api.loopback(ADMIN_TOKEN), clock: fx.clock, timing: defaultTiming, logger: silentLogger });
    elections.push(election);
    return election;
  }
  const hubLease = () => fx.api.loopback(ADMIN_TOKEN).list<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-system' });

  it("a lone cloud's hub leads on return; a second cloud's stands by, knowing the first's identity, and takes over when it closes", async () => {
    fx = await apiFixture();
    const first = await cloud();
    expect(await firstValueFrom(first.hubLeading$)).toBe(true);
    const second = await cloud();
    let secondLeads = false;
    second.hubLeading$.subscribe((on) => (secondLeads = on));
    expect(secondLeads).toBe(false);
    expect(second.hubLeader()).toBe(first.hubLeader());
    expect((await hubLease()).items.map((l) => [l.metadata.name, l.spec?.holderIdentity])).toEqual([['kedge-hub', first.hubLeader()]]);
    await first.close();
    await runUntil(fx.clock, () => secondLeads, "the second cloud's hub to lead", { budgetMs: 2.2 * defaultTiming.retryPeriodMs });
    expect(second.elect).toBeDefined();
  });

  it('with election off, the hub always leads, nothing campaigns and no Lease is written', async () => {
    fx = await apiFixture();
    const off = await cloud(false);
    expect(await firstValueFrom(off.hubLeading$)).toBe(true);
    expect([off.elect, off.hubLeader()]).toEqual([undefined, undefined]);
    expect((await hubLease()).items).toEqual([]);
  });
});
