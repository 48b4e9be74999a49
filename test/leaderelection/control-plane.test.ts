import { afterEach, describe, expect, it } from 'vitest';
import { toComponentStatus } from '../../cloud/apiserver/ops/components-api.js';
import { ComponentSet } from '../../cloud/components/component-set.js';
import { addControlPlane } from '../../cloud/components/control-plane.js';
import type { Controller } from '../../cloud/controllers/controller.js';
import { SharedInformers } from '../../cloud/informer/shared-informers.js';
import { startLeaderElection, type Elect } from '../../cloud/leaderelection/index.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, node, pod, type ApiFixture } from '../support/api-fixture.js';
import { cuttableApi, type CuttableApi } from '../support/cuttable-api.js';
import { pass, runUntil } from '../support/settle.js';

const { leaseDurationMs: LEASE, renewDeadlineMs: DEADLINE, retryPeriodMs: RETRY } = defaultTiming;

/** Two clouds' control planes against one apiserver, each with its own link to it. */
describe('the scheduler and the controller-manager under leader election', () => {
  let fx: ApiFixture;
  const sets: ComponentSet[] = [];
  /** How many copies of the controller run now, and the most that ever ran at once. */
  let running = 0;
  let mostAtOnce = 0;
  const controller: Controller = {
    name: 'counting',
    start: async () => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      return { close: async () => void running-- };
    },
  };

  async function cloud(name: string): Promise<{ set: ComponentSet; link: CuttableApi }> {
    const link = cuttableApi(fx.api.loopback(ADMIN_TOKEN));
    const set = new ComponentSet(fx.clock, silentLogger);
    const elect: Elect = (lock) => startLeaderElection({ api: link.api, clock: fx.clock, timing: defaultTiming, logger: silentLogger, lock, identity: `${name}_uuid`, random: () => 0 });
    const informers = new SharedInformers(link.api, { clock: fx.clock, logger: silentLogger });
    addControlPlane(set, { api: link.api, informers, clock: fx.clock, timing: defaultTiming, logger: silentLogger, controllers: [controller], elect });
    await set.startAll();
    sets.push(set);
    return { set, link };
  }
  const message = (set: ComponentSet, name: string): string | undefined => set.list().find((s) => s.name === name)?.message;
  const bound = async (name: string): Promise<string | undefined> => (await fx.api.loopback(ADMIN_TOKEN).get<Pod>({ resource: 'pods', namespace: 'default', name })).spec.nodeName;

  afterEach(async () => {
    for (const set of sets.splice(0)) await set.close();
    running = mostAtOnce = 0;
  });

  it('run on the leading cloud only; the other stands by, healthy, naming the leader', async () => {
    fx = await apiFixture();
    const a = await cloud('a');
    const b = await cloud('b');
    expect(['scheduler', 'controller-manager', 'counting'].map((n) => message(a.set, n))).toEqual(['ok (leader)', 'ok (leader)', 'ok (leader)']);
    expect(['scheduler', 'controller-manager', 'counting'].map((n) => message(b.set, n))).toEqual(['standby (leader: a_uuid)', 'standby (leader: a_uuid)', 'standby (leader: a_uuid)']);
    expect(b.set.list().map(toComponentStatus).find((s) => s.metadata.name === 'scheduler')?.conditions).toEqual([{ type: 'Healthy', status: 'True', message: 'standby (leader: a_uuid)' }]);
    expect(running).toBe(1);
    await pass(fx.clock, 3 * LEASE, 500);
    expect(mostAtOnce).toBe(1);
  });

  it("a user's stop hands the work to the other cloud at its next try; start makes the cloud a candidate again", async () => {
    fx = await apiFixture();
    const a = await cloud('a');
    const b = await cloud('b');
    await a.set.stop('scheduler');
    const edge = node('edge-1');
    edge.status!.allocatable = { cpu: '4', memory: '8Gi', pods: '110' };
    await fx.api.loopback(ADMIN_TOKEN).create({ resource: 'nodes' }, edge);
    await fx.api.loopback(ADMIN_TOKEN).create({ resource: 'pods', namespace: 'default' }, pod('web'));
    await pass(fx.clock, 0);
    expect(await bound('web')).toBeUndefined(); // b stands by until its next try
    await runUntil(fx.clock, () => message(b.set, 'scheduler') === 'ok (leader)', "b's scheduler to lead", { budgetMs: RETRY });
    await runUntil(fx.clock, () => bound('web'), 'the pod to be bound by b', { budgetMs: RETRY });

    await a.set.stop('controller-manager');
    await runUntil(fx.clock, () => message(b.set, 'counting') === 'ok (leader)', "b's controllers to lead", { budgetMs: RETRY });
    expect([running, mostAtOnce]).toEqual([1, 1]);
    await a.set.start('controller-manager');
    expect(message(a.set, 'counting')).toBe('standby (leader: b_uuid)');
  });

  it("a cloud cut off from the API stops its controllers after the renew deadline; the other's start once the lease ran out", async () => {
    fx = await apiFixture();
    const a = await cloud('a');
    const b = await cloud('b');
    await pass(fx.clock, RETRY + 100);
    const cutAt = fx.clock.now();
    a.link.cut();
    await runUntil(fx.clock, () => running === 0, "a's controllers to stop", { stepMs: 100 });
    expect(fx.clock.now() - cutAt).toBeGreaterThanOrEqual(DEADLINE);
    expect(message(a.set, 'counting')).toBe('standby (leader: unknown)');
    await runUntil(fx.clock, () => running === 1, "b's controllers to start", { stepMs: 100 });
    expect(fx.clock.now() - cutAt).toBeGreaterThan(LEASE - RETRY);
    expect(message(b.set, 'scheduler')).toBe('ok (leader)');
    expect(mostAtOnce).toBe(1);
  });
});
