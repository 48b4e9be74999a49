import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { judgePods } from '../../sim/scenario/judge.js';
import { judgeService, resolvePodRef, type Reply } from '../../sim/scenario/judge-service.js';
import type { PodsExpectation, ServiceExpectation } from '../../sim/scenario/types.js';

const pod = (name: string, created: string, o: { app?: string; deleting?: boolean } = {}): Pod => ({
  metadata: { name, labels: { app: o.app ?? 'echo' }, creationTimestamp: created, ...(o.deleting && { deletionTimestamp: '2026-01-01T00:09:00Z' }) },
  spec: { containers: [{ name: 'c', image: 'i' }] },
});
const echoPods = [pod('echo-a', '2026-01-01T00:00:00Z'), pod('echo-b', '2026-01-01T00:00:00Z'), pod('echo-c', '2026-01-01T00:01:00Z'), pod('echo-d', '2026-01-01T00:02:00Z', { deleting: true }), pod('other', '2026-01-01T00:03:00Z', { app: 'other' })];

const ok = (body: string): Reply => ({ status: 200, body: `${body}\n` });
const e = (fields: Partial<ServiceExpectation>): ServiceExpectation => ({ kind: 'service', service: 'echo', namespace: 'default', node: 'edge-1', path: '/', requests: 4, ...fields });
const URL = 'http://127.0.1.1:30180/';

describe('pods named in a service expectation', () => {
  it('resolves a name, every pod of a selector, or the newest of them, leaving out pods being deleted', () => {
    expect(resolvePodRef({ name: 'echo-a' }, echoPods)).toEqual({ names: ['echo-a'] });
    expect(resolvePodRef({ name: 'echo-d' }, echoPods)).toEqual({ problem: 'no pod echo-d' });
    expect(resolvePodRef({ selector: 'app=echo' }, echoPods)).toEqual({ names: ['echo-c', 'echo-a', 'echo-b'] });
    expect(resolvePodRef({ selector: 'app=echo', newest: 1 }, echoPods)).toEqual({ names: ['echo-c'] });
    expect(resolvePodRef({ selector: 'app=none' }, echoPods)).toEqual({ problem: 'no pod matches app=none' });
  });

  it('will not guess the newest among pods created in the same second', () => {
    expect(resolvePodRef({ selector: 'app=echo', newest: 2 }, echoPods)).toEqual({
      problem: 'cannot tell the newest 2 of app=echo: echo-a and echo-b were created in the same second',
    });
    expect(resolvePodRef({ selector: 'app=echo', newest: 3 }, echoPods)).toEqual({ names: ['echo-c', 'echo-a', 'echo-b'] });
  });
});

