import { describe, expect, it } from 'vitest';
import { ComponentLogs } from '../../cloud/control-plane-node/component-logs.js';
import { LogRing } from '../../shared/log-ring.js';
import { cloudLogRouter } from '../../cloud/control-plane-node/log-routes.js';
import { mirrorPodLogs, podLogsByNode, selectLines } from '../../cloud/control-plane-node/mirror-pod-logs.js';
import { memoryLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';

describe('LogRing', () => {
  it('keeps the newest lines within its line and byte bounds, numbering them for good', () => {
    const ring = new LogRing(3, 1_000);
    for (let i = 0; i < 5; i++) ring.push(i, `line ${i}`);
    expect(ring.from().map((l) => [l.seq, l.text])).toEqual([[2, 'line 2'], [3, 'line 3'], [4, 'line 4']]);
    expect(ring.from(4).map((l) => l.text)).toEqual(['line 4']);
    expect(ring.from(0).length).toBe(3);
    expect(ring.end).toBe(5);
    const small = new LogRing(100, 12);
    small.push(0, 'aaaaa');
    small.push(1, 'bbbbb');
    small.push(2, 'ccccc');
    expect(small.from().map((l) => l.text)).toEqual(['bbbbb', 'ccccc']);
  });
});

describe('cloudLogRouter', () => {
  const route = cloudLogRouter(['node-lifecycle', 'deployment', 'daemonset']);
  it.each([
    [['scheduler'], undefined, 'kube-scheduler'],
    [['node-lifecycle'], undefined, 'kube-controller-manager'],
    [['deployment-controller'], undefined, 'kube-controller-manager'],
    [['daemonset'], undefined, 'kube-controller-manager'],
    [['hub', 'hub'], undefined, 'kedge-hub'],
    [['ledger'], undefined, 'kedge-hub'],
    [['broker'], undefined, 'broker'],
    [['apiserver', 'authn'], undefined, 'kube-apiserver'],
    [['join'], undefined, 'kube-apiserver'],
    [[], undefined, 'kube-apiserver'],
    [['components'], { component: 'scheduler' }, 'kube-scheduler'],
    [['components'], { component: 'store' }, 'etcd'],
    [['components'], { component: 'deployment' }, 'kube-controller-manager'],
    [['something-new'], undefined, 'kube-apiserver'],
  ] as const)('%j %j → %s', (path, fields, container) => {
    expect(route(path, fields)).toBe(container);
  });
});

describe('ComponentLogs.tee', () => {
  it('writes every line through as before and keeps info and above in the container of its logger', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const logs = new ComponentLogs(cloudLogRouter(['node-lifecycle']), () => now);
    const inner = memoryLogger('cloud');
    const logger = logs.tee(inner);
    logger.child('scheduler').info('bound pod', { pod: 'default/web' });
    now += 1_000;
    logger.child('scheduler').debug('not kept');
    logger.child('node-lifecycle').warn('node is silent');
    expect(inner.lines).toHaveLength(2); // memoryLogger: info and above
    expect(logs.ring('kube-scheduler').from().map((l) => l.text)).toEqual(['2026-01-01T00:00:00.000Z INFO  [scheduler] bound pod {"pod":"default/web"}']);
    expect(logs.ring('kube-controller-manager').from().map((l) => l.text)).toEqual(['2026-01-01T00:00:01.000Z WARN  [node-lifecycle] node is silent']);
  });
});

