import type { Observable, Subscription } from 'rxjs';
import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';
import type { Endpoints, Service } from '../../../shared/service-types.js';
import { Coalescer } from '../../coalescer.js';
import { podsIn, type LocalCache } from '../../metamanager/local-cache.js';
import type { EdgeComponent } from '../edge-component.js';
import { planRules, type RuleAction } from './rule-plan.js';
import { serviceRules, type ServiceRule } from './service-rules.js';

/** What the agent programs: the rules in place, and a way to change them. */
export interface RuleTable {
  current(): ReadonlyMap<string, ServiceRule>;
  apply(actions: readonly RuleAction[]): Promise<void>;
}

export interface KubeProxyAgentDeps {
  cache: Pick<LocalCache, 'objects'>;
  /** Fires when what the rules are computed from may have changed: a cloud message applied, a pod status queued. */
  changes$: Observable<unknown>;
  rules: RuleTable;
  nodeName: string;
  clock: Clock;
  logger: Logger;
}

/** The Services and Endpoints the edge holds. */
export function cachedServices(cache: Pick<LocalCache, 'objects'>): { services: Service[]; endpoints: Endpoints[] } {
  const services: Service[] = [];
  const endpoints: Endpoints[] = [];
  for (const held of cache.objects()) {
    if (held.kind === 'Service') services.push(held.object);
    else if (held.kind === 'Endpoints') endpoints.push(held.object);
  }
  return { services, endpoints };
}

/**
 * kube-proxy's agent on this edge: it follows the cached Services, Endpoints and pods, and on
 * every change programs the rules (pure plan, thin apply). It needs nothing from the cloud, so
 * an offline edge still drops its own endpoints that stop or turn unready. Stopping it
 * freezes the rules as they are (they keep serving); starting it catches up at once.
 */
export class KubeProxyAgent implements EdgeComponent {
  readonly name = 'kube-proxy';
  private readonly syncs = new Coalescer(() => this.syncOnce());
  private subscription: Subscription | undefined;
  private changedAt: number;
  /** What was last logged as refused, by Service: each list is logged once. */
  private refusedLogged = new Map<string, string>();

  constructor(private readonly deps: KubeProxyAgentDeps) {
    this.changedAt = deps.clock.now();
  }

  running(): boolean {
    return this.subscription !== undefined;
  }

  since(): number {
    return this.changedAt;
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    this.subscription = this.deps.changes$.subscribe(() => void this.sync());
    this.changedAt = this.deps.clock.now();
    this.deps.logger.info('kube-proxy started');
    await this.sync();
  }

  async stop(): Promise<void> {
    if (!this.subscription) return;
    this.subscription.unsubscribe();
    this.subscription = undefined;
    this.changedAt = this.deps.clock.now();
    this.deps.logger.info('kube-proxy stopped: the rules in place keep serving, unchanged');
    await this.syncs.run().catch(() => undefined); // a sync in flight finishes; none after it applies
  }

  /** Programs the rules from what the cache holds now (or joins the next run); never rejects. */
  sync(): Promise<void> {
    return this.syncs.run();
  }

  private async syncOnce(): Promise<void> {
    if (!this.subscription) return;
    const { cache, rules, nodeName, logger } = this.deps;
    try {
      const refused = new Map<string, string[]>();
      const desired = serviceRules({ ...cachedServices(cache), pods: podsIn(cache), nodeName }, refused);
      this.logRefused(refused);
      const actions = planRules(desired, rules.current());
      if (actions.length === 0) return;
      await rules.apply(actions);
      logger.info('rules programmed', { opened: count(actions, 'open'), updated: count(actions, 'update'), closed: count(actions, 'close'), total: desired.length });
    } catch (err) {
      logger.error('cannot program the rules; will try on the next change', { error: (err as Error).message });
    }
  }

  private logRefused(refused: Map<string, string[]>): void {
    const logged = new Map<string, string>();
    for (const [service, addresses] of refused) {
      const text = addresses.join(',');
      logged.set(service, text);
      if (this.refusedLogged.get(service) !== text) this.deps.logger.debug('endpoint addresses refused: not an IP, or the machine\'s own loopback', { service, addresses: text });
    }
    this.refusedLogged = logged;
  }
}

const count = (actions: RuleAction[], type: RuleAction['type']): number => actions.filter((a) => a.type === type).length;
