import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterResources, createApiServer, ensureSystemNamespaces, resourcePrefixes, startApiServer } from '../cloud/apiserver/index.js';
import type { WriteRules } from '../cloud/apiserver/write-rules.js';
import { DurableStore } from '../cloud/store/durable-store.js';
import { realClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { kubectlHttp, type KubectlHttp } from './kubectl-http.js';
import { createAll } from './scheduler.js';
import { benchPod } from './scale-cluster.js';

/*
 * One arm of the rules A/B: an apiserver as the cloud builds it (the cluster's kinds, the
 * embedded durable store in a temp dir, plain HTTP on a loopback port) with the given write
 * rules, holding `pods` pods created as `kubectl create` sends them.
 */

const TOKEN = 'bench-admin';
/** Where the lists look: exactly the prefilled pods. */
export const LISTED_NAMESPACE = 'default';
/** Where each round's creates go, so that the listed namespace keeps its size. */
export const CREATED_NAMESPACE = 'bench-creates';
const PREFILL_IN_FLIGHT = 64;

export interface RulesArm {
  http: KubectlHttp;
  /** The names of the prefilled pods, in LISTED_NAMESPACE. */
  names: string[];
  close(): Promise<void>;
}

export const prefilledName = (i: number): string => `pod-${i}`;

/** The arm is what it says: its pods carry managedFields exactly when field ownership is on. */
async function checkOwnership(http: KubectlHttp, name: string | undefined, rules: WriteRules): Promise<void> {
  if (name === undefined) return;
  const owned = 'managedFields' in (await http.get(LISTED_NAMESPACE, name)).metadata;
  if (owned !== rules.fieldOwnership) throw new Error(`field ownership ${rules.fieldOwnership ? 'on' : 'off'}, yet ${name} ${owned ? 'has' : 'has no'} managedFields`);
}

export async function startRulesArm(rules: WriteRules, pods: number, inFlight: number): Promise<RulesArm> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-bench-rules-'));
  const store = await DurableStore.open(dir, { clock: realClock, resourcePrefixes: resourcePrefixes(clusterResources) });
  const abort = new AbortController();
  const close = async (): Promise<void> => {
    abort.abort();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const api = createApiServer({ store, clock: realClock, logger: silentLogger, tokens: [{ token: TOKEN, user: 'bench', role: 'admin' }], resources: clusterResources, rules });
    const admin = api.loopback(TOKEN);
    await ensureSystemNamespaces(admin);
    await admin.create({ resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CREATED_NAMESPACE } });
    const server = await startApiServer({ handler: (req) => api.handle(req), gate: api.gate, port: 0, signal: abort.signal });
    const http = kubectlHttp(server.url, TOKEN, Math.max(inFlight, PREFILL_IN_FLIGHT));
    const names = Array.from({ length: pods }, (_, i) => prefilledName(i));
    await createAll(pods, PREFILL_IN_FLIGHT, (i) => http.create(LISTED_NAMESPACE, benchPod(names[i]!)));
    await checkOwnership(http, names[0], rules);
    return {
      http,
      names,
      close: async () => {
        http.close();
        await server.close();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
