import { describe, expect, it } from 'vitest';
import { planPods, type ActualPods } from '../../edge/edged/plan-pods.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import type { Pod } from '../../shared/types.js';
import { container, pod, sandbox } from './fixtures.js';

const S = 1000;
const T0 = 1_000 * S;

/** Attempt `attempt` of `app`: created at `createdAt`, ran `ranMs`, then exited with `exitCode`. */
function run(attempt: number, createdAt: number, ranMs: number, exitCode = 1): ContainerInfo {
  const startedAt = createdAt + 200;
  return container('u1', { attempt, createdAt, startedAt, finishedAt: startedAt + ranMs, state: 'exited', exitCode, reason: exitCode ? 'Error' : 'Completed', ready: false });
}

/** The previous attempt ended at T0; the latest was created `waitedMs` later and ran `ranMs`. */
const afterWait = (waitedMs: number, ranMs = S): ContainerInfo[] => [run(0, T0 - 1200, S), run(1, T0 + waitedMs, ranMs)];
const endOf = (cs: ContainerInfo[]): number => cs.at(-1)!.finishedAt!;

/** What the plan says about the app container: `start #n`, `wait +<ms after it finished>`, or nothing. */
function decision(containers: ContainerInfo[], now: number, spec: Partial<Pod['spec']> = {}, timeScale = 1): string {
  const actual: ActualPods = { sandboxes: [sandbox('u1')], containers };
  const actions = planPods([pod('p', 'u1', spec)], actual, now, { timeScale });
  const action = actions.find((a) => a.type === 'startContainer' || a.type === 'backOff');
  if (action?.type === 'startContainer') return `start #${action.attempt}`;
  if (action?.type === 'backOff') return `wait +${action.until - endOf(containers)}`;
  return 'nothing';
}

const first = [run(0, T0 - 1200, S)];
/** After a 160 s wait, an attempt that ran `ms` from its creation (its start takes 200 ms of it). */
const ranFor = (ms: number): ContainerInfo[] => afterWait(160 * S, ms - 200);
const cases: { name: string; containers: ContainerInfo[]; at: number; spec?: Partial<Pod['spec']>; timeScale?: number; expected: string }[] = [
  { name: 'first exit: restarted at once, as the kubelet holds no back-off for it yet', containers: first, at: 0, expected: 'start #1' },
  { name: 'second exit right after: 10 s (not at 9.9 s)', containers: afterWait(0), at: 9_900, expected: 'wait +10000' },
  { name: 'second exit: restarted at exactly 10 s', containers: afterWait(0), at: 10_000, expected: 'start #2' },
  { name: 'after a 10 s wait: 20 s (not at 19.9 s)', containers: afterWait(10 * S), at: 19_900, expected: 'wait +20000' },
  { name: 'after a 10 s wait: restarted at 20 s', containers: afterWait(10 * S), at: 20 * S, expected: 'start #2' },
  { name: 'a wait a little longer than planned (sync granularity) counts as that rung', containers: afterWait(10_700), at: 0, expected: 'wait +20000' },
  { name: 'after 20 s: 40 s', containers: afterWait(20 * S), at: 0, expected: 'wait +40000' },
  { name: 'after 40 s: 80 s', containers: afterWait(40 * S), at: 0, expected: 'wait +80000' },
  { name: 'after 80 s: 160 s', containers: afterWait(80 * S), at: 0, expected: 'wait +160000' },
  { name: 'after 160 s: capped at 300 s', containers: afterWait(160 * S), at: 0, expected: 'wait +300000' },
  { name: 'after 300 s: stays at 300 s', containers: afterWait(300 * S), at: 0, expected: 'wait +300000' },
  { name: 'ran more than 10 minutes: its back-off expired, restarted at once', containers: ranFor(600 * S + 1), at: 0, expected: 'start #2' },
  { name: 'ran 10 minutes, not more: still doubling', containers: ranFor(600 * S), at: 0, expected: 'wait +300000' },
  { name: 'at the cap, a 300 s wait and 400 s of running stay at the cap', containers: afterWait(300 * S, 400 * S), at: 0, expected: 'wait +300000' },
  { name: 'a wait longer than 10 minutes (edge down meanwhile): restarted at once', containers: afterWait(700 * S), at: 0, expected: 'start #2' },
  { name: 'the first exit of a new image: restarted at once (the kubelet keys its back-off by the definition)', containers: [run(0, T0 - 1200, S), { ...run(1, T0, S), image: 'nginx:1.28' }], at: 0, spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] }, expected: 'start #2' },
  { name: 'OnFailure: a failure backs off too', containers: afterWait(0), at: 0, spec: { restartPolicy: 'OnFailure' }, expected: 'wait +10000' },
  { name: 'OnFailure: exit 0 is never restarted', containers: [run(0, T0, S, 0)], at: 3_600 * S, spec: { restartPolicy: 'OnFailure' }, expected: 'nothing' },
  { name: 'Never: a failure is never restarted', containers: first, at: 3_600 * S, spec: { restartPolicy: 'Never' }, expected: 'nothing' },
  { name: 'time scale 10: 1 s instead of 10 s', containers: afterWait(0), at: 1_000, timeScale: 10, expected: 'start #2' },
  { name: 'time scale 10: 2 s after a (scaled) 10 s wait', containers: afterWait(S), at: 0, timeScale: 10, expected: 'wait +2000' },
];

