import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningController } from '../../cloud/controllers/controller.js';
import { deploymentController } from '../../cloud/controllers/deployment/index.js';
import { memoryEventRecorder } from '../../cloud/controllers/events.js';
import { replicaSetController } from '../../cloud/controllers/replicaset/index.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import { fakeKubelet } from '../controllers/deployment/fake-kubelet.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';
import { withInformers } from '../support/controller-context.js';

/**
 * The real kubectl against Deployments and ReplicaSets, with both controllers and a fake
 * kubelet running in-process. The HTTP fixture runs on the real clock (kubectl does anyway);
 * nothing here sleeps: every wait is kubectl's own (`rollout status` watches).
 */
describe.skipIf(!hasKubectl)('kubectl with apps/v1', () => {
  let f: HttpApiFixture;
  let running: RunningController[];
  let kubelet: ReturnType<typeof fakeKubelet>;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const manifest = join(import.meta.dirname, '../../examples/deployment.yaml');

  beforeAll(async () => {
    f = await httpApiFixture();
    const api = f.api.loopback(f.token);
    const ctx = withInformers({ api, clock: realClock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() });
    kubelet = fakeKubelet(api, realClock);
    running = [await replicaSetController().start(ctx), await deploymentController().start(ctx)];
  });
  afterAll(async () => {
    kubelet?.stop();
    await Promise.all((running ?? []).map((c) => c.close()));
    await f?.close();
  });

  it('applies examples/deployment.yaml and waits with rollout status', async () => {
    expect(await kubectl('apply', '--validate=false', '-f', manifest)).toMatchObject({ code: 0, stdout: 'deployment.apps/web created\n' });
    const status = await kubectl('rollout', 'status', 'deployment/web', '--timeout=20s');
    expect(status.stderr).toBe('');
    expect(status.stdout).toContain('deployment "web" successfully rolled out');
  });

  it('gets deploy,rs -o wide with the kube columns', async () => {
    const r = await kubectl('get', 'deploy,rs', '-o', 'wide');
    expect(r.stderr).toBe('');
    const [deployHeader, deployRow, , rsHeader, rsRow] = r.stdout.trim().split('\n');
    expect(deployHeader!.split(/\s{2,}/)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(deployRow!.split(/\s{2,}/)).toEqual(['deployment.apps/web', '3/3', '3', '3', expect.stringMatching(/^\d+s$/), 'web', 'kedge.io/hello:1.0', 'app=web']);
    expect(rsHeader!.split(/\s{2,}/)).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(rsRow!.split(/\s{2,}/)).toEqual([
      expect.stringMatching(/^replicaset\.apps\/web-[a-z0-9]+$/), '3', '3', '3', expect.stringMatching(/^\d+s$/), 'web', 'kedge.io/hello:1.0',
      expect.stringMatching(/^app=web,pod-template-hash=[a-z0-9]+$/),
    ]);
  });

  it('scales through the scale subresource', async () => {
    expect(await kubectl('scale', 'deployment/web', '--replicas=5')).toMatchObject({ code: 0, stdout: 'deployment.apps/web scaled\n' });
    const status = await kubectl('rollout', 'status', 'deploy/web', '--timeout=20s');
    expect(status.stdout).toContain('successfully rolled out');
    const r = await kubectl('get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.status.availableReplicas}');
    expect(r.stdout).toBe('5 5');
  });
});
