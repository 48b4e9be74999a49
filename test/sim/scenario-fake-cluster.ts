import type { ApiClient } from '../../cloud/client/client.js';
import type { Cancel, FakeClock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { Node, Pod } from '../../shared/types.js';
import type { ScenarioCluster } from '../../sim/scenario/cluster.js';
import type { FlapStep, ShapeStep } from '../../sim/scenario/types.js';
import type { EdgeConnection } from '../../sim/scenario/judge.js';
import type { Reply } from '../../sim/scenario/judge-service.js';
import { FakeApiClient } from '../support/fake-api-client.js';

const GRACE_MS = 40_000;

/**
 * TEST DOUBLE. A cluster of edge-1 and edge-2 (InternalIP 127.0.1.1 and .2), each running one
 * pod, on a fake clock: a cut node turns Unknown 40 s of cluster time later, a heal makes it
 * Ready again; with the store stopped every API call fails with 503. An HTTP GET to a node's
 * address is answered, round robin, by the name of a Running and ready `app=web` pod, as that
 * node's kube-proxy knows them: stopped, it keeps the ones it had. Each heal forwards 300 bytes
 * up and 40,000 down the node's link. Every action is recorded in `actions`.
 */
export class FakeScenarioCluster implements ScenarioCluster {
  readonly nodes = ['edge-1', 'edge-2'];
  readonly actions: string[] = [];
  readonly api: ApiClient;
  stopped = false;
  private readonly fake = new FakeApiClient();
  private readonly timers = new Map<string, Cancel>();
  private readonly offline = new Set<string>();
  private storeDown = false;
  /** The endpoints each stopped kube-proxy kept. */
  private readonly frozen = new Map<string, string[]>();
  private turns = 0;

  constructor(
    private readonly clock: FakeClock,
    private readonly timeScale: number,
  ) {
    this.api = new Proxy(this.fake, {
      get: (target, key) => {
        const value = target[key as keyof FakeApiClient];
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (this.storeDown ? Promise.reject(new KedgeError('Unavailable', 'the store is down')) : (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
  }

  async setUp(): Promise<this> {
    for (const name of this.nodes) {
      const addresses = [{ type: 'InternalIP', address: `127.0.1.${this.nodes.indexOf(name) + 1}` }];
      await this.fake.create<Node>({ resource: 'nodes' }, { metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True' }], addresses } });
      const pod: Pod = {
        metadata: { name: `web-${name}`, namespace: 'default', labels: { app: 'web' } },
        spec: { nodeName: name, containers: [{ name: 'web', image: 'i' }] },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      };
      await this.fake.create<Pod>({ resource: 'pods', namespace: 'default' }, pod);
    }
    return this;
  }

  link(node: string, action: 'cut' | 'heal'): void {
    this.actions.push(`${action} ${node}`);
    this.timers.get(node)?.();
    if (action === 'cut') {
      this.offline.add(node);
      this.timers.set(node, this.clock.setTimer(GRACE_MS / this.timeScale, () => void this.setReady(node, 'Unknown')));
    } else {
      this.offline.delete(node);
      void this.setReady(node, 'True');
      // What the link held during the cut arrives.
      const b = this.linkBytes(node);
      this.bytes.set(node, { up: b.up + 300, down: b.down + 40_000 });
    }
  }

  readonly linkSteps: (ShapeStep | FlapStep)[] = [];

  shapeLink(step: ShapeStep | FlapStep): void {
    this.actions.push(`${step.kind} ${step.node}`);
    this.linkSteps.push(step);
  }

  /** Bytes each node's link has forwarded: each heal adds 300 up and 40,000 down. */
  private readonly bytes = new Map<string, { up: number; down: number }>();

  linkBytes(node: string): { up: number; down: number } {
    return { ...(this.bytes.get(node) ?? { up: 0, down: 0 }) };
  }

  async restartEdge(node: string, how: { crash?: boolean; reboot?: boolean }): Promise<void> {
    this.actions.push(`${how.reboot ? 'reboot' : how.crash ? 'crash' : 'restart'} ${node}`);
    await this.clock.sleep(1_000);
  }

  async component(name: string, action: 'stop' | 'start'): Promise<void> {
    if (name !== 'store') throw new Error(`no component named "${name}"`);
    this.actions.push(`${action} ${name}`);
    this.storeDown = action === 'stop';
  }

  async edgeComponent(node: string, name: string, action: 'stop' | 'start'): Promise<void> {
    if (name !== 'kube-proxy') throw new Error(`no component "${name}" on this edge`);
    this.actions.push(`${action} ${name} on ${node}`);
    if (action === 'stop') this.frozen.set(node, await this.readyWebPods());
    else this.frozen.delete(node);
  }

  async httpGet(url: string): Promise<Reply> {
    const node = this.nodes[Number(new URL(url).hostname.split('.')[3]) - 1];
    if (!node) return { error: 'timed out' };
    const endpoints = this.frozen.get(node) ?? (await this.readyWebPods());
    if (endpoints.length === 0) return { error: 'refused' };
    return { status: 200, body: `${endpoints[this.turns++ % endpoints.length]}\n` };
  }

  async edgePods(node: string): Promise<Pod[]> {
    return (await this.fake.list<Pod>({ resource: 'pods' })).items.filter((p) => p.spec.nodeName === node);
  }

  async edgeConnection(node: string): Promise<EdgeConnection> {
    const connected = !this.offline.has(node);
    return { connected, offlineSince: connected ? null : 'earlier', queued: 0 };
  }

  async edgeFile(node: string, podUid: string, container: string, path: string): Promise<string> {
    throw new Error(`ENOENT: no ${path} in ${podUid}/${container} on ${node}`);
  }

  async stop(): Promise<void> {
    for (const cancel of this.timers.values()) cancel();
    this.stopped = true;
  }

  private async readyWebPods(): Promise<string[]> {
    const pods = (await this.fake.list<Pod>({ resource: 'pods' })).items;
    const ready = pods.filter((p) => p.metadata.labels?.app === 'web' && p.status?.phase === 'Running' && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    return ready.map((p) => p.metadata.name!).sort();
  }

  private async setReady(node: string, status: 'True' | 'Unknown'): Promise<void> {
    await this.fake.patch({ resource: 'nodes', name: node, subresource: 'status' }, { status: { conditions: [{ type: 'Ready', status }] } });
  }
}
