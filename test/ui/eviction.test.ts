import { describe, expect, it } from 'vitest';
import { countdown, evictionOutlook, goDurationMs } from '../../ui/model/eviction.js';
import type { Node, Pod, Toleration } from '../../ui/model/kube.js';

const ADDED = Date.parse('2025-01-01T00:00:00.000Z');
const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: new Date(ADDED).toISOString() };
/** What admission gives every pod (docs/controllers.md). */
const tolerateFor = (seconds: number | null): Toleration[] => [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds },
];
const node = (annotations?: Record<string, string>, taints = [unreachable, { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }]): Node => ({
  metadata: { name: 'edge-2', ...(annotations ? { annotations } : {}) },
  spec: { taints },
});
const pod = (name: string, tolerations: Toleration[] = tolerateFor(300), extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name, namespace: 'default', ...extra },
  spec: { nodeName: 'edge-2', containers: [{ name: 'main' }], tolerations },
});
const at = (seconds: number): number => ADDED + seconds * 1000;

describe("an Unknown node's eviction countdown", () => {
  it("counts down from the taint's timeAdded plus the toleration, divided by the time scale", () => {
    expect(evictionOutlook(node(), [pod('a'), pod('b')], 10, at(3))).toBe('pods evicted in 0:27');
    expect(evictionOutlook(node(), [pod('a')], 1, at(48))).toBe('pods evicted in 4:12');
    expect(evictionOutlook(node(), [pod('a')], 1, at(300))).toBe('pods being evicted now');
  });

  it('says when the pods stay: a toleration without seconds (the autonomy label), or an autonomous node', () => {
    expect(evictionOutlook(node(), [pod('a', tolerateFor(null))], 1, at(3))).toBe('pods stay: they tolerate the taint for ever');
    expect(evictionOutlook(node(), [pod('a'), pod('b', tolerateFor(null))], 1, at(0))).toBe('1 of 2 pods evicted in 5:00; the others stay (they tolerate the taint for ever)');
    expect(evictionOutlook(node({ 'kedge.io/autonomy-duration': '0' }), [pod('a')], 1, at(3))).toBe('pods stay: the node is autonomous (kedge.io/autonomy-duration=0)');
  });

  it("uses the node's autonomy duration instead of tolerationSeconds; an invalid one is ignored", () => {
    expect(evictionOutlook(node({ 'kedge.io/autonomy-duration': '1h30m' }), [pod('a')], 1, at(60))).toBe('pods evicted in 1:29:00');
    expect(evictionOutlook(node({ 'kedge.io/autonomy-duration': 'soon' }), [pod('a')], 1, at(60))).toBe('pods evicted in 4:00');
  });

  it('evicts at once a pod that does not tolerate the taint, and counts from the first pod due', () => {
    expect(evictionOutlook(node(), [pod('a', [])], 1, at(1))).toBe('pods being evicted now');
    expect(evictionOutlook(node(), [pod('a'), pod('b', tolerateFor(600))], 1, at(0))).toBe('the first pod evicted in 5:00');
  });

  it('leaves out pods already evicted (Terminating until the node is back) and pods of other nodes', () => {
    const gone = pod('a', tolerateFor(300), { deletionTimestamp: '2025-01-01T00:05:00Z' });
    expect(evictionOutlook(node(), [gone], 1, at(320))).toBe('pods evicted: Terminating until the node answers again');
    expect(evictionOutlook(node(), [{ ...pod('x'), spec: { nodeName: 'edge-1' } }], 1, at(0))).toBe('no pods to evict');
  });

  it('says nothing for a node without NoExecute taints', () => {
    expect(evictionOutlook(node(undefined, []), [pod('a')], 1, at(0))).toBeUndefined();
    expect(evictionOutlook(node(undefined, [{ key: 'team', effect: 'NoSchedule' }]), [pod('a')], 1, at(0))).toBeUndefined();
  });
});

describe('countdowns and Go durations', () => {
  it.each([
    [0, '0:00'],
    [999, '0:01'],
    [27_000, '0:27'],
    [252_000, '4:12'],
    [3_723_000, '1:02:03'],
  ])('%i ms left reads "%s"', (ms, text) => expect(countdown(ms)).toBe(text));

  it.each([
    ['24h', 86_400_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['300ms', 300],
    ['0', 0],
    ['-5m', undefined],
    ['5', undefined],
    ['soon', undefined],
  ])('"%s" is %s ms', (text, ms) => expect(goDurationMs(text)).toBe(ms));
});