describe('judging the answers of a service', () => {
  const replies = [ok('echo-a'), ok('echo-b'), ok('echo-a'), { error: 'refused' }];

  it.each([
    ['answers: true needs every request answered', e({ answers: true }), [ok('echo-a'), ok('echo-b')], true],
    ['answers: true fails on one refused', e({ answers: true }), replies, false],
    ['an error status is not an answer', e({ answers: true }), [ok('echo-a'), { status: 503, body: 'no endpoints' }], false],
    ['answers: false holds when none answers', e({ answers: false }), [{ error: 'refused' }, { error: 'timed out' }], true],
    ['answers: false fails on one answer', e({ answers: false }), replies, false],
    ['servedBy counts distinct bodies, trimmed', e({ servedBy: { min: 2, max: 2 } }), replies, true],
    ['servedBy too few', e({ servedBy: { min: 3, max: 10 } }), replies, false],
    ['servedBy too many', e({ servedBy: { min: 0, max: 1 } }), replies, false],
  ])('%s', (_, expectation, given, held) => {
    expect(judgeService(expectation, { url: URL, replies: given as Reply[] }).ok).toBe(held);
  });

  it('holds includes when every named pod answered, excludes when none did, and fails on a reference it cannot resolve', () => {
    const look = (includes?: string[], excludes?: string[]) => ({ url: URL, replies, ...(includes && { includes: { names: includes } }), ...(excludes && { excludes: { names: excludes } }) });
    expect(judgeService(e({ includes: { selector: 'app=echo' } }), look(['echo-a', 'echo-b'])).ok).toBe(true);
    expect(judgeService(e({ includes: { selector: 'app=echo' } }), look(['echo-a', 'echo-c']))).toMatchObject({ ok: false, seen: expect.stringMatching(/^echo-c did not answer; /) });
    expect(judgeService(e({ excludes: { name: 'echo-c' } }), look(undefined, ['echo-c'])).ok).toBe(true);
    expect(judgeService(e({ excludes: { name: 'echo-a' } }), look(undefined, ['echo-a']))).toMatchObject({ ok: false, seen: expect.stringMatching(/^echo-a answered; /) });
    expect(judgeService(e({ excludes: { selector: 'app=x' } }), { url: URL, replies, excludes: { problem: 'no pod matches app=x' } }).ok).toBe(false);
  });

  it('finds a pod name as a word of an answer, not as a part of a longer name', () => {
    const look = { url: URL, replies: [ok('hello from echo-a, pid 7')], includes: { names: ['echo-a'] } };
    expect(judgeService(e({ includes: { name: 'echo-a' } }), look).ok).toBe(true);
    expect(judgeService(e({ includes: { name: 'echo' } }), { ...look, includes: { names: ['echo'] } }).ok).toBe(false);
  });

  it('says where it asked and what came back, each outcome with how often, after what did not hold', () => {
    expect(judgeService(e({ servedBy: { min: 2, max: 2 } }), { url: URL, replies })).toEqual({ ok: true, seen: `${URL}: 3 of 4 answered ("echo-a" ×2, "echo-b" ×1, refused ×1)` });
    expect(judgeService(e({ answers: true, servedBy: { min: 3, max: 3 } }), { url: URL, replies }).seen).toBe(
      `not every request was answered; 2 distinct answers; ${URL}: 3 of 4 answered ("echo-a" ×2, "echo-b" ×1, refused ×1)`,
    );
  });
});

describe('judging waiting pods', () => {
  const waitingPod = (name: string, reason: string, message?: string): Pod => ({
    metadata: { name },
    spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Pending', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'i', imageID: '', state: { waiting: { reason, ...(message && { message }) } }, lastState: {} }] },
  });
  const pods = [
    waitingPod('late', 'ContainerCreating', 'network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:kedge-cni is stopped'),
    waitingPod('pulling', 'ContainerCreating'),
    waitingPod('crashing', 'CrashLoopBackOff', 'back-off 10s restarting failed container'),
    { metadata: { name: 'unschedulable' }, spec: { containers: [] }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', message: '0/3 nodes are available' }] } } as Pod,
  ];
  const count = (fields: Partial<PodsExpectation>): number => Number(/^(\d+) matching/.exec(judgePods({ kind: 'pods', view: 'cloud', min: 0, max: 100, ...fields }, pods).seen)?.[1] ?? 0);

  it("matches a container's waiting reason, and a message of the pod, a condition or a container", () => {
    expect(count({ waiting: 'ContainerCreating' })).toBe(2);
    expect(count({ waiting: 'ContainerCreating', message: 'NetworkPluginNotReady' })).toBe(1);
    expect(count({ message: 'back-off' })).toBe(1);
    expect(count({ message: 'nodes are available' })).toBe(1);
    expect(count({ waiting: 'ImagePullBackOff' })).toBe(0);
  });

  it('shows the waiting reason among what it saw', () => {
    expect(judgePods({ kind: 'pods', view: 'cloud', min: 1, max: 1, message: 'NetworkPluginNotReady' }, pods).seen).toBe('1 matching: late Pending (ContainerCreating) on edge-1');
  });
});
