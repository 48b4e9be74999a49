import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { ensureRuntimeClasses, ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { buildKubeconfig, LOOPBACK_HOSTS, loadOrCreateServingCert, writeKubeconfig } from '../../cloud/apiserver/auth/credentials.js';
import { startApiServer, type RunningApiServer } from '../../cloud/apiserver/http/http-server.js';
import { createApiServer, type ApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { withLatency } from './slow-store.js';

export interface HttpApiFixture {
  api: ApiServer;
  server: RunningApiServer;
  dir: string;
  kubeconfig: string;
  token: string;
  close(): Promise<void>;
}

/**
 * A real apiserver on a free port with a kubeconfig in a temp dir; close() removes both.
 * HTTPS by default (kubectl sends tokens only over TLS); `{ tls: false }` for plain HTTP.
 * `tap` sees every request before the apiserver does; `storeLatencyMs` delays each store call as etcd would.
 */
export async function httpApiFixture(opts: { tls?: boolean; tap?: (req: ApiRequest) => void; storeLatencyMs?: number } = {}): Promise<HttpApiFixture> {
  const token = 'http-admin-token';
  const store = new MemoryStore();
  const served = opts.storeLatencyMs === undefined ? store : withLatency(store, opts.storeLatencyMs);
  const api = createApiServer({ store: served, clock: realClock, logger: silentLogger, tokens: [{ token, user: 'admin', role: 'admin' }] });
  await ensureSystemNamespaces(api.loopback(token));
  await ensureRuntimeClasses(api.loopback(token));
  const dir = await mkdtemp(join(tmpdir(), 'kedge-api-'));
  const tls = opts.tls === false ? undefined : await loadOrCreateServingCert(dir, LOOPBACK_HOSTS, realClock.now());
  const tap = opts.tap;
  const handler = tap
    ? (req: ApiRequest) => {
        tap(req);
        return api.handle(req);
      }
    : api.handle;
  const server = await startApiServer({ handler, gate: api.gate, port: 0, tls });
  const kubeconfig = await writeKubeconfig(dir, server.url, token, tls?.caPem);
  await writeFile(join(dir, 'kubeconfig.json'), JSON.stringify(buildKubeconfig(server.url, token, tls?.caPem)));
  return {
    api, server, dir, kubeconfig, token,
    async close() {
      await server.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
