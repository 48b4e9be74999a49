import { resolve } from 'node:path';
import type { Clock } from '../shared/clock.js';
import type { LinkList } from './control-api.js';
import { readDemoFile, type DemoFile } from './demo-file.js';
import type { EdgeProcessInfo, EdgeRestart } from './edge-routes.js';
import type { EtcdMemberActed, EtcdMemberAction, EtcdMemberInfo } from './demo-etcd.js';
import type { LinkState } from './link-proxy.js';

/** A failure `kedge link` reports as it is: the message names the problem. */
export class LinkCommandError extends Error {
  override readonly name = 'LinkCommandError';
}

export type LinkAction = 'cut' | 'heal' | 'reset';

/** The fields of a shape or flap request, as texts; undefined ones are left out. */
export type LinkFields = Record<string, string | undefined>;

function query(fields: LinkFields): string {
  const defined = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  return new URLSearchParams(defined).toString();
}

const REQUEST_TIMEOUT_MS = 5_000;
/** An edge restart answers once the new process is ready (its stop, then up to 20 s): as long as the dashboard waits. */
const RESTART_TIMEOUT_MS = 30_000;

/** Talks to the control API of the demo running with `dataDir`. */
export class LinkClient {
  private constructor(
    readonly demo: DemoFile,
    private readonly clock: Clock,
  ) {}

  /** Finds the demo through `<dataDir>/demo.json`, and checks that it answers. */
  static async connect(dataDir: string, clock: Clock): Promise<LinkClient> {
    const noDemo = new LinkCommandError(`no kedge demo is running with data dir ${resolve(dataDir)} (start one with npm start)`);
    const demo = await readDemoFile(dataDir);
    if (!demo) throw noDemo;
    const client = new LinkClient(demo, clock);
    try {
      await client.request('GET', '/links');
    } catch (err) {
      throw err instanceof LinkCommandError ? err : noDemo;
    }
    return client;
  }

  async list(): Promise<LinkState[]> {
    return ((await this.request('GET', '/links')) as LinkList).items;
  }

  async get(node: string): Promise<LinkState> {
    return (await this.request('GET', `/links/${encodeURIComponent(node)}`)) as LinkState;
  }

  async act(node: string, action: LinkAction): Promise<LinkState> {
    return (await this.request('POST', `/links/${encodeURIComponent(node)}/${action}`)) as LinkState;
  }

  /** Shapes the node's link (fields as `kedge link shape` takes them: profile, latency, …, clear), checked by the demo too. */
  async shape(node: string, fields: LinkFields): Promise<LinkState> {
    return (await this.request('POST', `/links/${encodeURIComponent(node)}/shape?${query(fields)}`)) as LinkState;
  }

  /** Flaps the node's link (down, every, seed) or stops it (stop). */
  async flap(node: string, fields: LinkFields): Promise<LinkState> {
    return (await this.request('POST', `/links/${encodeURIComponent(node)}/flap?${query(fields)}`)) as LinkState;
  }

  /** Ends the node's edge process and starts it again (as the dashboard's buttons); resolves once it is ready. */
  async restartEdge(node: string, how: EdgeRestart): Promise<EdgeProcessInfo> {
    return (await this.request('POST', `/edges/${encodeURIComponent(node)}/${how}`, RESTART_TIMEOUT_MS)) as EdgeProcessInfo;
  }

  async etcdMembers(): Promise<EtcdMemberInfo[]> {
    return ((await this.request('GET', '/etcd')) as { items: EtcdMemberInfo[] }).items;
  }

  /** Stops, starts or kills one etcd member of a demo on etcd; answers at once. */
  async actOnEtcd(member: string, action: EtcdMemberAction): Promise<EtcdMemberActed> {
    return (await this.request('POST', `/etcd/${encodeURIComponent(member)}/${action}`)) as EtcdMemberActed;
  }

  /** JSON from the control API; a non-2xx answer becomes a LinkCommandError with its message. */
  private async request(method: string, path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<unknown> {
    const abort = new AbortController();
    const cancel = this.clock.setTimer(timeoutMs, () => abort.abort(new Error(`the demo did not answer within ${timeoutMs} ms`)));
    try {
      const headers = this.demo.controlToken === undefined ? undefined : { authorization: `Bearer ${this.demo.controlToken}` };
      const res = await fetch(new URL(path, this.demo.controlUrl), { method, headers, signal: abort.signal });
      const body = (await res.json()) as { message?: string };
      if (!res.ok) throw new LinkCommandError(body.message ?? `${method} ${path}: HTTP ${res.status}`);
      return body;
    } finally {
      cancel();
    }
  }
}
