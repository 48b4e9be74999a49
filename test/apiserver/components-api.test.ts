import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiResponse } from '../../cloud/apiserver/request.js';
import { ComponentSet } from '../../cloud/components/component-set.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

async function setup() {
  const clock = new FakeClock();
  const components = new ComponentSet(clock, silentLogger);
  for (const name of ['scheduler', 'controller-manager']) components.add({ name, start: async () => ({ close: async () => {} }) });
  await components.startAll();
  const api = createApiServer({
    store: new MemoryStore(), clock, logger: silentLogger, components,
    tokens: [{ token: 'admin', user: 'admin', role: 'admin' }, { token: 'viewer', user: 'viewer', role: 'viewer' }],
  });
  const send = (method: string, path: string, token = 'admin', accept = 'application/json'): Promise<ApiResponse> =>
    api.handle({ method, path, query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, accept } });
  return { send, components };
}

interface Condition { status: string; error?: string }
interface Json {
  items: { metadata: { name: string }; conditions: Condition[]; running?: boolean }[];
  rows: { cells: unknown[] }[];
  resources: { name: string }[];
  conditions: Condition[];
  reason: string;
  message: string;
}
const body = (res: ApiResponse): Json => (res.type === 'json' ? res.body : undefined) as Json;

describe('components over the API', () => {
  it('lists componentstatuses as kubectl get cs reads them', async () => {
    const { send } = await setup();
    const list = await send('GET', '/api/v1/componentstatuses');
    expect(list.status).toBe(200);
    expect(body(list).items.map((c) => [c.metadata.name, c.conditions[0]!.status])).toEqual([['scheduler', 'True'], ['controller-manager', 'True']]);
    const table = await send('GET', '/api/v1/componentstatuses', 'admin', 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(body(table).rows.map((r) => r.cells)).toEqual([['scheduler', 'Healthy', 'ok', ''], ['controller-manager', 'Healthy', 'ok', '']]);
    const discovery = body(await send('GET', '/api/v1'));
    expect(discovery.resources.find((r) => r.name === 'componentstatuses')).toMatchObject({ shortNames: ['cs'], namespaced: false });
  });

  it("warns on every answer about componentstatuses, as kube's deprecated kinds do, and on nothing else", async () => {
    const { send } = await setup();
    const warning = 'v1 ComponentStatus is deprecated in v1.19+';
    const warningsOf = (res: ApiResponse): readonly string[] | undefined => (res.type === 'watch' ? undefined : res.warnings);
    expect(warningsOf(await send('GET', '/api/v1/componentstatuses'))).toEqual([warning]);
    const missing = await send('GET', '/api/v1/componentstatuses/nope');
    expect(missing.status).toBe(404);
    expect(warningsOf(missing)).toEqual([warning]);
    expect(warningsOf(await send('GET', '/api/v1/namespaces'))).toBeUndefined();
  });

  it('stops and starts a component, and componentstatuses shows it Unhealthy meanwhile', async () => {
    const { send } = await setup();
    const stopped = await send('POST', '/kedge/v1/components/scheduler/stop');
    expect(stopped.status).toBe(200);
    expect(body(stopped)).toMatchObject({ name: 'scheduler', running: false });
    const cs = body(await send('GET', '/api/v1/componentstatuses/scheduler'));
    expect(cs.conditions[0]).toMatchObject({ status: 'False', error: expect.stringContaining('stopped') });
    expect(body(await send('POST', '/kedge/v1/components/scheduler/start'))).toMatchObject({ running: true });
    expect(body(await send('GET', '/kedge/v1/components')).items.every((c) => c.running)).toBe(true);
  });

  it('answers Status errors: unknown component 404, viewer 403, writes to componentstatuses 405', async () => {
    const { send } = await setup();
    const unknown = await send('POST', '/kedge/v1/components/kube-proxy/stop');
    expect([unknown.status, body(unknown).reason]).toEqual([404, 'NotFound']);
    const viewer = await send('POST', '/kedge/v1/components/scheduler/stop', 'viewer');
    expect([viewer.status, body(viewer).reason]).toEqual([403, 'Forbidden']);
    expect((await send('GET', '/kedge/v1/components', 'viewer')).status).toBe(200);
    expect((await send('DELETE', '/api/v1/componentstatuses/scheduler')).status).toBe(405);
  });

  it('refuses to stop an unstoppable part with a 400 Status naming why', async () => {
    const { send, components } = await setup();
    components.adopt({ name: 'apiserver', unstoppable: 'the stop request goes through it', start: async () => ({ close: async () => {} }) }, { close: async () => {} });
    const res = await send('POST', '/kedge/v1/components/apiserver/stop');
    expect([res.status, body(res).reason]).toEqual([400, 'BadRequest']);
    expect(body(res).message).toBe('apiserver cannot be stopped: the stop request goes through it');
  });
});
