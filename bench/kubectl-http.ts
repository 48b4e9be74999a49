import { Agent, request } from 'node:http';
import type { Pod } from '../shared/types.js';

/*
 * The pod calls kubectl 1.32 makes, over plain HTTP with keep-alive, as it sends them:
 * create and `patch --type merge` with fieldValidation=Strict
 * and their fieldManager, `apply --server-side` as an apply patch whose body is JSON, and lists
 * as JSON (kubectl's own `get` asks for a Table; informers and client-go ask for this).
 */

const USER_AGENT = 'kubectl/v1.32.4 (linux/amd64) kubernetes/bench';
const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

export interface KubectlHttp {
  create(namespace: string, pod: Pod): Promise<void>;
  get(namespace: string, name: string): Promise<Pod>;
  /** `kubectl patch pod NAME --type merge -p …`: no resourceVersion, so the server retries on conflict. */
  mergePatch(namespace: string, name: string, patch: unknown): Promise<void>;
  /** `kubectl apply --server-side` of `pod`. */
  apply(namespace: string, pod: Pod): Promise<void>;
  /** Every pod of the namespace: one GET, or pages of `limit` following continue tokens. Returns how many. */
  listAll(namespace: string, limit?: number): Promise<number>;
  close(): void;
}

interface Reply {
  status: number;
  body: Buffer;
}

const podsPath = (namespace: string, name?: string): string => `/api/v1/namespaces/${namespace}/pods${name ? `/${name}` : ''}`;

export function kubectlHttp(baseUrl: string, token: string, inFlight: number): KubectlHttp {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const send = (method: string, path: string, query: Record<string, string>, body?: { type: string; json: unknown }): Promise<Reply> => {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const payload = body && Buffer.from(JSON.stringify(body.json));
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json', 'user-agent': USER_AGENT };
    if (body && payload) Object.assign(headers, { 'content-type': body.type, 'content-length': String(payload.length) });
    return new Promise((resolve, reject) => {
      const req = request(url, { method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
  const ok = async (what: string, reply: Promise<Reply>): Promise<Buffer> => {
    const { status, body } = await reply;
    if (status >= 300) throw new Error(`${what}: ${status} ${body.toString().slice(0, 300)}`);
    return body;
  };
  const strict = (fieldManager: string): Record<string, string> => ({ fieldManager, fieldValidation: 'Strict' });
  return {
    async create(namespace, pod) {
      await ok(`create ${pod.metadata.name}`, send('POST', podsPath(namespace), strict('kubectl-create'), { type: 'application/json', json: pod }));
    },
    async get(namespace, name) {
      return JSON.parse((await ok(`get ${name}`, send('GET', podsPath(namespace, name), {}))).toString()) as Pod;
    },
    async mergePatch(namespace, name, patch) {
      await ok(`patch ${name}`, send('PATCH', podsPath(namespace, name), strict('kubectl-patch'), { type: MERGE_PATCH, json: patch }));
    },
    async apply(namespace, pod) {
      const query = { ...strict('kubectl'), force: 'false' };
      await ok(`apply ${pod.metadata.name}`, send('PATCH', podsPath(namespace, pod.metadata.name), query, { type: APPLY_PATCH, json: pod }));
    },
    async listAll(namespace, limit) {
      let items = 0;
      let token: string | undefined;
      do {
        const query: Record<string, string> = limit ? { limit: String(limit), ...(token ? { continue: token } : {}) } : {};
        const page = JSON.parse((await ok('list', send('GET', podsPath(namespace), query))).toString()) as { items: unknown[]; metadata: { continue?: string } };
        items += page.items.length;
        token = limit ? page.metadata.continue || undefined : undefined;
      } while (token);
      return items;
    },
    close: () => agent.destroy(),
  };
}
