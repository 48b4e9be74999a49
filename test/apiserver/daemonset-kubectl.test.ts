import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from '../../cloud/controllers/controller.js';
import { daemonSetController } from '../../cloud/controllers/daemonset/index.js';
import { memoryEventRecorder } from '../../cloud/controllers/events.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node } from '../../shared/types.js';
import { fakeKubelet } from '../controllers/deployment/fake-kubelet.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { withInformers } from '../support/controller-context.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

const manifest = join(import.meta.dirname, '../../examples/daemonset.yaml');

const edgeNode = (name: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'node-role.kubernetes.io/edge': '' } },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});

/**
 * The real kubectl against DaemonSets: apply, get, rollout status|history|undo, with the
 * DaemonSet controller and a fake kubelet in-process (no scheduler: a daemon pod counts for
 * the node its affinity pins it to). Every wait is kubectl's own.
 */
describe.skipIf(!hasKubectl)('kubectl with DaemonSets', () => {
  let f: HttpApiFixture;
  let running: RunningController[];
  let kubelet: ReturnType<typeof fakeKubelet>;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const rolledOut = async (): Promise<void> => {
    const status = await kubectl('rollout', 'status', 'ds/agent', '--timeout=20s');
    expect(status.stderr).toBe('');
    expect(status.stdout).toContain('daemon set "agent" successfully rolled out');
  };

  beforeAll(async () => {
    f = await httpApiFixture();
    const api = f.api.loopback(f.token);
    for (const name of ['edge-1', 'edge-2']) await api.create({ resource: 'nodes' }, edgeNode(name));
    await api.create({ resource: 'nodes' }, { ...edgeNode('core-1'), metadata: { name: 'core-1' } });
    const ctx = withInformers({ api, clock: realClock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() });
    kubelet = fakeKubelet(api, realClock);
    running = [await daemonSetController().start(ctx)];
  });
  afterAll(async () => {
    kubelet?.stop();
    await Promise.all((running ?? []).map((c) => c.close()));
    await f?.close();
  });

  it('applies a DaemonSet and waits with rollout status', async () => {
    expect(await kubectl('apply', '-f', manifest)).toMatchObject({ code: 0, stdout: 'daemonset.apps/agent created\n' });
    await rolledOut();
  });

  it('gets ds -o wide with the kube columns, and pods pinned to the matching nodes', async () => {
    const r = await kubectl('get', 'ds', '-o', 'wide');
    expect(r.stderr).toBe('');
    const [header, row] = r.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(row!.split(/\s{2,}/)).toEqual(['agent', '2', '2', '2', '2', '2', 'node-role.kubernetes.io/edge=', expect.stringMatching(/^\d+s$/), 'agent', 'kedge.io/agent:1.0', 'app=agent']);
    const pins = await kubectl('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={range .items[*]}{.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]}{"\\n"}{end}');
    expect(pins.stdout.trim().split('\n').sort()).toEqual(['edge-1', 'edge-2']);
    expect((await kubectl('describe', 'ds', 'agent')).stdout).toMatch(/Desired Number of Nodes Scheduled: 2/);
  });

  it('rolls out a new image, shows the history and undoes it', async () => {
    expect(await kubectl('set', 'image', 'ds/agent', 'agent=kedge.io/agent:2.0')).toMatchObject({ code: 0, stdout: 'daemonset.apps/agent image updated\n' });
    await rolledOut();
    const history = await kubectl('rollout', 'history', 'ds/agent');
    expect(history.stderr).toBe('');
    expect(history.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)[0])).toEqual(['daemonset.apps/agent', 'REVISION', '1', '2']);
    expect((await kubectl('rollout', 'history', 'ds/agent', '--revision=1')).stdout).toContain('kedge.io/agent:1.0');

    expect(await kubectl('rollout', 'undo', 'ds/agent')).toMatchObject({ code: 0, stdout: 'daemonset.apps/agent rolled back\n' });
    await rolledOut();
    const images = await kubectl('get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[*].spec.containers[0].image}');
    expect(images.stdout.split(' ')).toEqual(['kedge.io/agent:1.0', 'kedge.io/agent:1.0']);
    const after = await kubectl('rollout', 'history', 'ds/agent');
    expect(after.stdout.trim().split('\n').slice(2).map((l) => l.trim().split(/\s+/)[0])).toEqual(['2', '3']);

    const revisions = await kubectl('get', 'controllerrevisions');
    const [header, ...rows] = revisions.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'CONTROLLER', 'REVISION', 'AGE']);
    expect(rows.map((r) => r.split(/\s{2,}/).slice(1, 3)).sort()).toEqual([['daemonset.apps/agent', '2'], ['daemonset.apps/agent', '3']]);
  });
});
