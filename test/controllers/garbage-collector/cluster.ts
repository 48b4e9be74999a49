import { ensureSystemNamespaces } from '../../../cloud/apiserver/kinds/bootstrap.js';
import type { ApiClient } from '../../../cloud/client/client.js';
import { createApiServer } from '../../../cloud/apiserver/pipeline.js';
import type { ResourceDef } from '../../../cloud/apiserver/kinds/registry.js';
import { clusterResources } from '../../../cloud/apiserver/kinds/resources.js';
import type { Controller, RunningController } from '../../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { MemoryStore } from '../../../cloud/store/memory-store.js';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import { withInformers } from '../../support/controller-context.js';

/** A test-only namespaced kind in its own group: owners that are neither pods nor nodes. */
export const widgetResource: ResourceDef = {
  group: 'test.kedge.io', version: 'v1', resource: 'widgets', singular: 'widget', kind: 'Widget',
  namespaced: true, shortNames: [], categories: [], subresources: [],
};

export const testResources: ResourceDef[] = [...clusterResources, widgetResource];

export interface Cluster {
  api: ApiClient;
  clock: FakeClock;
  /** Starts controllers built from the cluster's resource table. */
  start(...controllers: Controller[]): Promise<void>;
  /** Moves the fake clock in small steps until `check` holds (no wall-clock sleeps). */
  until(check: () => boolean | Promise<boolean>, what: string): Promise<void>;
  close(): Promise<void>;
}

/** An in-process apiserver (MemoryStore, FakeClock) serving `testResources`, with the system namespaces. */
export async function cluster(): Promise<Cluster> {
  const store = new MemoryStore({ historySize: 500 });
  const clock = new FakeClock();
  const server = createApiServer({ store, clock, logger: silentLogger, tokens: [{ token: 't', user: 'admin', role: 'admin' }], resources: testResources });
  const api = server.loopback('t');
  await ensureSystemNamespaces(api);
  const running: RunningController[] = [];
  return {
    api,
    clock,
    async start(...controllers) {
      for (const c of controllers) running.push(await c.start(withInformers({ api, clock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() })));
    },
    async until(check, what) {
      for (let step = 0; step < 400; step++) {
        if (await check()) return;
        await clock.advance(25);
      }
      throw new Error(`never happened: ${what}`);
    },
    async close() {
      await Promise.all(running.map((r) => r.close()));
      await store.close();
    },
  };
}

/** Whether `get` answers NotFound. */
export async function gone(get: Promise<unknown>): Promise<boolean> {
  try {
    await get;
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFound') return true;
    throw err;
  }
}
