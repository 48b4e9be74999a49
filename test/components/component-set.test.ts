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
