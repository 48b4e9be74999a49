import { describe, expect, it } from 'vitest';
import { planJob, type JobAction } from '../../../cloud/controllers/job/index.js';
import type { Job } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';
import { at, job, pod, T0 } from './fixtures.js';

const plan = (j: Job, pods: Pod[], nowS = 100, expectationsSatisfied = true): JobAction[] =>
  planJob({ job: j, pods, expectationsSatisfied, now: T0 + nowS * 1000, timeScale: 1 });
const of = <T extends JobAction['type']>(actions: JobAction[], type: T): Extract<JobAction, { type: T }>[] =>
  actions.filter((a): a is Extract<JobAction, { type: T }> => a.type === type);
const statusOf = (actions: JobAction[]) => of(actions, 'status')[0]?.status;
const types = (actions: JobAction[]) => statusOf(actions)?.conditions?.filter((c) => c.status === 'True').map((c) => c.type) ?? [];

describe('planJob: pods', () => {
  it.each([
    { name: 'a new Job creates one pod and starts its clock', j: job(), pods: [], create: 1 },
    { name: 'parallelism 3 of completions 5 runs three', j: job({ completions: 5, parallelism: 3 }), pods: [], create: 3 },
    { name: 'the last two completions need two', j: job({ completions: 5, parallelism: 3 }, { succeeded: 3 }), pods: [], create: 2 },
    { name: 'no completions: parallelism until one succeeds', j: job({ completions: undefined, parallelism: 2 }), pods: [], create: 2 },
    { name: 'nothing while creations are unseen', j: job(), pods: [], create: 0, unseen: true },
    { name: 'a running pod is enough', j: job(), pods: [pod('a')], create: 0 },
    { name: 'suspended: none', j: job({ suspend: true }), pods: [], create: 0 },
  ])('$name', ({ j, pods, create, unseen }) => {
    const actions = plan(j, pods, 100, !unseen);
    expect(of(actions, 'create').reduce((n, a) => n + a.count, 0)).toBe(create);
  });

  it('replaces a failed pod only after the back-off: 10 s, then 20 s after the second failure', () => {
    const one = [pod('a', { phase: 'Failed', tracked: false, finishedAt: 50 })];
    const j = job({}, { failed: 1, startTime: at(0) });
    expect(of(plan(j, one, 55), 'requeueAfter')[0]?.ms).toBe(5_000);
    expect(of(plan(j, one, 60), 'create')).toEqual([{ type: 'create', count: 1 }]);
    const two = [...one, pod('b', { phase: 'Failed', tracked: false, finishedAt: 70 })];
    const j2 = job({}, { failed: 2, startTime: at(0) });
    expect(of(plan(j2, two, 85), 'requeueAfter')[0]?.ms).toBe(5_000);
    expect(of(plan(j2, two, 90), 'create')).toHaveLength(1);
  });

  it('suspending deletes the active pods and says Suspended', () => {
    const actions = plan(job({ suspend: true }, { startTime: at(0), active: 1 }), [pod('a')]);
    expect(of(actions, 'delete')[0]?.pods.map((p) => p.metadata.name)).toEqual(['a']);
    expect(types(actions)).toEqual(['Suspended']);
    expect(of(actions, 'event').map((e) => e.reason)).toEqual(['Suspended']);
  });

  it('a pod deleted while running counts as failed and is replaced (TerminatingOrFailed), but not under podReplacementPolicy Failed', () => {
    const deleting = [pod('a', { deleting: true })];
    const replace = plan(job({}, { startTime: at(0) }), deleting);
    expect(statusOf(replace)).toMatchObject({ terminating: 1, uncountedTerminatedPods: { failed: ['uid-a'] } });
    expect(of(replace, 'create')).toHaveLength(1);
    const wait = plan(job({ podReplacementPolicy: 'Failed' }, { startTime: at(0) }), deleting);
    expect(statusOf(wait)?.uncountedTerminatedPods).toEqual({});
    expect(of(wait, 'create')).toHaveLength(0);
    expect(of(wait, 'removeFinalizer')).toHaveLength(0);
  });
});

