import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { localApiTokenPath } from '../edge/local-api-token.js';
import { edgeDataDir, readDemoFile } from '../sim/demo-file.js';

/** Where `kedge edge` serves its local API unless told otherwise (--local-api-port). */
export const DEFAULT_LOCAL_API_PORT = 10550;
const ANSWER_WITHIN_MS = 10_000;

/** An edge as the commands that act on it through its local API find it. */
export interface EdgeTarget {
  node: string;
  url: string;
  /** The edge's own data dir: its local-api.token is there. */
  dataDir: string;
}

export interface EdgeAddress {
  node: string;
  /** The demo's data dir, or the edge's own. */
  dataDir: string;
  /** Whether the user gave --data-dir (else it is the default demo's). */
  dataDirGiven: boolean;
  /** --local-api: overrides what the demo file or the default port says. */
  localApi?: string;
}

const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

/**
 * The edge to talk to: `node` of the demo in `dataDir` (its demo.json names its local API), or
 * else an edge whose own data dir that is (`kedge edge --data-dir`; without --data-dir, the
 * default `.kedge/edge/<node>`), at --local-api or the default port.
 */
export async function resolveEdge(a: EdgeAddress): Promise<EdgeTarget> {
  const dir = resolve(a.dataDir);
  const demo = await readDemoFile(dir);
  if (demo) {
    const node = demo.nodes.find((n) => n.name === a.node);
    if (!node) throw new Error(`no node "${a.node}" in the demo in ${dir} (its edges: ${demo.nodes.map((n) => n.name).join(', ') || 'none'})`);
    return { node: a.node, url: a.localApi ?? node.localApiUrl, dataDir: edgeDataDir(dir, a.node) };
  }
  const own = a.dataDirGiven ? dir : resolve('.kedge', 'edge', a.node);
  if (!a.dataDirGiven && !a.localApi && !(await exists(localApiTokenPath(own)))) {
    throw new Error(
      `no demo runs with data dir ${dir} (no demo.json there), and no edge ${a.node} has the data dir ${own}; ` +
        'for an edge started with kedge edge, give --data-dir <its data dir> and --local-api http://127.0.0.1:<its --local-api-port>',
    );
  }
  return { node: a.node, url: a.localApi ?? `http://127.0.0.1:${DEFAULT_LOCAL_API_PORT}`, dataDir: own };
}

/** The edge's local API token, which only the owner of its data dir may read. */
async function tokenOf(target: EdgeTarget): Promise<string> {
  const path = localApiTokenPath(target.dataDir);
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES') throw new Error(`cannot read ${path}: only the owner of ${target.node}'s data dir may change its components`);
    throw new Error(`no local API token at ${path}: is ${target.dataDir} the data dir of ${target.node}, started at least once? (give --data-dir <its data dir>)`);
  }
}

/** One request to the edge's local API: its JSON (or text) answer; failures say what went wrong, in the API's own words when it answered. */
export async function localApiRequest(target: EdgeTarget, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const headers: Record<string, string> = method === 'POST' ? { authorization: `Bearer ${await tokenOf(target)}` } : {};
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}`, { method, headers, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  } catch (err) {
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${ANSWER_WITHIN_MS / 1000} s` : 'nothing answers there';
    throw new Error(`${target.node}'s local API at ${target.url} does not answer (${why}): is the edge running? (--local-api <url> to name another address)`);
  }
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) throw new Error((json as { message?: string } | undefined)?.message ?? `${method} ${path}: HTTP ${res.status}`);
  return json ?? text;
}
