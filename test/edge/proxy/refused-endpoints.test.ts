import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createMemoryCache } from '../../../edge/metamanager/local-cache.js';
import { KubeProxyAgent } from '../../../edge/network/proxy/kube-proxy-agent.js';
import type { RuleAction } from '../../../edge/network/proxy/rule-plan.js';
import type { ServiceRule } from '../../../edge/network/proxy/service-rules.js';
import { FakeClock } from '../../../shared/clock.js';
import { memoryLogger } from '../../../shared/log.js';
import { holdIn } from '../fixtures.js';
import { address, endpoints, service } from './proxy-fixtures.js';

describe('kube-proxy: endpoint addresses it refuses', () => {
  it('are logged once per Service', async () => {
    const cache = createMemoryCache();
    const changes = new Subject<void>();
    const current = new Map<string, ServiceRule>();
    const rules = { current: () => current, apply: async (actions: readonly RuleAction[]) => void actions.forEach((a) => (a.type === 'close' ? current.delete(a.key) : current.set(a.rule.key, a.rule))) };
    const logger = memoryLogger('kube-proxy', { format: 'text', level: 'debug' });
    const agent = new KubeProxyAgent({ cache, changes$: changes, rules, nodeName: 'edge-1', clock: new FakeClock(), logger });
    holdIn(cache, service('web', [{ name: 'http', port: 80 }]));
    holdIn(cache, endpoints('web', [address('127.0.0.1'), address('127.64.2.3')], [{ name: 'http', port: 8080 }]));
    await agent.start();
    await agent.sync();
    const refusals = (): string[] => logger.lines.filter((l) => l.includes('refused'));
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0]).toContain('127.0.0.1');
    holdIn(cache, service('api', [{ name: 'http', port: 80 }]));
    holdIn(cache, endpoints('api', [address('localhost')], [{ name: 'http', port: 8080 }]));
    await agent.sync();
    expect(refusals()).toHaveLength(2); // api's, once; web's not again
    expect(refusals()[1]).toContain('localhost');
    expect(current.get('default/web:http')?.endpoints).toEqual(['127.64.2.3:8080']);
    await agent.stop();
  });
});