describe('planJob: counting each finished pod once', () => {
  const succeeded = pod('a', { phase: 'Succeeded', finishedAt: 90 });

  it('first records the pod as uncounted, then releases its finalizer', () => {
    const actions = plan(job({}, { startTime: at(0), active: 1 }), [succeeded]);
    expect(actions.map((a) => a.type)).toEqual(['status', 'removeFinalizer']);
    expect(statusOf(actions)).toMatchObject({ succeeded: 0, active: 0, uncountedTerminatedPods: { succeeded: ['uid-a'] } });
    expect(types(actions)).toEqual(['SuccessCriteriaMet']);
  });

  it('counts it once its finalizer is gone, and then the Job is Complete', () => {
    const released = pod('a', { phase: 'Succeeded', finishedAt: 90, tracked: false });
    const actions = plan(job({}, { startTime: at(0), uncountedTerminatedPods: { succeeded: ['uid-a'] } }), [released]);
    expect(statusOf(actions)).toMatchObject({ succeeded: 1, uncountedTerminatedPods: {}, completionTime: at(100) });
    expect(types(actions)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(of(actions, 'event').map((e) => [e.reason, e.message])).toEqual([['Completed', 'Job completed']]);
  });

  it('a pod counted and released is never counted again, however often its status comes back', () => {
    const released = pod('a', { phase: 'Succeeded', finishedAt: 90, tracked: false });
    const actions = plan(job({ completions: 2, parallelism: 1 }, { startTime: at(0), succeeded: 1, uncountedTerminatedPods: {} }), [released]);
    expect(statusOf(actions)?.succeeded).toBe(1);
    expect(of(actions, 'create')).toHaveLength(1);
  });

  it('a pod already uncounted whose finalizer removal was not seen yet is released again, not recounted', () => {
    const actions = plan(job({}, { startTime: at(0), uncountedTerminatedPods: { succeeded: ['uid-a'] } }), [succeeded]);
    expect(statusOf(actions)?.uncountedTerminatedPods).toEqual({ succeeded: ['uid-a'] });
    expect(of(actions, 'removeFinalizer')[0]?.pods.map((p) => p.metadata.name)).toEqual(['a']);
  });

  it('a pod that vanished while uncounted is counted', () => {
    const actions = plan(job({}, { startTime: at(0), uncountedTerminatedPods: { failed: ['uid-gone'] } }), []);
    expect(statusOf(actions)).toMatchObject({ failed: 1, uncountedTerminatedPods: {} });
  });
});

describe('planJob: failing', () => {
  it('past backoffLimit: FailureTarget, the active pods go, Failed once none is left', () => {
    const j = job({ backoffLimit: 1, completions: 2, parallelism: 2 }, { startTime: at(0), failed: 1 });
    const actions = plan(j, [pod('a', { phase: 'Failed', finishedAt: 90 }), pod('b')]);
    expect(types(actions)).toEqual(['FailureTarget']);
    expect(of(actions, 'delete')[0]?.pods.map((p) => p.metadata.name)).toEqual(['b']);
    const target = statusOf(actions)!.conditions!.find((c) => c.type === 'FailureTarget')!;
    expect(target).toMatchObject({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });

    const later = plan(job(j.spec, { startTime: at(0), failed: 3, conditions: [target] }), []);
    expect(types(later)).toEqual(['FailureTarget', 'Failed']);
    expect(of(later, 'event').map((e) => [e.eventType, e.reason])).toEqual([['Warning', 'BackoffLimitExceeded']]);
  });

  it('waits for terminating pods before Failed', () => {
    const target = { type: 'FailureTarget', status: 'True' as const, reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    const actions = plan(job({}, { startTime: at(0), conditions: [target] }), [pod('a', { deleting: true, tracked: false })]);
    expect(types(actions)).toEqual(['FailureTarget']);
  });

  it('activeDeadlineSeconds: a wake-up before it, DeadlineExceeded after', () => {
    const j = job({ activeDeadlineSeconds: 120 }, { startTime: at(0), active: 1 });
    expect(of(plan(j, [pod('a')], 100), 'requeueAfter')[0]?.ms).toBe(20_000);
    const past = plan(j, [pod('a')], 121);
    expect(statusOf(past)?.conditions?.[0]).toMatchObject({ type: 'FailureTarget', reason: 'DeadlineExceeded' });
  });

  it('restartPolicy OnFailure: container restarts count against backoffLimit', () => {
    const j = job({ backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main' }] } } }, { startTime: at(0) });
    expect(types(plan(j, [pod('a', { restarts: 1 })]))).toEqual([]);
    expect(types(plan(j, [pod('a', { restarts: 2 })]))).toEqual(['FailureTarget']);
  });
});

describe('planJob: finished', () => {
  const complete = { startTime: at(0), completionTime: at(50), succeeded: 1, conditions: [{ type: 'Complete', status: 'True' as const }] };

  it('releases pods still held and does nothing else', () => {
    const actions = plan(job({}, complete), [pod('x', { phase: 'Succeeded', finishedAt: 40 })]);
    expect(actions.map((a) => a.type)).toEqual(['removeFinalizer']);
  });

  it.each([
    { nowS: 60, expected: [{ type: 'requeueAfter', ms: 90_000 }] },
    { nowS: 150, expected: [{ type: 'deleteJob' }] },
  ])('ttlSecondsAfterFinished 100 at $nowS s', ({ nowS, expected }) => {
    expect(plan(job({ ttlSecondsAfterFinished: 100 }, complete), [], nowS)).toEqual(expected);
  });
});