describe('restart back-off (CrashLoopBackOff) in planPods', () => {
  it.each(cases)('$name', ({ containers, at, spec, timeScale, expected }) => {
    expect(decision(containers, endOf(containers) + at, spec, timeScale)).toBe(expected);
  });
});

const init = (name: string) => ({ name, image: 'busybox' });
const withInit = (restartPolicy: Pod['spec']['restartPolicy'] = 'Always') => pod('p', 'u1', { restartPolicy, initContainers: [init('one'), init('two')] });
const ic = (name: string, fields: Partial<ContainerInfo> = {}) => container('u1', { name, ready: false, ...fields });
const done = (name: string) => ic(name, { state: 'exited', exitCode: 0, finishedAt: T0 });
const failed = (name: string, attempt = 0) => ic(name, { attempt, state: 'exited', exitCode: 1, reason: 'Error', createdAt: T0 + attempt * S, finishedAt: T0 + attempt * S });

function initPlan(desired: Pod, containers: ContainerInfo[], now = T0, sandboxes = [sandbox('u1')]): string[] {
  return planPods([desired], { sandboxes, containers }, now).map((a) =>
    a.type === 'startContainer' ? `start ${a.container.name}#${a.attempt}` : a.type === 'backOff' ? `backOff ${a.container.name}` : a.type,
  );
}

describe('init containers in planPods', () => {
  it.each([
    { name: 'a new pod starts only the first init container', containers: [], sandboxes: [], expected: ['runSandbox', 'start one#0'] },
    { name: 'the first still running: nothing else starts', containers: [ic('one')], expected: [] },
    { name: 'the first completed: the second starts', containers: [done('one')], expected: ['start two#0'] },
    { name: 'all completed: the app containers start', containers: [done('one'), done('two')], expected: ['start app#0'] },
    { name: 'app containers running: init containers are not run again', containers: [done('one'), container('u1')], expected: [] },
    { name: 'a failed init container runs again at once (Always counts as OnFailure)', containers: [failed('one')], expected: ['start one#1'] },
    { name: 'failed again, it backs off', containers: [failed('one'), failed('one', 1)], now: T0 + S, expected: ['backOff one'] },
    { name: 'and is restarted after 10 s; the later ones still wait', containers: [failed('one'), failed('one', 1)], now: T0 + 11 * S, expected: ['start one#2', 'removeContainer'] },
  ])('$name', ({ containers, sandboxes, now, expected }) => {
    expect(initPlan(withInit(), containers, now, sandboxes)).toEqual(expected);
  });

  it('Never: a failed init container stays failed and nothing else starts', () => {
    expect(initPlan(withInit('Never'), [failed('one')], T0 + 3_600 * S)).toEqual([]);
  });
});
