import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file in an edge's data dir holding the bearer token its local API wants for a change. */
export const LOCAL_API_TOKEN = 'local-api.token';

/** A local API answers within this long, or counts as not answering. */
const TIMEOUT_MS = 5_000;

/**
 * Stops or starts one of an edge's own components (kube-proxy, kedge-cni) through its local
 * API, with the token from the edge's data dir: `POST /components/<name>/<action>`.
 */
export async function actOnEdgeComponent(localApiUrl: string, edgeDataDir: string, name: string, action: 'stop' | 'start'): Promise<void> {
  const tokenPath = join(edgeDataDir, LOCAL_API_TOKEN);
  const token = (await readFile(tokenPath, 'utf8').catch((err: NodeJS.ErrnoException) => Promise.reject(new Error(`${action} ${name}: cannot read ${tokenPath}: ${err.code ?? err.message}`)))).trim();
  const url = `${localApiUrl}/components/${encodeURIComponent(name)}/${action}`;
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (res.ok) return;
  const text = await res.text();
  let message: string | undefined;
  try {
    message = (JSON.parse(text) as { message?: string }).message;
  } catch {
    message = text.trim() || undefined;
  }
  throw new Error(`${action} ${name}: ${message ?? `HTTP ${res.status}`}`);
}
