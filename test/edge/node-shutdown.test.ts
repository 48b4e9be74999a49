import { describe, expect, it } from 'vitest';
import { planNodeShutdown, stopProcessPods } from '../../edge/edged/node-shutdown.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import { memoryLogger } from '../../shared/log.js';
import { container, pod } from './fixtures.js';

const realTime = { timeScale: 1 };

describe('a node shutdown (graceful, as the kubelet does it)', () => {
  it.each([
    { what: "a pod's own grace period, when shorter than the shutdown's", grace: 5, shutdownMs: 10_000, want: 5_000 },
    { what: "the shutdown's grace period, when shorter than the pod's", grace: 60, shutdownMs: 10_000, want: 10_000 },
    { what: 'never less than the kubelet minimum (2 s) from the pod', grace: 0, shutdownMs: 10_000, want: 2_000 },
    { what: 'the default 30 s, capped by the shutdown', grace: undefined, shutdownMs: 10_000, want: 10_000 },
  ])('gives each container $what', ({ grace, shutdownMs, want }) => {
    const p = pod('p', 'u1', grace === undefined ? {} : { terminationGracePeriodSeconds: grace });
    expect(planNodeShutdown([container('u1')], [p], realTime, shutdownMs)).toEqual([{ containerId: 'c-u1-app-0', graceMs: want }]);
  });

  it('stops what runs or is starting, not what has exited or never started; a pod no longer held gets the minimum', () => {
    const containers: ContainerInfo[] = [
      container('u1'),
      container('u2', { state: 'exited', exitCode: 0 }),
      container('u3', { state: 'created', startedAt: undefined }),
      container('u4', { state: 'created', starting: true }),
      container('gone'),
    ];
    const pods = ['u1', 'u2', 'u3', 'u4'].map((uid) => pod(uid, uid, { terminationGracePeriodSeconds: 5 }));
    expect(planNodeShutdown(containers, pods, realTime, 10_000)).toEqual([
      { containerId: 'c-u1-app-0', graceMs: 5_000 },
      { containerId: 'c-u4-app-0', graceMs: 5_000 },
      { containerId: 'c-gone-app-0', graceMs: 2_000 },
    ]);
  });

  it('scales grace periods by the time scale, as every other', () => {
    expect(planNodeShutdown([container('u1')], [pod('p', 'u1', { terminationGracePeriodSeconds: 20 })], { timeScale: 10 }, 1_000)).toEqual([{ containerId: 'c-u1-app-0', graceMs: 1_000 }]);
  });

  it('stops them all at once through the runtime, and says so; one that cannot be stopped does not stop the others', async () => {
    const stopped: [string, number][] = [];
    const logger = memoryLogger();
    const runtime = {
      listContainers: async () => [container('u1'), container('u2'), container('u3', { state: 'exited' })],
      stopContainer: async (id: string, graceMs: number) => {
        if (id === 'c-u1-app-0') throw new Error('no such process');
        stopped.push([id, graceMs]);
      },
    };
    await stopProcessPods({ runtime, pods: () => [pod('a', 'u1'), pod('b', 'u2', { terminationGracePeriodSeconds: 3 })], timing: realTime, logger }, 10_000);
    expect(stopped).toEqual([['c-u2-app-0', 3_000]]);
    expect(logger.lines.map((l) => l.replace(/^\S+ /, ''))).toEqual([
      'INFO  [test] node shutdown: stopping 2 process pod containers (SIGTERM, then SIGKILL after at most 10 s)',
      'WARN  [test] node shutdown: a process pod container could not be stopped {"error":"Error: no such process"}',
    ]);
  });
});
