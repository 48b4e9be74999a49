import { afterEach, describe, expect, it } from 'vitest';
import { startLeaderElection, type LeaderElector } from '../../cloud/leaderelection/index.js';
import type { Lease } from '../../shared/config-types.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../support/api-fixture.js';
import { cuttableApi, type CuttableApi } from '../support/cuttable-api.js';
import { pass, runUntil } from '../support/settle.js';

const LOCK = { namespace: 'kube-system', name: 'kube-scheduler' };
const { leaseDurationMs: LEASE, renewDeadlineMs: DEADLINE, retryPeriodMs: RETRY } = defaultTiming;

interface Candidate {
  name: string;
  link: CuttableApi;
  elector: LeaderElector;
  /** Fake times at which it started and stopped leading. */
  terms: { from: number; to?: number }[];
}

describe('Lease leader election on a fake clock, candidates sharing one apiserver', () => {
  let fx: ApiFixture;
  const candidates: Candidate[] = [];
  let mostAtOnce = 0;
  const leading = (): Candidate[] => candidates.filter((c) => c.terms.at(-1)?.to === undefined && c.terms.length > 0);

  async function candidate(name: string, random = (): number => 0): Promise<Candidate> {
    const link = cuttableApi(fx.api.loopback(ADMIN_TOKEN));
    const elector = await startLeaderElection({ api: link.api, clock: fx.clock, timing: defaultTiming, logger: silentLogger, lock: LOCK, identity: `${name}_uuid`, random });
    const c: Candidate = { name, link, elector, terms: [] };
    candidates.push(c);
    elector.leading$.subscribe((on) => {
      if (on) c.terms.push({ from: fx.clock.now() });
      else if (c.terms.length > 0) c.terms.at(-1)!.to = fx.clock.now();
      mostAtOnce = Math.max(mostAtOnce, leading().length);
    });
    return c;
  }
  const lease = (): Promise<Lease> => fx.api.loopback(ADMIN_TOKEN).get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', ...LOCK });
  const events = async (): Promise<string[]> => {
    const list = await fx.api.loopback(ADMIN_TOKEN).list<{ reason: string; message: string } & Lease>({ resource: 'events', namespace: 'kube-system' });
    return list.items.filter((e) => e.reason === 'LeaderElection').map((e) => e.message);
  };

  afterEach(async () => {
    for (const c of candidates.splice(0)) await c.elector.close();
    mostAtOnce = 0;
  });

  it('a lone candidate leads on its first try and writes the Lease as client-go does', async () => {
    fx = await apiFixture();
    const start = fx.clock.now();
    const a = await candidate('a');
    expect(a.terms).toEqual([{ from: start }]);
    expect(a.elector.leader()).toBe('a_uuid');
    expect((await lease()).spec).toEqual({ holderIdentity: 'a_uuid', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 });
    await pass(fx.clock, RETRY);
    expect((await lease()).spec).toMatchObject({ acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:02.000000Z', leaseTransitions: 0 });
    expect(await events()).toEqual(['a_uuid became leader']);
  });

  it('exactly one of three leads, and the others know whom', async () => {
    fx = await apiFixture();
    const [a, b, c] = [await candidate('a', Math.random), await candidate('b', Math.random), await candidate('c', Math.random)];
    await pass(fx.clock, 5 * LEASE, 500);
    expect(mostAtOnce).toBe(1);
    expect(leading().map((x) => x.name)).toEqual(['a']);
    expect([a, b, c].map((x) => x.elector.leader())).toEqual(['a_uuid', 'a_uuid', 'a_uuid']);
  });

  it("the leader's close releases the Lease and another takes it at its next try", async () => {
    fx = await apiFixture();
    const a = await candidate('a');
    const b = await candidate('b');
    await pass(fx.clock, 3 * RETRY + 100);
    const closedAt = fx.clock.now();
    await a.elector.close();
    expect((await lease()).spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    await runUntil(fx.clock, () => b.terms.length > 0, 'b to lead', { stepMs: 100 });
    expect(b.terms[0]!.from - closedAt).toBeLessThanOrEqual(RETRY);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'b_uuid', leaseTransitions: 1 });
    expect(await events()).toEqual(['a_uuid became leader', 'a_uuid stopped leading', 'b_uuid became leader']);
    expect(mostAtOnce).toBe(1);
  });

  it('a leader cut off from the API steps down after the renew deadline; another leads only once the lease ran out on its clock', async () => {
    fx = await apiFixture();
    const a = await candidate('a');
    const b = await candidate('b');
    const c = await candidate('c');
    await pass(fx.clock, 4 * RETRY + 700, 100);
    const lastRenewal = Date.parse((await lease()).spec!.renewTime!);
    const cutAt = fx.clock.now();
    a.link.cut();
    await runUntil(fx.clock, () => b.terms.length + c.terms.length > 0, 'a takeover', { stepMs: 100 });
    const steppedDown = a.terms[0]!.to!;
    expect(steppedDown - cutAt).toBeGreaterThanOrEqual(DEADLINE);
    expect(steppedDown - cutAt).toBeLessThanOrEqual(DEADLINE + RETRY);
    const takeover = [...b.terms, ...c.terms][0]!.from;
    expect(takeover - lastRenewal).toBeGreaterThanOrEqual(LEASE);
    // One retry to see the last renewal, one to try again after it ran out.
    expect(takeover - lastRenewal).toBeLessThanOrEqual(LEASE + 2 * RETRY);
    expect(mostAtOnce).toBe(1);
  });

  it('a leader whose API calls hang steps down at the renew deadline, and closes without waiting for them', async () => {
    fx = await apiFixture();
    const a = await candidate('a');
    const b = await candidate('b');
    await pass(fx.clock, RETRY + 100);
    const hungAt = fx.clock.now();
    a.link.hang();
    await runUntil(fx.clock, () => a.terms[0]?.to, 'a to step down', { stepMs: 100 });
    expect(a.terms[0]!.to! - hungAt).toBeLessThanOrEqual(DEADLINE + RETRY);
    await runUntil(fx.clock, () => b.terms.length > 0, 'b to lead', { stepMs: 100 });
    let closed = false;
    void a.elector.close().then(() => (closed = true));
    await runUntil(fx.clock, () => closed, 'a to close', { stepMs: 100, budgetMs: DEADLINE });
    expect(mostAtOnce).toBe(1);
  });

  it('a candidate restarted with the same identity after a crash leads on its first try; a new one waits the lease out', async () => {
    fx = await apiFixture();
    const crashed = await candidate('a');
    const other = await candidate('b');
    crashed.link.cut(); // dead: it neither renews nor releases
    await pass(fx.clock, RETRY);
    const restarted = await candidate('a');
    expect(restarted.terms).toHaveLength(1);
    expect(other.terms).toEqual([]);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'a_uuid', leaseTransitions: 0 });
  });

  it('with the store down for all, the leader steps down after the renew deadline and one leads again once it is back', async () => {
    fx = await apiFixture();
    const a = await candidate('a');
    await candidate('b');
    await pass(fx.clock, RETRY + 100);
    const downAt = fx.clock.now();
    fx.gate.down('the store is down');
    await runUntil(fx.clock, () => a.terms[0]?.to, 'a to step down', { stepMs: 100 });
    expect(a.terms[0]!.to! - downAt).toBeGreaterThanOrEqual(DEADLINE);
    await pass(fx.clock, 3 * LEASE, 500);
    expect(leading()).toEqual([]);
    fx.gate.up();
    await runUntil(fx.clock, () => leading().length === 1, 'a leader again', { stepMs: 100, budgetMs: 3 * RETRY });
    expect(mostAtOnce).toBe(1);
  });
});
