import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { LOOPBACK_HOSTS, loadOrCreateServingCert } from '../../cloud/apiserver/auth/credentials.js';
import { startApiServer, type RunningApiServer } from '../../cloud/apiserver/http/http-server.js';
import type { InflightLimits } from '../../cloud/apiserver/http/inflight.js';
import { createApiServer, type ApiServer, type ApiServerDeps } from '../../cloud/apiserver/pipeline.js';
import type { StreamLimits } from '../../cloud/apiserver/http/response-stream.js';
import { API_REFUSED, describeCounters } from '../../cloud/metrics.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { Counters, refusals } from '../../shared/counters.js';
import type { ListenerTimeouts } from '../../shared/http-timeouts.js';
import { silentLogger } from '../../shared/log.js';

export const ADMIN = 'guarded-admin';
export const VIEWER = 'guarded-viewer';
export const NODE = 'guarded-node';

export interface GuardedApi {
  api: ApiServer;
  server: RunningApiServer;
  store: MemoryStore;
  clock: FakeClock;
  counters: Counters;
  caPem: string | undefined;
  /** How many refusals /metrics counts for `reason`. */
  refused(reason: string): number;
  close(): Promise<void>;
}

export interface GuardedApiOptions {
  tls?: boolean;
  timeouts?: ListenerTimeouts;
  streamLimits?: StreamLimits;
  inflight?: InflightLimits;
  /** More of the apiserver's collaborators (join paths, pod logs...). */
  deps?: Partial<ApiServerDeps>;
}

/** The cloud's apiserver on a real port, its refusals counted as the cloud counts them; a fake clock. */
export async function guardedApi(o: GuardedApiOptions = {}): Promise<GuardedApi> {
  const store = new MemoryStore();
  const clock = new FakeClock();
  const counters = describeCounters(new Counters());
  const api = createApiServer({
    store, clock, logger: silentLogger, inflight: o.inflight,
    tokens: [
      { token: ADMIN, user: 'admin', role: 'admin', groups: ['system:masters'] },
      { token: VIEWER, user: 'viewer', role: 'viewer' },
      { token: NODE, user: 'system:node:edge-1', role: 'node', groups: ['system:nodes'] },
    ],
    metrics: () => counters.text(),
    ...o.deps,
  });
  await ensureSystemNamespaces(api.loopback(ADMIN));
  const dir = o.tls ? await mkdtemp(join(tmpdir(), 'kedge-guarded-')) : undefined;
  const tls = dir ? await loadOrCreateServingCert(dir, LOOPBACK_HOSTS, realClock.now()) : undefined;
  const refused = refusals(counters, API_REFUSED, silentLogger, 'refused a request');
  const server = await startApiServer({ handler: api.handle, gate: api.gate, port: 0, tls, refused, timeouts: o.timeouts, streamLimits: o.streamLimits, upgrade: api.upgrade });
  return {
    api, server, store, clock, counters, caPem: tls?.caPem,
    refused: (reason) => counters.get(API_REFUSED, { reason }),
    async close() {
      await server.close();
      await store.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