describe('mirror pod logs', () => {
  const lines = [0, 1, 2, 3].map((i) => ({ seq: i, time: i * 60_000, text: `l${i}` }));
  it('selects since, tail and timestamps as the kubelet does, or everything after a cursor', () => {
    expect(selectLines(lines, { tailLines: 2 }, 0)).toBe('l2\nl3\n');
    expect(selectLines(lines, { sinceSeconds: 90 }, 3 * 60_000)).toBe('l2\nl3\n');
    expect(selectLines(lines, { sinceTime: 60_000, tailLines: 1, timestamps: true }, 0)).toBe('1970-01-01T00:03:00.000Z l3\n');
    expect(selectLines(lines.slice(3), { cursor: { containerId: 'x', time: 0, count: 3 }, tailLines: 0 }, 0)).toBe('l3\n');
  });

  const pod = (name: string, containers: string[], nodeName = 'cp', namespace = 'kube-system', annotations: Record<string, string> = { 'kubernetes.io/config.mirror': 'h' }): Pod => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, annotations }, spec: { nodeName, containers: containers.map((c) => ({ name: c, image: 'x' })) },
  });

  it('answers from the container ring; a cursor follows on; refuses as the kubelet does', async () => {
    const logs = new ComponentLogs(() => 'kube-scheduler', () => 0);
    const logger = logs.tee(memoryLogger());
    logger.info('one');
    const source = mirrorPodLogs(logs, () => 0);
    const first = await source.logs(pod('kube-scheduler-cp', ['kube-scheduler']), {});
    expect(first).toEqual({ text: '1970-01-01T00:00:00.000Z INFO  [cloud] one\n', cursor: { containerId: 'kube-scheduler', time: 0, count: 1 }, exited: false });
    logger.info('two');
    expect((await source.logs(pod('kube-scheduler-cp', ['kube-scheduler']), { cursor: first.cursor })).text).toBe('1970-01-01T00:00:00.000Z INFO  [cloud] two\n');
    const hub = pod('kedge-hub-cp', ['kedge-hub', 'broker']);
    const broker = await source.logs(hub, { container: 'broker' });
    expect((await source.logs(hub, { cursor: broker.cursor })).cursor.containerId).toBe('broker');
    await expect(source.logs(pod('kedge-hub-cp', ['kedge-hub', 'broker']), {})).rejects.toThrow('a container name must be specified for pod kedge-hub-cp, choose one of: [kedge-hub broker]');
    await expect(source.logs(pod('kube-scheduler-cp', ['kube-scheduler']), { container: 'nope' })).rejects.toThrow('container nope is not valid for pod kube-scheduler-cp');
    await expect(source.logs(pod('kube-scheduler-cp', ['kube-scheduler']), { previous: true })).rejects.toThrow('previous terminated container "kube-scheduler" in pod "kube-scheduler-cp" not found');
  });

  it("routes by node: the cloud's own node here, every other to the edges", async () => {
    const answer = (text: string) => ({ logs: async () => ({ text, cursor: { containerId: '', time: 0, count: 0 }, exited: true }) });
    const routed = podLogsByNode('cp', answer('cloud'), answer('edge'));
    expect((await routed.logs(pod('kube-scheduler-cp', ['kube-scheduler'], 'cp'), {})).text).toBe('cloud');
    expect((await routed.logs(pod('kedge-hub-cp', ['kedge-hub', 'broker'], 'cp'), {})).text).toBe('cloud');
    expect((await routed.logs(pod('b', ['c'], 'edge-1'), {})).text).toBe('edge');
  });

  it("sends any other pod bound to the cloud's node to the edges: only its own mirror pods have rings", async () => {
    const answer = (text: string) => ({ logs: async () => ({ text, cursor: { containerId: '', time: 0, count: 0 }, exited: true }) });
    const routed = podLogsByNode('cp', answer('cloud'), answer('edge'));
    const others = [
      pod('a', ['c'], 'cp'),
      pod('kube-scheduler-cp', ['kube-scheduler'], 'cp', 'default'),
      pod('kube-scheduler-cp', ['kube-scheduler'], 'cp', 'kube-system', {}),
      pod('kube-scheduler-cp', ['kube-scheduler', 'sidecar'], 'cp'),
      pod('kube-scheduler-cp', ['kube-scheduler'], 'edge-1'),
    ];
    for (const other of others) expect((await routed.logs(other, {})).text).toBe('edge');
  });
});
