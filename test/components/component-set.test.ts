import { describe, expect, it } from 'vitest';
import { ComponentSet } from '../../cloud/components/component-set.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';

/** A component that records when it runs. */
function probe(log: string[], name: string, parent?: string, fail = false) {
  return {
    name,
    ...(parent ? { parent } : {}),
    async start() {
      if (fail) throw new Error('cannot list pods');
      log.push(`start ${name}`);
      return { close: async () => void log.push(`stop ${name}`) };
    },
  };
}

function setup() {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const log: string[] = [];
  const set = new ComponentSet(clock, silentLogger);
  set.add(probe(log, 'scheduler'));
  set.add(probe(log, 'controller-manager'));
  set.add(probe(log, 'deployment', 'controller-manager'));
  set.add(probe(log, 'replicaset', 'controller-manager'));
  return { clock, log, set };
}

const running = (set: ComponentSet): string[] => set.list().filter((s) => s.running).map((s) => s.name);

describe('ComponentSet', () => {
  it('starts every wanted component, parents before children', async () => {
    const { log, set } = setup();
    await set.startAll();
    expect(log).toEqual(['start scheduler', 'start controller-manager', 'start deployment', 'start replicaset']);
    expect(set.list().every((s) => s.healthy && s.message === 'ok')).toBe(true);
  });

  it('stopping one component leaves the others running, and says since when', async () => {
    const { clock, set } = setup();
    await set.startAll();
    await clock.advance(5_000);
    const state = await set.stop('scheduler');
    expect(state).toMatchObject({ name: 'scheduler', running: false, healthy: false, message: 'stopped', since: '2026-01-01T00:00:05.000Z' });
    expect(running(set)).toEqual(['controller-manager', 'deployment', 'replicaset']);
    await set.start('scheduler');
    expect(running(set)).toContain('scheduler');
  });

  it('stopping the controller-manager stops its controllers; starting it brings back the ones that ran', async () => {
    const { log, set } = setup();
    await set.startAll();
    await set.stop('replicaset');
    await set.stop('controller-manager');
    expect(running(set)).toEqual(['scheduler']);
    log.length = 0;
    await set.start('controller-manager');
    expect(log).toEqual(['start controller-manager', 'start deployment']);
    expect(running(set)).toEqual(['scheduler', 'controller-manager', 'deployment']);
  });

  it('refuses to start a controller while its controller-manager is stopped', async () => {
    const { set } = setup();
    await set.startAll();
    await set.stop('controller-manager');
    const err = await set.start('deployment').catch((e: unknown) => e);
    expect(isKedgeError(err, 'Conflict')).toBe(true);
    expect((err as Error).message).toContain('start controller-manager first');
  });

  it('leaves disabled components stopped until asked', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    const set = new ComponentSet(clock, silentLogger);
    set.add(probe(log, 'scheduler'), false);
    await set.startAll();
    expect(log).toEqual([]);
    expect(set.list()[0]).toMatchObject({ running: false, message: 'stopped' });
  });

  it('reports a component that failed to start as unhealthy, with the reason', async () => {
    const set = new ComponentSet(new FakeClock(), silentLogger);
    set.add(probe([], 'scheduler', undefined, true));
    await set.startAll();
    expect(set.list()[0]).toMatchObject({ running: false, healthy: false, message: 'failed to start: cannot list pods' });
  });

  it('names the known components when asked for an unknown one', async () => {
    const { set } = setup();
    const err = await set.stop('kube-proxy').catch((e: unknown) => e);
    expect(isKedgeError(err, 'NotFound')).toBe(true);
    expect((err as Error).message).toContain('scheduler, controller-manager, deployment, replicaset');
  });

  it('close stops everything, children first', async () => {
    const { log, set } = setup();
    await set.startAll();
    log.length = 0;
    await set.close();
    expect(log).toEqual(['stop replicaset', 'stop deployment', 'stop controller-manager', 'stop scheduler']);
  });
});

describe('ComponentSet with parts its owner started', () => {
  function owned(log: string[], name: string) {
    return { close: async () => void log.push(`stop ${name}`) };
  }

  it('adopts a running part: stop and start switch it, close leaves it to its owner', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const log: string[] = [];
    const set = new ComponentSet(clock, silentLogger);
    set.adopt({ name: 'store', start: async () => (log.push('start store'), owned(log, 'store')) }, owned(log, 'store'));
    set.add(probe(log, 'scheduler'));
    await set.startAll();
    expect(set.list()[0]).toMatchObject({ name: 'store', running: true, healthy: true, stoppable: true, message: 'ok' });
    await clock.advance(1_000);
    expect(await set.stop('store')).toMatchObject({ running: false, message: 'stopped', since: '2026-01-01T00:00:01.000Z' });
    await set.start('store');
    log.length = 0;
    await set.close();
    expect(log).toEqual(['stop scheduler']);
  });

  it('refuses to stop an unstoppable part with 400, saying why', async () => {
    const set = new ComponentSet(new FakeClock(), silentLogger);
    set.adopt({ name: 'apiserver', unstoppable: 'the stop request goes through it', start: async () => owned([], 'apiserver') }, owned([], 'apiserver'));
    const err = await set.stop('apiserver').catch((e: unknown) => e);
    expect(isKedgeError(err, 'BadRequest')).toBe(true);
    expect((err as Error).message).toBe('apiserver cannot be stopped: the stop request goes through it');
    expect(set.list()[0]).toMatchObject({ running: true, stoppable: false });
  });

  it("shows a running part's health, and since when it holds", async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const set = new ComponentSet(clock, silentLogger);
    let health = { healthy: true, message: 'ok', since: clock.now() };
    set.adopt({ name: 'hub', unstoppable: 'no', start: async () => owned([], 'hub'), health: () => health }, owned([], 'hub'));
    await clock.advance(3_000);
    health = { healthy: false, message: 'not connected to the broker', since: clock.now() };
    expect(set.list()[0]).toMatchObject({ running: true, healthy: false, message: 'not connected to the broker', since: '2026-01-01T00:00:03.000Z' });
  });
});
