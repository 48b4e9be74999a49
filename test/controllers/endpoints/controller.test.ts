import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../cloud/client/client.js';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { endpointsController } from '../../../cloud/controllers/endpoints/index.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { settle } from '../../../shared/clock.js';
import { isKedgeError } from '../../../shared/errors.js';
import { silentLogger } from '../../../shared/log.js';
import type { Endpoints, Service } from '../../../shared/service-types.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Pod } from '../../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../../support/api-fixture.js';
import { withInformers } from '../../support/controller-context.js';

const ns = 'default';

/** Lets the in-process watches, queue and workers run until `check` holds (no wall-clock sleeping). */
async function until<T>(check: () => Promise<T | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await check();
    if (value) return value;
    await settle();
  }
  throw new Error(`never happened: ${what}`);
}

describe('endpoints controller, in process with an apiserver', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let controller: RunningController | undefined;

  const start = async (): Promise<void> => {
    controller = await endpointsController.start(withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() }));
  };
  const endpoints = async (name: string): Promise<Endpoints | undefined> => {
    try {
      return await api.get<Endpoints>({ resource: 'endpoints', namespace: ns, name });
    } catch (err) {
      if (isKedgeError(err, 'NotFound')) return undefined;
      throw err;
    }
  };
  const createService = (name: string, spec: Partial<Service['spec']>) =>
    api.create<Service>({ resource: 'services', namespace: ns }, { metadata: { name }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }], ...spec } });
  const runPod = async (name: string, ip: string, ready: boolean): Promise<Pod> => {
    const created = await api.create<Pod>({ resource: 'pods', namespace: ns }, {
      metadata: { name, labels: { app: 'web' } },
      spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
    });
    return setReady(created, ip, ready);
  };
  const setReady = async (pod: Pod, ip: string, ready: boolean): Promise<Pod> => {
    const current = await api.get<Pod>({ resource: 'pods', namespace: ns, name: pod.metadata.name });
    const status = { phase: 'Running' as const, podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? ('True' as const) : ('False' as const) }] };
    return api.replace<Pod>({ resource: 'pods', namespace: ns, name: pod.metadata.name, subresource: 'status' }, { ...current, status });
  };
  const ips = (ep: Endpoints | undefined, field: 'addresses' | 'notReadyAddresses'): string[] => (ep?.subsets ?? []).flatMap((s) => (s[field] ?? []).map((a) => a.ip));

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
  });
  afterEach(async () => {
    await controller?.close();
    controller = undefined;
  });

  it('lists the selected pods, moves a pod that turns not ready, and deletes the Endpoints with the Service', async () => {
    await start();
    const web = await runPod('web-1', '10.244.0.2', true);
    await runPod('web-2', '10.244.0.3', false);
    await createService('web', { selector: { app: 'web' } });

    const first = await until(async () => { const ep = await endpoints('web'); return ep?.subsets?.length ? ep : undefined; }, 'endpoints for web');
    expect(first.subsets).toEqual([{
      addresses: [{ ip: '10.244.0.2', nodeName: 'edge-1', targetRef: { kind: 'Pod', namespace: ns, name: 'web-1', uid: web.metadata.uid } }],
      notReadyAddresses: [expect.objectContaining({ ip: '10.244.0.3' })],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    }]);

    await setReady(web, '10.244.0.2', false);
    const moved = await until(async () => { const ep = await endpoints('web'); return ips(ep, 'addresses').length === 0 ? ep : undefined; }, 'web-1 not ready');
    expect(ips(moved, 'notReadyAddresses')).toEqual(['10.244.0.2', '10.244.0.3']);

    await api.delete({ resource: 'services', namespace: ns, name: 'web' });
    await until(async () => (await endpoints('web')) === undefined, 'endpoints deleted');
  });

  it('puts back deleted Endpoints and leaves those of a Service without selector alone', async () => {
    await start();
    await runPod('web-1', '10.244.0.2', true);
    await createService('web', { selector: { app: 'web' } });
    await until(() => endpoints('web'), 'endpoints for web');
    await api.delete({ resource: 'endpoints', namespace: ns, name: 'web' });
    await until(async () => ips(await endpoints('web'), 'addresses').length === 1, 'endpoints recreated');

    await createService('db', {});
    const manual: Endpoints = { metadata: { name: 'db' }, subsets: [{ addresses: [{ ip: '192.168.1.9' }], ports: [{ name: 'http', port: 5432, protocol: 'TCP' }] }] };
    await api.create({ resource: 'endpoints', namespace: ns }, manual);
    await runPod('web-2', '10.244.0.3', true);
    await until(async () => ips(await endpoints('web'), 'addresses').length === 2, 'web-2 listed');
    expect(ips(await endpoints('db'), 'addresses')).toEqual(['192.168.1.9']);
  });

  it('removes, when it starts, Endpoints left behind by a Service deleted while it was down', async () => {
    await api.create({ resource: 'endpoints', namespace: ns }, { metadata: { name: 'gone' }, subsets: [{ addresses: [{ ip: '10.244.0.9' }], ports: [{ port: 80 }] }] });
    await api.create({ resource: 'endpoints', namespace: ns }, { metadata: { name: 'lock', annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } } });
    await start();
    await until(async () => (await endpoints('gone')) === undefined, 'leftover endpoints deleted');
    expect(await endpoints('lock')).toBeDefined();
  });

  it('stops when closed', async () => {
    await start();
    await controller!.close();
    await createService('web', { selector: { app: 'web' } });
    for (let i = 0; i < 20; i++) await settle();
    expect(await endpoints('web')).toBeUndefined();
  });
});
