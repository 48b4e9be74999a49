import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from '../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../cloud/controllers/events.js';
import { statefulSetController } from '../../cloud/controllers/statefulset/index.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import { fakeKubelet } from '../controllers/deployment/fake-kubelet.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { withInformers } from '../support/controller-context.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

const manifest = join(import.meta.dirname, '../../examples/statefulset.yaml');

/**
 * The real kubectl against StatefulSets: apply, get, scale, rollout status|history|undo, with
 * the StatefulSet controller and a fake kubelet in-process (no scheduler or storage: claims
 * stay Pending, pods become Running and Ready as soon as they exist). Every wait is kubectl's own.
 */
describe.skipIf(!hasKubectl)('kubectl with StatefulSets', () => {
  let f: HttpApiFixture;
  let running: RunningController[];
  let kubelet: ReturnType<typeof fakeKubelet>;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const rolledOut = async (updated: number): Promise<void> => {
    const status = await kubectl('rollout', 'status', 'sts/web', '--timeout=20s');
    expect(status.stderr).toBe('');
    expect(status.stdout.trim().split('\n').at(-1)).toBe(`partitioned roll out complete: ${updated} new pods have been updated...`);
  };
  const podNames = async (): Promise<string[]> => (await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}')).stdout.split(' ').filter(Boolean).sort();

  beforeAll(async () => {
    f = await httpApiFixture();
    const api = f.api.loopback(f.token);
    const ctx = withInformers({ api, clock: realClock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() });
    kubelet = fakeKubelet(api, realClock);
    running = [await statefulSetController().start(ctx)];
  });
  afterAll(async () => {
    kubelet?.stop();
    await Promise.all((running ?? []).map((c) => c.close()));
    await f?.close();
  });

  it('applies a StatefulSet, waits with rollout status, and gets sts with the kube columns', async () => {
    expect(await kubectl('apply', '-f', manifest)).toMatchObject({ code: 0, stdout: 'service/web created\nstatefulset.apps/web created\n' });
    await rolledOut(3);
    const r = await kubectl('get', 'sts', '-o', 'wide');
    expect(r.stderr).toBe('');
    const [header, row] = r.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    expect(row!.split(/\s{2,}/)).toEqual(['web', '3/3', expect.stringMatching(/^\d+s$/), 'web', 'kedge.io/web:1.0']);
    expect(await podNames()).toEqual(['web-0', 'web-1', 'web-2']);
    const claims = await kubectl('get', 'pvc', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(claims.stdout.split(' ').sort()).toEqual(['data-web-0', 'data-web-1', 'data-web-2']);
    const described = await kubectl('describe', 'sts', 'web');
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/Replicas:\s+3 desired \| 3 total/);
    expect(described.stdout).toMatch(/Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed/);
    expect(described.stdout).toMatch(/Volume Claims:\n\s+Name:\s+data/);
  });

  it('scales down from the highest ordinal, keeping the claims, and back up', async () => {
    expect(await kubectl('scale', 'sts/web', '--replicas=1')).toMatchObject({ code: 0, stdout: 'statefulset.apps/web scaled\n' });
    expect(await kubectl('wait', '--for=delete', 'pod/web-1', 'pod/web-2', '--timeout=20s')).toMatchObject({ code: 0 });
    expect(await podNames()).toEqual(['web-0']);
    expect((await kubectl('get', 'pvc', '-o', 'name')).stdout.trim().split('\n').sort()).toEqual(['persistentvolumeclaim/data-web-0', 'persistentvolumeclaim/data-web-1', 'persistentvolumeclaim/data-web-2']);
    expect(await kubectl('scale', 'sts/web', '--replicas=2')).toMatchObject({ code: 0 });
    await rolledOut(2);
    expect(await podNames()).toEqual(['web-0', 'web-1']);
  });

  it('rolls out a new image, shows the history and undoes it', async () => {
    expect(await kubectl('set', 'image', 'sts/web', 'web=kedge.io/web:2.0')).toMatchObject({ code: 0, stdout: 'statefulset.apps/web image updated\n' });
    await rolledOut(2);
    const images = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}');
    expect(images.stdout.split(' ')).toEqual(['kedge.io/web:2.0', 'kedge.io/web:2.0']);
    const history = await kubectl('rollout', 'history', 'sts/web');
    expect(history.stderr).toBe('');
    expect(history.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)[0])).toEqual(['statefulset.apps/web', 'REVISION', '1', '2']);

    expect(await kubectl('rollout', 'undo', 'sts/web')).toMatchObject({ code: 0, stdout: 'statefulset.apps/web rolled back\n' });
    await rolledOut(2);
    const back = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}');
    expect(back.stdout.split(' ')).toEqual(['kedge.io/web:1.0', 'kedge.io/web:1.0']);
    const after = await kubectl('rollout', 'history', 'sts/web');
    expect(after.stdout.trim().split('\n').slice(2).map((l) => l.trim().split(/\s+/)[0])).toEqual(['2', '3']);
  });
});
