import type { SpacedWrites } from '../../json-state-file.js';
import type { Observable } from 'rxjs';
import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';
import type { Pod } from '../../../shared/types.js';
import type { LocalCache } from '../../metamanager/local-cache.js';
import { cachedServices, KubeProxyAgent } from './kube-proxy-agent.js';
import { PortalsFile } from './portals-file.js';
import { ProxyRules, type ProxyRulesDeps } from './proxy-rules.js';
import { podServiceEnv, type PortalLookup } from './service-env.js';

export interface KubeProxyOptions {
  dataDir: string;
  nodeName: string;
  nodeAddress: string;
  cache: Pick<LocalCache, 'objects'>;
  changes$: Observable<unknown>;
  clock: Clock;
  logger: Logger;
  /** Given: written atomically, not durably, and spaced (hollow edges: EdgeOptions.durableWrites), settled by the edge's stop. */
  spaced?: SpacedWrites;
  /** The data plane's knobs (tests: a deterministic shuffle, a dialer, timeouts). */
  dataPlane?: Pick<ProxyRulesDeps, 'random' | 'dial' | 'maxConnections' | 'idleTimeoutMs' | 'bindRetryMs'>;
}

/** kube-proxy on an edge: the agent (stoppable) and the rules it programs, served by the userspace data plane. */
export interface KubeProxy {
  agent: KubeProxyAgent;
  rules: ProxyRules;
  /** Closes every listener and connection (the edge stops). */
  close(): Promise<void>;
}

/** Opens the data plane with the portals remembered under `dataDir`; the agent is not started. */
export async function openKubeProxy(o: KubeProxyOptions): Promise<KubeProxy> {
  const portals = await PortalsFile.open(o.dataDir, { logger: o.logger, spaced: o.spaced });
  const rules = new ProxyRules({ nodeAddress: o.nodeAddress, portals, clock: o.clock, logger: o.logger, ...o.dataPlane });
  const agent = new KubeProxyAgent({ cache: o.cache, changes$: o.changes$, rules, nodeName: o.nodeName, clock: o.clock, logger: o.logger });
  return {
    agent,
    rules,
    close: async () => {
      await agent.stop();
      await rules.close();
    },
  };
}

const NO_PORTALS: PortalLookup = () => undefined;

/**
 * The kubelet's Service variables for a pod, from the Services the edge holds, pointing at
 * this node's portals (`portals`), or at the ClusterIPs where there is none (no kube-proxy).
 */
export function serviceEnvFrom(cache: Pick<LocalCache, 'objects'>, portals: PortalLookup = NO_PORTALS): (pod: Pod) => Map<string, string> {
  return (pod) => podServiceEnv(pod, cachedServices(cache).services, portals);
}
